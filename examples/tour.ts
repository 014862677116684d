/**
 * The tour `npm run example` prints: what a frontend does with the typed
 * client (typed-client.ts), one area at a time, against a running service.
 * Each step checks what came back and throws when the service answers
 * otherwise, so a broken client or service fails the run instead of printing
 * a wrong tour. Nothing secret is printed: no password, token or key secret.
 */
import {
  auditEvents,
  createApiKey,
  createClient,
  createMealMenu,
  createUser,
  GraphQLRequestError,
  listApiKeys,
  listMealMenus,
  listUsers,
  schemaNames,
  signIn,
  whoAmI,
} from './typed-client.js';

export interface TourOptions {
  /** The service, e.g. http://127.0.0.1:4000. */
  baseUrl: string;
  /** A platform administrator to sign in as. */
  admin: { email: string; password: string };
  /** Where each line goes. */
  print?: (line: string) => void;
}

/** The tenant the tour's user and menu belong to, and that user. */
const TENANT = 'acme';
const COOK = { email: 'cook@acme.test', password: 'C00kPassw0rd!', firstName: 'Grace' };
const MENU_DAY = '2030-01-18';

export async function runTour({ baseUrl, admin, print = console.log }: TourOptions): Promise<void> {
  const say = (area: string, text: string) => print(`  ${`${area}:`.padEnd(10)}${text}`);
  const anonymous = createClient({ baseUrl });

  // Auth: an access token for the administrator; every later call carries it.
  const client = createClient({ baseUrl, credential: await signIn(anonymous, admin.email, admin.password) });
  const me = await whoAmI(client);
  check(me.email === admin.email.toLowerCase(), `signed in as ${me.email}, not ${admin.email}`);
  say('auth', `signed in as ${me.email} (roles: ${me.roles.join(', ')}; tenant: ${me.tenant_id ?? 'none, platform-wide'})`);
  const wrongPassword = await refusalCode(() => signIn(anonymous, admin.email, 'Not-the-passw0rd'));
  check(wrongPassword === 'UNAUTHENTICATED', `a wrong password got ${wrongPassword}, not UNAUTHENTICATED`);
  say('auth', `a wrong password is refused: ${wrongPassword}`);

  // Users: a member of one tenant, created by the administrator (createdBy is the caller's own id).
  const cook = await createUser(client, { ...COOK, roles: ['member'], tenant_id: TENANT, createdBy: me.id, updatedBy: me.id });
  const users = await listUsers(client);
  check(users.items.some((user) => user.id === cook.id), `the new user ${cook.email} is not listed`);
  say('users', `created ${cook.email} (roles: ${cook.roles.join(', ')}; tenant: ${cook.tenant_id}); users listed: ${users.items.map((user) => user.email).join(', ')}`);

  // Meal menus: one created for the tenant, then listed by the cook signed in to that tenant.
  const menu = await createMealMenu(client, {
    name: 'Friday lunch',
    date: MENU_DAY,
    mealType: 'lunch',
    items: [{ name: 'Lentil soup', allergens: ['celery'] }],
    estimatedPortions: 40,
    tenant_id: TENANT,
  });
  const cookClient = createClient({ baseUrl, credential: await signIn(anonymous, COOK.email, COOK.password, TENANT) });
  const cookMenus = await listMealMenus(cookClient, { date: MENU_DAY });
  check(cookMenus.items.map((item) => item.id).join() === menu.id, `the cook lists ${cookMenus.items.length} menus on ${MENU_DAY}, not the one created`);
  say('menus', `created "${menu.name}" for ${menu.tenant_id} on ${menu.date} (${menu.mealType}, ${menu.estimatedPortions} portions); ${cook.email}, signed in to ${TENANT}, lists ${cookMenus.items.length} menu that day`);

  // API keys: the secret is answered once; the key is a credential limited to its scopes.
  const key = await createApiKey(client, { name: 'Kitchen display', scopes: ['menus:read'], rateLimit: 100 });
  const keys = await listApiKeys(client, { status: 'active' });
  check(keys.items.some((item) => item.id === key.id), `the new key ${key.keyId} is not listed`);
  check(keys.items.every((item) => !('key' in item)), 'a listed key carries its secret');
  say('api keys', `created "${key.name}" (keyId ${key.keyId}, scopes: ${key.scopes.join(', ')}; its secret is answered once, not printed); active keys listed: ${keys.items.length}`);
  // Null only in an answer replayed for a repeated Idempotency-Key, which the tour never sends.
  check(key.key !== null && key.key !== undefined, 'createApiKey answered no secret');
  const keyClient = createClient({ baseUrl, credential: key.key });
  const keyMenus = await listMealMenus(keyClient, { date: MENU_DAY });
  check(keyMenus.items.length === 1, `the key lists ${keyMenus.items.length} menus on ${MENU_DAY}, not 1`);
  const keyUsers = await refusalCode(() => listUsers(keyClient));
  check(keyUsers === 'FORBIDDEN', `listing users with a menus:read key got ${keyUsers}, not FORBIDDEN`);
  say('api keys', `with the key as credential: menus listed: ${keyMenus.items.length}; users refused: ${keyUsers}`);

  // Schemas: the JSON Schema lookup's names.
  const names = await schemaNames(client);
  const known = ['ApiKey', 'MealMenu', 'User'];
  check(known.every((name) => names.includes(name)), `schemaNames lacks one of ${known.join(', ')}`);
  say('schemas', `${names.length} JSON Schemas by name, among them ${known.join(', ')}`);

  // Audit: what the administrator just did, newest first.
  const events = await auditEvents(client, { actor: me.id });
  const actions = events.items.map((event) => event.action);
  const expected = ['api-keys.create', 'menus.create', 'users.create'];
  check(actions.join() === expected.join(), `the audit trail holds ${actions.join(', ') || 'nothing'}, not ${expected.join(', ')}`);
  say('audit', `the administrator's trail, newest first: ${actions.join(', ')}`);
}

function check(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

/** The GraphQL error code a refused call got (a call that succeeds is itself a failure of the tour). */
async function refusalCode(call: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await call();
  } catch (err) {
    if (err instanceof GraphQLRequestError) return err.code;
    throw err;
  }
  throw new Error('a call the service should refuse succeeded');
}
