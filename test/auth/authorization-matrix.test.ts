import { ObjectId } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { permissions } from '../../src/auth/index.js';
import { buildServiceSchema, restRoutes } from '../../src/service.js';
import { UserModel } from '../../src/users/index.js';
import {
  operationFromSchema,
  operationKeys,
  restSuccessStatus,
  type OperationKey,
} from '../support/schema-operations.js';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';
import { refusedTokens } from '../support/tokens.js';
import { callOperation, SURFACES, type Caller, type Outcome } from '../support/surfaces.js';

/**
 * The authorization matrix (issue 11): every operation of the served schema
 * against every kind of caller, on both surfaces. Allowed exactly where
 * `contract.md` says (where it is silent, what the code's `@Authorized` and
 * service checks do, said in a comment), else 401 (no usable credential, with
 * `WWW-Authenticate`), 403 (authenticated, not permitted) or 404 (another
 * tenant's record), the same on REST and GraphQL.
 *
 * The rows are enumerated against the schema, the REST route table and the
 * OpenAPI document: an operation added without a row fails this file.
 * Every call acts on tenant A: its records, or `tenant_id: A` on creates.
 */

const TENANT = 'tenant-matrix-a';
const OTHER_TENANT = 'tenant-matrix-b';

/** Who calls. Every caller but the platform administrator and `otherTenantAdmin` belongs to tenant A. */
const CALLERS = [
  'platformAdmin', // no tenant, built-in admin (`*`)
  'tenantAdmin', // built-in admin of tenant A
  'member', // built-in member of tenant A
  'noRole', // a user of tenant A holding no role
  'keyWithScope', // an API key of tenant A (made by its admin) carrying the row's keyScopes
  'keyWithoutScope', // one carrying every other permission but the one the row needs
  'revokedKey', // a revoked key that carried every permission
  'expiredToken', // an access token of tenant A's admin past its exp
  'staleToken', // an access token issued before its user's password changed (older `ver`)
  'none', // no credential
  'otherTenantAdmin', // built-in admin of tenant B, acting on tenant A
] as const;
type CallerName = (typeof CALLERS)[number];

/** Callers with no usable credential: 401 for every operation but login. */
const UNAUTHENTICATED: ReadonlySet<CallerName> = new Set(['revokedKey', 'expiredToken', 'staleToken', 'none']);

type Verdict = 'allowed' | 401 | 403 | 404;

/** What the arguments may depend on: the caller's own user id (an API key's: its creator's). */
interface Who {
  userId: string;
}

interface MatrixRow<F = undefined> {
  /** Callers the operation is allowed to (among tenant A's callers and the platform administrator). */
  allowed: readonly Exclude<CallerName, 'otherTenantAdmin'>[];
  /** Tenant B's admin acting on tenant A: 404 on a record of A, 403 creating in A, allowed where it only reaches its own tenant. */
  otherTenant: Verdict;
  /** The scopes an allowed API key carries; the first is the one the operation needs ([] = none). */
  keyScopes: readonly string[];
  /** Open to anyone (login): no credential needed, a bad one is not even looked at. */
  open?: true;
  /** A fresh record for one call, for operations that use it up (revoke, roll, delete). */
  fresh?: () => Promise<F>;
  /**
   * Records that count against a tenant limit: made when the row's turn comes
   * rather than with every other row's, and the ones left unused removed after it.
   */
  freshInTurn?: { leftovers: () => Promise<void> };
  args(who: Who, fixture: F): Record<string, unknown>;
}

const row = <F = undefined>(r: MatrixRow<F>): MatrixRow<F> => r;

/**
 * Tenant A's records the rows act on, made in beforeAll: a menu, an API key
 * made by tenant A's member, a user other than every caller, and the account
 * login signs in with.
 */
const records = { menuId: '', keyId: '', userId: '', roleId: '', loginUser: undefined as unknown as TestUser };
/** The built-in member's permissions: disabling or deleting a member needs them held (it would lock them out). */
const MEMBER_PERMISSIONS = ['users:read', 'roles:read', 'menus:read', 'schemas:read', 'api-keys:create'];
let serial = 0;
const unique = (prefix: string) => `${prefix}-${(serial += 1)}`;

/**
 * The matrix. Contract "Permissions and tenants": the built-in `admin` holds
 * `*`, `member` reads what the tenant owns (users:read, roles:read,
 * menus:read, schemas:read) and creates API keys; an API key acts with its
 * scopes; another tenant's record is 404; creating in another tenant is 403.
 */
const matrix: Record<OperationKey, MatrixRow<any>> = {
  // Contract "Credentials": the one operation open to anyone.
  'Mutation.login': row({
    open: true,
    allowed: ['platformAdmin', 'tenantAdmin', 'member', 'noRole', 'keyWithScope', 'keyWithoutScope', 'revokedKey', 'expiredToken', 'staleToken', 'none'],
    otherTenant: 'allowed',
    keyScopes: [],
    args: () => ({ email: records.loginUser.email, password: records.loginUser.password, tenantId: TENANT }),
  }),

  // Contract "Users": anyone reads their own record. Silent on API keys: the
  // code (UserService.get, isUserInPerson) exempts only a user in person, so
  // a key reads its creator's record with users:read only.
  'Query.me': row({
    allowed: ['platformAdmin', 'tenantAdmin', 'member', 'noRole', 'keyWithScope'],
    otherTenant: 'allowed',
    keyScopes: ['users:read'],
    args: () => ({}),
  }),
  // Contract silent: the catalogue is public to any caller (`@Authorized()`).
  'Query.permissions': row({
    allowed: ['platformAdmin', 'tenantAdmin', 'member', 'noRole', 'keyWithScope', 'keyWithoutScope'],
    otherTenant: 'allowed',
    keyScopes: [],
    args: () => ({}),
  }),
  'Query.users': row({
    allowed: ['platformAdmin', 'tenantAdmin', 'member', 'keyWithScope'],
    otherTenant: 'allowed',
    keyScopes: ['users:read'],
    args: () => ({}),
  }),
  // Another user's record: users:read (one's own needs none; not this row).
  'Query.user': row({
    allowed: ['platformAdmin', 'tenantAdmin', 'member', 'keyWithScope'],
    otherTenant: 404,
    keyScopes: ['users:read'],
    args: () => ({ id: records.userId }),
  }),
  // users:create; createdBy/updatedBy are the caller's own id (a key's: its creator's).
  'Mutation.createUser': row({
    allowed: ['platformAdmin', 'tenantAdmin', 'keyWithScope'],
    otherTenant: 403,
    keyScopes: ['users:create'],
    args: (who) => ({
      email: `${unique('matrix')}@example.test`,
      password: 'Passw0rd!',
      firstName: 'Matrix',
      createdBy: who.userId,
      updatedBy: who.userId,
      tenant_id: TENANT,
    }),
  }),
  // Another user's profile: users:update (one's own needs none; not this row).
  'Mutation.updateUser': row({
    allowed: ['platformAdmin', 'tenantAdmin', 'keyWithScope'],
    otherTenant: 404,
    keyScopes: ['users:update'],
    args: (who) => ({ id: records.userId, firstName: 'Renamed', updatedBy: who.userId }),
  }),
  // Contract "Users: disabling, deleting": users:disable / users:delete, on a fresh member of A each call.
  // A key also carries the member's permissions: whoever disables or deletes a user holds what they hold.
  'Mutation.disableUser': row({
    allowed: ['platformAdmin', 'tenantAdmin', 'keyWithScope'],
    otherTenant: 404,
    keyScopes: ['users:disable', ...MEMBER_PERMISSIONS],
    fresh: () => plainMember(),
    args: (_who, user: { id: string }) => ({ id: user.id, reason: 'matrix' }),
  }),
  'Mutation.enableUser': row({
    allowed: ['platformAdmin', 'tenantAdmin', 'keyWithScope'],
    otherTenant: 404,
    // The key holds what the (member) target holds: enabling follows the hold rule too.
    keyScopes: ['users:disable', ...MEMBER_PERMISSIONS],
    fresh: () => disabledUser(),
    args: (_who, user: { id: string }) => ({ id: user.id }),
  }),
  'Mutation.deleteUser': row({
    allowed: ['platformAdmin', 'tenantAdmin', 'keyWithScope'],
    otherTenant: 404,
    keyScopes: ['users:delete', ...MEMBER_PERMISSIONS],
    fresh: () => plainMember(),
    args: (_who, user: { id: string }) => ({ id: user.id }),
  }),
  'Query.roles': row({
    allowed: ['platformAdmin', 'tenantAdmin', 'member', 'keyWithScope'],
    otherTenant: 'allowed',
    keyScopes: ['roles:read'],
    args: () => ({}),
  }),
  // roles:create, granting only what the caller holds (menus:read here).
  'Mutation.createRole': row({
    allowed: ['platformAdmin', 'tenantAdmin', 'keyWithScope'],
    otherTenant: 403,
    keyScopes: ['roles:create', 'menus:read'],
    args: () => ({ name: unique('matrix-role'), permissions: ['menus:read'], tenant_id: TENANT }),
  }),
  // Contract "Users: disabling, deleting, sessions" (roles). One role: roles:read, as the list.
  'Query.role': row({
    allowed: ['platformAdmin', 'tenantAdmin', 'member', 'keyWithScope'],
    otherTenant: 404,
    keyScopes: ['roles:read'],
    args: () => ({ id: records.roleId }),
  }),
  // roles:update, and holding what the role grants (menus:read).
  'Mutation.updateRole': row({
    allowed: ['platformAdmin', 'tenantAdmin', 'keyWithScope'],
    otherTenant: 404,
    keyScopes: ['roles:update', 'menus:read'],
    args: () => ({ id: records.roleId, description: unique('matrix description') }),
  }),
  'Mutation.deleteRole': row({
    allowed: ['platformAdmin', 'tenantAdmin', 'keyWithScope'],
    otherTenant: 404,
    keyScopes: ['roles:delete', 'menus:read'],
    fresh: () => makeRole(),
    args: (_who, id: string) => ({ id }),
  }),
  // users:update and every permission the user holds (a member here): its holder can sign in as them.
  'Mutation.createPasswordTicket': row({
    allowed: ['platformAdmin', 'tenantAdmin', 'keyWithScope'],
    otherTenant: 404,
    keyScopes: ['users:update', 'users:read', 'roles:read', 'menus:read', 'schemas:read', 'api-keys:create'],
    args: () => ({ id: records.userId }),
  }),
  // Open, as login: the ticket is the proof; a credential sent along is not looked at.
  'Mutation.redeemPasswordTicket': row({
    open: true,
    allowed: ['platformAdmin', 'tenantAdmin', 'member', 'noRole', 'keyWithScope', 'keyWithoutScope', 'revokedKey', 'expiredToken', 'staleToken', 'none'],
    otherTenant: 'allowed',
    keyScopes: [],
    fresh: () => makeTicket(),
    args: (_who, ticket: string) => ({ ticket, newPassword: 'Matrix-Passw0rd!' }),
  }),

  'Query.mealMenus': row({
    allowed: ['platformAdmin', 'tenantAdmin', 'member', 'keyWithScope'],
    otherTenant: 'allowed',
    keyScopes: ['menus:read'],
    args: () => ({}),
  }),
  'Query.mealMenu': row({
    allowed: ['platformAdmin', 'tenantAdmin', 'member', 'keyWithScope'],
    otherTenant: 404,
    keyScopes: ['menus:read'],
    args: () => ({ id: records.menuId }),
  }),
  'Mutation.createMealMenu': row({
    allowed: ['platformAdmin', 'tenantAdmin', 'keyWithScope'],
    otherTenant: 403,
    keyScopes: ['menus:write'],
    args: () => ({ name: unique('Matrix lunch'), date: '2030-01-18', mealType: 'lunch', tenant_id: TENANT }),
  }),
  'Mutation.updateEstimatedPortions': row({
    allowed: ['platformAdmin', 'tenantAdmin', 'keyWithScope'],
    otherTenant: 404,
    keyScopes: ['menus:write'],
    args: () => ({ id: records.menuId, portions: 12 }),
  }),
  'Mutation.deleteMealMenu': row({
    allowed: ['platformAdmin', 'tenantAdmin', 'keyWithScope'],
    otherTenant: 404,
    keyScopes: ['menus:delete'],
    fresh: () => makeMenu(),
    args: (_who, menuId: string) => ({ id: menuId }),
  }),

  // Contract "Audit trail": holders of audit:read, confined to their tenant.
  'Query.auditEvents': row({
    allowed: ['platformAdmin', 'tenantAdmin', 'keyWithScope'],
    otherTenant: 'allowed',
    keyScopes: ['audit:read'],
    args: () => ({}),
  }),

  // Contract "API keys": the list is of the caller's visible keys, so any user
  // in person may list (their own keys); an API key lists only with
  // api-keys:read (the code: ApiKeyService.list).
  'Query.apiKeys': row({
    allowed: ['platformAdmin', 'tenantAdmin', 'member', 'noRole', 'keyWithScope'],
    otherTenant: 'allowed',
    keyScopes: ['api-keys:read'],
    args: () => ({}),
  }),
  // Viewing and revoking: the key's creator in person (the member made
  // these keys: "create and manage its own API keys") and holders of
  // api-keys:read / api-keys:revoke; anyone else of the tenant (noRole) 403.
  'Query.apiKey': row({
    allowed: ['platformAdmin', 'tenantAdmin', 'member', 'keyWithScope'],
    otherTenant: 404,
    keyScopes: ['api-keys:read'],
    args: () => ({ id: records.keyId, includeUsageLogs: true }),
  }),
  'Query.apiKeyUsageLogs': row({
    allowed: ['platformAdmin', 'tenantAdmin', 'member', 'keyWithScope'],
    otherTenant: 404,
    keyScopes: ['api-keys:read'],
    args: () => ({ id: records.keyId }),
  }),
  // Usage over time, previews: as viewing the key.
  'Query.apiKeyUsage': row({
    allowed: ['platformAdmin', 'tenantAdmin', 'member', 'keyWithScope'],
    otherTenant: 404,
    keyScopes: ['api-keys:read'],
    args: () => ({ id: records.keyId, granularity: 'day', from: '2026-03-01T00:00:00.000Z', to: '2026-03-02T00:00:00.000Z' }),
  }),
  'Query.apiKeyScopeReport': row({
    allowed: ['platformAdmin', 'tenantAdmin', 'member', 'keyWithScope'],
    otherTenant: 404,
    keyScopes: ['api-keys:read'],
    args: () => ({ id: records.keyId, days: 30 }),
  }),
  'Query.apiKeyRateLimitPreview': row({
    allowed: ['platformAdmin', 'tenantAdmin', 'member', 'keyWithScope'],
    otherTenant: 404,
    keyScopes: ['api-keys:read'],
    args: () => ({ id: records.keyId, rateLimit: 10, days: 30 }),
  }),
  // As viewing the key.
  'Query.apiKeyLineage': row({
    allowed: ['platformAdmin', 'tenantAdmin', 'member', 'keyWithScope'],
    otherTenant: 404,
    keyScopes: ['api-keys:read'],
    args: () => ({ id: records.keyId }),
  }),
  // api-keys:create (members hold it), with scopes the caller holds; no tenant
  // argument: tenant B's admin makes a key of tenant B.
  'Mutation.createApiKey': row({
    allowed: ['platformAdmin', 'tenantAdmin', 'member', 'keyWithScope'],
    otherTenant: 'allowed',
    keyScopes: ['api-keys:create', 'menus:read'],
    args: () => ({ name: unique('matrix key'), scopes: ['menus:read'] }),
  }),
  'Mutation.revokeApiKey': row({
    allowed: ['platformAdmin', 'tenantAdmin', 'member', 'keyWithScope'],
    otherTenant: 404,
    keyScopes: ['api-keys:revoke'],
    fresh: () => makeKey(['menus:read'], users.member),
    args: (_who, key: MadeKey) => ({ id: key.id }),
  }),
  // Only the key's creator (the member, in person), holding the key's scopes (menus:read here):
  // nobody else, administrators and holders of api-keys:revoke included (issue 27). An API key
  // rolls only itself and the keys it made, so not the member's key (api-key-bounds.test.ts).
  'Mutation.rollApiKey': row({
    allowed: ['member'],
    otherTenant: 404,
    keyScopes: ['api-keys:revoke', 'menus:read'],
    fresh: () => makeKey(['menus:read'], users.member),
    args: (_who, key: MadeKey) => ({ id: key.id }),
  }),
  // Contract: the caller needs api-keys:verify (only admin's `*` holds it among the built-in roles). Another
  // tenant's admin is answered (200), with code NOT_FOUND for a key of tenant A (verify-api-key.test.ts).
  'Mutation.verifyApiKey': row({
    allowed: ['platformAdmin', 'tenantAdmin', 'keyWithScope'],
    otherTenant: 'allowed',
    keyScopes: ['api-keys:verify'],
    args: () => ({ key: 'ak_not-a-key' }),
  }),

  // Updating: the key's creator in person (the member) or api-keys:update; an API key also holds
  // the key's scopes (menus:read here), as the bounds of a key acting ask (contract "managing a key").
  'Mutation.updateApiKey': row({
    allowed: ['platformAdmin', 'tenantAdmin', 'member', 'keyWithScope'],
    otherTenant: 404,
    keyScopes: ['api-keys:update', 'menus:read'],
    fresh: () => makeKey(['menus:read'], users.member),
    args: (_who, key: MadeKey) => ({ id: key.id, description: unique('matrix update') }),
  }),
  // Disabling and enabling need what revoking needs.
  'Mutation.disableApiKey': row({
    allowed: ['platformAdmin', 'tenantAdmin', 'member', 'keyWithScope'],
    otherTenant: 404,
    keyScopes: ['api-keys:revoke'],
    fresh: () => makeKey(['menus:read'], users.member),
    args: (_who, key: MadeKey) => ({ id: key.id, reason: 'matrix' }),
  }),
  'Mutation.enableApiKey': row({
    allowed: ['platformAdmin', 'tenantAdmin', 'member', 'keyWithScope'],
    otherTenant: 404,
    keyScopes: ['api-keys:revoke'],
    fresh: () => disabledKey(users.member),
    args: (_who, key: MadeKey) => ({ id: key.id }),
  }),

  'Query.schemaNames': row({
    allowed: ['platformAdmin', 'tenantAdmin', 'member', 'keyWithScope'],
    otherTenant: 'allowed',
    keyScopes: ['schemas:read'],
    args: () => ({}),
  }),
  'Query.schema': row({
    allowed: ['platformAdmin', 'tenantAdmin', 'member', 'keyWithScope'],
    otherTenant: 'allowed',
    keyScopes: ['schemas:read'],
    args: () => ({ schemaName: 'MealMenu' }),
  }),

  // Contract "Users: disabling, deleting, sessions": the refresh token is the credential.
  'Mutation.refreshAccessToken': row({
    open: true,
    allowed: ['platformAdmin', 'tenantAdmin', 'member', 'noRole', 'keyWithScope', 'keyWithoutScope', 'revokedKey', 'expiredToken', 'staleToken', 'none'],
    otherTenant: 'allowed',
    keyScopes: [],
    fresh: () => signedIn(records.loginUser).then((tokens) => tokens.refreshToken),
    args: (_who, refreshToken: string) => ({ refreshToken }),
  }),
  // One's own sessions: any user in person, never an API key (whatever its scopes).
  'Query.mySessions': row({
    allowed: ['platformAdmin', 'tenantAdmin', 'member', 'noRole'],
    otherTenant: 'allowed',
    keyScopes: [],
    args: () => ({}),
  }),
  'Query.session': row({
    allowed: ['platformAdmin', 'tenantAdmin', 'member', 'noRole'],
    otherTenant: 'allowed',
    keyScopes: [],
    args: (who) => ({ id: ownSessions.peek(who.userId) }),
  }),
  'Mutation.endSession': row({
    allowed: ['platformAdmin', 'tenantAdmin', 'member', 'noRole'],
    otherTenant: 'allowed',
    keyScopes: [],
    args: (who) => ({ id: ownSessions.take(who.userId) }),
  }),
  // The callers' tokens here are made without login (no session, as the CLI's): logout has nothing
  // to end for them (403), nor for an API key; signing out of a session: sessions.test.ts.
  'Mutation.logout': row({
    allowed: [],
    otherTenant: 403,
    keyScopes: [],
    args: () => ({}),
  }),
  // In person only; the proof is wrong here (403 for everyone): a success would raise the caller's
  // token version and stale the tokens of the cells after it (successes: change-password.test.ts).
  'Mutation.changePassword': row({
    allowed: [],
    otherTenant: 403,
    keyScopes: [],
    args: () => ({ currentPassword: 'Not-the-passw0rd', newPassword: 'N3w-passw0rd!' }),
  }),
  // Another user's sessions: users:update, within the tenant.
  'Query.userSessions': row({
    allowed: ['platformAdmin', 'tenantAdmin', 'keyWithScope'],
    otherTenant: 404,
    keyScopes: ['users:update'],
    args: () => ({ id: records.userId }),
  }),
  'Mutation.endUserSessions': row({
    allowed: ['platformAdmin', 'tenantAdmin', 'keyWithScope'],
    otherTenant: 404,
    // The key holds what the (member) target holds: ending another's sessions follows the hold rule.
    keyScopes: ['users:update', ...MEMBER_PERMISSIONS],
    args: () => ({ id: records.userId }),
  }),

  // Contract "Events and webhooks": the event log, holders of events:read, confined to their tenant.
  'Query.events': row({
    allowed: ['platformAdmin', 'tenantAdmin', 'keyWithScope'],
    otherTenant: 'allowed',
    keyScopes: ['events:read'],
    args: () => ({}),
  }),

  // Contract "Events and webhooks": every webhook operation needs webhooks:manage, tenant-scoped.
  'Query.webhooks': row({ allowed: ['platformAdmin', 'tenantAdmin', 'keyWithScope'], otherTenant: 'allowed', keyScopes: ['webhooks:manage'], args: () => ({}) }),
  'Query.webhook': row({ allowed: ['platformAdmin', 'tenantAdmin', 'keyWithScope'], otherTenant: 404, keyScopes: ['webhooks:manage'], args: () => ({ id: webhookRecords.id }) }),
  'Mutation.createWebhook': row({
    allowed: ['platformAdmin', 'tenantAdmin', 'keyWithScope'],
    otherTenant: 'allowed',
    keyScopes: ['webhooks:manage'],
    args: () => ({ url: 'http://127.0.0.1:9/matrix', events: ['*'] }),
  }),
  'Mutation.updateWebhook': row({ allowed: ['platformAdmin', 'tenantAdmin', 'keyWithScope'], otherTenant: 404, keyScopes: ['webhooks:manage'], args: () => ({ id: webhookRecords.id, description: unique('matrix') }) }),
  'Mutation.deleteWebhook': row({
    allowed: ['platformAdmin', 'tenantAdmin', 'keyWithScope'],
    otherTenant: 404,
    keyScopes: ['webhooks:manage'],
    fresh: () => plantedMatrixWebhook(),
    // One endpoint per cell would pass tenant A's 20 for the other webhook rows.
    freshInTurn: { leftovers: async () => void (await app.db.collection('webhooks').deleteMany({ secretSealed: 'v1.planted' })) },
    args: (_who, id: string) => ({ id }),
  }),
  'Mutation.testWebhook': row({ allowed: ['platformAdmin', 'tenantAdmin', 'keyWithScope'], otherTenant: 404, keyScopes: ['webhooks:manage'], args: () => ({ id: webhookRecords.id }) }),
  'Query.webhookDeliveries': row({ allowed: ['platformAdmin', 'tenantAdmin', 'keyWithScope'], otherTenant: 404, keyScopes: ['webhooks:manage'], args: () => ({ id: webhookRecords.id }) }),
  'Mutation.retryWebhookDelivery': row({
    allowed: ['platformAdmin', 'tenantAdmin', 'keyWithScope'],
    otherTenant: 404,
    keyScopes: ['webhooks:manage'],
    fresh: () => failedMatrixDelivery(),
    args: (_who, deliveryId: string) => ({ id: webhookRecords.id, deliveryId }),
  }),
};

/** Tenant A's webhook endpoint the webhook rows address (made on first use). */
const webhookRecords = { id: '' };

async function makeMatrixWebhook(): Promise<string> {
  const answer = await app.rest('POST', '/webhooks', { token: users.tenantAdmin.token, body: { url: 'http://127.0.0.1:9/matrix', events: ['*'] } });
  if (answer.status !== 201) throw new Error(`createWebhook answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body.id;
}

/** An endpoint of tenant A planted in the database (a delete per caller would pass the API's 20 per tenant). */
async function plantedMatrixWebhook(): Promise<string> {
  const now = new Date();
  const { insertedId } = await app.db.collection('webhooks').insertOne({
    url: 'http://127.0.0.1:9/matrix', events: ['*'], description: null, enabled: true, tenant_id: TENANT,
    createdBy: users.tenantAdmin.id, secretSealed: 'v1.planted', createdAt: now, updatedAt: now,
  });
  return insertedId.toHexString();
}

/** A failed delivery of tenant A's endpoint, planted (retryWebhookDelivery retries failed ones only). */
async function failedMatrixDelivery(): Promise<string> {
  const { insertedId } = await app.db.collection('webhookdeliveries').insertOne({
    webhookId: webhookRecords.id,
    eventId: new ObjectId().toHexString(),
    type: 'menus.create',
    tenant_id: TENANT,
    attempts: 7,
    status: 'failed',
    nextAttemptAt: null,
    payload: {},
    createdAt: new Date(),
    updatedAt: new Date(),
  });
  return insertedId.toHexString();
}

/** A sign-in of `user` over REST: its tokens. */
async function signedIn(user: TestUser): Promise<{ accessToken: string; refreshToken: string }> {
  const answer = await app.rest('POST', '/auth/login', { body: { email: user.email, password: user.password, tenantId: user.tenantId } });
  if (answer.status !== 200) throw new Error(`login answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/** Sessions of the callers who are users, made in beforeAll: session and endSession act on one of the caller's own. */
const ownSessions = {
  byUser: new Map<string, string[]>(),
  async fill(owners: readonly TestUser[], each: number): Promise<void> {
    for (const owner of owners) {
      const made = await Promise.all(Array.from({ length: each }, () => signedIn(owner)));
      this.byUser.set(owner.id, made.map(({ accessToken }) => (JSON.parse(Buffer.from(accessToken.split('.')[1], 'base64url').toString()) as { sid: string }).sid));
    }
  },
  /** One of the user's sessions, kept (any id when the user has none: the caller is refused before it matters). */
  peek(userId: string): string {
    return this.byUser.get(userId)?.[0] ?? '65f0c0ffee0000000000cafe';
  },
  /** One of the user's sessions nobody ended yet. */
  take(userId: string): string {
    const left = this.byUser.get(userId);
    return left && left.length > 1 ? left.pop()! : this.peek(userId);
  },
};

function verdictOf(r: MatrixRow<unknown>, caller: CallerName): Verdict {
  if (r.open) return 'allowed';
  if (UNAUTHENTICATED.has(caller)) return 401;
  if (caller === 'otherTenantAdmin') return r.otherTenant;
  return r.allowed.includes(caller) ? 'allowed' : 403;
}

/** The key a caller of this row uses: carrying the row's scopes, or every permission but the one it needs. */
function keyScopesFor(r: MatrixRow<unknown>, caller: 'keyWithScope' | 'keyWithoutScope'): string[] {
  if (caller === 'keyWithScope') return r.keyScopes.length > 0 ? [...r.keyScopes] : ['menus:read'];
  return permissions.filter((permission) => permission !== r.keyScopes[0]);
}

const scopeSet = (scopes: readonly string[]) => [...scopes].sort().join(' ');

// ---------------------------------------------------------------- the app and its callers

let app: TestApp;
const schema = await buildServiceSchema();
let users: Record<'platformAdmin' | 'tenantAdmin' | 'member' | 'noRole' | 'staleUser' | 'otherTenantAdmin', TestUser>;
let expiredToken: string;
/** API key secrets of tenant A's admin, by scope set. */
const keySecrets = new Map<string, string>();
let revokedSecret: string;

interface MadeKey {
  id: string;
  secret: string;
}

/** A key of tenant A, made through the API by `creator` (default: tenant A's admin). */
async function makeKey(scopes: readonly string[], creator: TestUser = users.tenantAdmin): Promise<MadeKey> {
  const answer = await app.rest('POST', '/api-keys', { token: creator.token, body: { name: unique('matrix key'), scopes } });
  if (answer.status !== 201) throw new Error(`createApiKey answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return { id: answer.body._id, secret: answer.body.key };
}

/** A key of tenant A made by `creator` and disabled by them. */
async function disabledKey(creator: TestUser): Promise<MadeKey> {
  const key = await makeKey(['menus:read'], creator);
  const answer = await app.rest('PATCH', `/api-keys/${key.id}/disable`, { token: creator.token });
  if (answer.status !== 200) throw new Error(`disableApiKey answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return key;
}

/** A member of tenant A that never signs in (stored directly: no password hashing for the dozens of fresh ones). */
async function plainMember(): Promise<{ id: string }> {
  const user = await UserModel.create({ email: `${unique('target')}@example.test`, passwordHash: 'never-signs-in', firstName: 'Target', roles: ['member'], tenant_id: TENANT });
  return { id: String(user._id) };
}

/** A member of tenant A disabled by its admin. */
async function disabledUser(): Promise<{ id: string }> {
  const user = await plainMember();
  const answer = await app.rest('PATCH', `/access-control/users/${user.id}/disable`, { token: users.tenantAdmin.token });
  if (answer.status !== 200) throw new Error(`disableUser answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return user;
}

async function makeMenu(): Promise<string> {
  const answer = await app.rest('POST', '/restaurant/meal-menus', {
    token: users.tenantAdmin.token,
    body: { name: unique('Matrix menu'), date: '2030-01-18', mealType: 'dinner' },
  });
  if (answer.status !== 201) throw new Error(`createMealMenu answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body.id;
}

/** A custom role of tenant A granting menus:read, made through the API. */
async function makeRole(): Promise<string> {
  const answer = await app.rest('POST', '/access-control/roles', { token: users.tenantAdmin.token, body: { name: unique('matrix-role'), permissions: ['menus:read'] } });
  if (answer.status !== 201) throw new Error(`createRole answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body.id;
}

/** A password ticket of a fresh member of tenant A (redeeming spends every ticket of its user), made through the API. */
async function makeTicket(): Promise<string> {
  const user = await app.createUser({ tenantId: TENANT, roles: ['member'] });
  const answer = await app.rest('POST', `/access-control/users/${user.id}/password-ticket`, { token: users.tenantAdmin.token });
  if (answer.status !== 201) throw new Error(`createPasswordTicket answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body.ticket;
}

/**
 * The records that rows with `fresh` use up, one per cell and surface, made
 * side by side in beforeAll rather than one by one in the cells.
 */
const freshRecords = {
  made: new Map<OperationKey, unknown[]>(),
  async fill(): Promise<void> {
    await Promise.all(
      Object.entries(matrix)
        .filter(([, r]) => r.fresh && !r.freshInTurn)
        .map(([key]) => this.fillRow(key as OperationKey)),
    );
  },
  async fillRow(key: OperationKey): Promise<void> {
    const perRow = CALLERS.length * SURFACES.length;
    this.made.set(key, await Promise.all(Array.from({ length: perRow }, () => matrix[key].fresh!())));
  },
  /** A record nobody has used yet (undefined for rows without `fresh`). */
  take(key: OperationKey): unknown {
    const left = this.made.get(key);
    if (!left) return undefined;
    if (left.length === 0) throw new Error(`No fresh record left for ${key}`);
    return left.pop();
  },
};

/** The credential and identity of one caller for one row. */
function resolveCaller(r: MatrixRow<unknown>, caller: CallerName): { credential: Caller; who: Who } {
  const as = (user: TestUser) => ({ credential: { token: user.token }, who: { userId: user.id } });
  const asKey = (secret: string) => ({ credential: { token: secret }, who: { userId: users.tenantAdmin.id } });
  switch (caller) {
    case 'platformAdmin':
    case 'tenantAdmin':
    case 'member':
    case 'noRole':
    case 'otherTenantAdmin':
      return as(users[caller]);
    case 'staleToken':
      return as(users.staleUser);
    case 'keyWithScope':
    case 'keyWithoutScope':
      return asKey(keySecrets.get(scopeSet(keyScopesFor(r, caller)))!);
    case 'revokedKey':
      return asKey(revokedSecret);
    case 'expiredToken':
      return { credential: { token: expiredToken }, who: { userId: users.tenantAdmin.id } };
    case 'none':
      return { credential: {}, who: { userId: users.tenantAdmin.id } };
  }
}

beforeAll(async () => {
  // Sessions are made by signing in, many at once (a sign-in counts as a failure until it succeeds),
  // and changePassword's row proves a wrong password: the sign-in throttle's limits out of reach.
  app = await startTestApp({ env: { LOGIN_ACCOUNT_FAILURES: '1000', LOGIN_IP_FAILURES: '1000' } });
  const [platformAdmin, tenantAdmin, member, noRole, staleUser, otherTenantAdmin, loginUser, target] = await Promise.all([
    app.createUser({ tenantId: null, roles: ['admin'] }),
    app.createUser({ tenantId: TENANT, roles: ['admin'] }),
    app.createUser({ tenantId: TENANT, roles: ['member'] }),
    app.createUser({ tenantId: TENANT, roles: [] }),
    app.createUser({ tenantId: TENANT, roles: ['admin'] }),
    app.createUser({ tenantId: OTHER_TENANT, roles: ['admin'] }),
    app.createUser({ tenantId: TENANT, roles: ['member'] }),
    app.createUser({ tenantId: TENANT, roles: ['member'] }),
  ]);
  users = { platformAdmin, tenantAdmin, member, noRole, staleUser, otherTenantAdmin };
  records.loginUser = loginUser;
  records.userId = target.id;
  // A password change raises the token version: staleUser's token, signed before, is now stale.
  await UserModel.updateOne({ _id: staleUser.id }, { $inc: { tokenVersion: 1 } });
  expiredToken = refusedTokens(app.config.jwt, { sub: tenantAdmin.id, tenant: TENANT, roles: ['admin'], ver: 0 }).expired;

  const sets = new Map<string, string[]>();
  for (const r of Object.values(matrix)) {
    for (const kind of ['keyWithScope', 'keyWithoutScope'] as const) {
      const scopes = keyScopesFor(r, kind);
      sets.set(scopeSet(scopes), scopes);
    }
  }
  const [menuId, targetKey, revoked, ...made] = await Promise.all([
    makeMenu(),
    makeKey(['menus:read'], member),
    makeKey(permissions),
    ...[...sets.values()].map((scopes) => makeKey(scopes)),
  ]);
  [...sets.keys()].forEach((set, index) => keySecrets.set(set, made[index].secret));
  records.menuId = menuId;
  records.roleId = await makeRole();
  records.keyId = targetKey.id;
  webhookRecords.id = await makeMatrixWebhook();
  revokedSecret = revoked.secret;
  await freshRecords.fill();
  // Every caller acting as tenant A's admin (its keys, its expired token, none) takes one of its sessions.
  await ownSessions.fill([platformAdmin, member, noRole, otherTenantAdmin], SURFACES.length + 1);
  await ownSessions.fill([tenantAdmin], CALLERS.length * SURFACES.length + 1);
  const revocation = await app.rest('PATCH', `/api-keys/${revoked.id}/revoke`, { token: tenantAdmin.token });
  if (revocation.status !== 200) throw new Error(`revokeApiKey answered ${revocation.status}`);
});

afterAll(async () => {
  await app?.close();
});

// ---------------------------------------------------------------- coverage: no operation skips the matrix

describe('the authorization matrix covers every operation', () => {
  const operations = operationKeys(schema);

  it('has a row for every Query and Mutation field of the served schema', () => {
    expect(operations.filter((key) => !(key in matrix))).toEqual([]);
  });

  it('has no row for an operation the schema lacks', () => {
    expect(Object.keys(matrix).filter((key) => !operations.includes(key as OperationKey))).toEqual([]);
  });

  it('has a REST route for every GraphQL operation, and a GraphQL operation for every REST route', () => {
    expect(operations.filter((key) => !restRoutes[key]?.path)).toEqual([]);
    expect(Object.keys(restRoutes).filter((key) => !operations.includes(key as OperationKey))).toEqual([]);
  });

  it('has a row for every operation of the OpenAPI document, documented at its route', async () => {
    const document = (await app.http('GET', '/api/v1/openapi.json')).body as {
      paths: Record<string, Record<string, { operationId?: string }>>;
    };
    const documented = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ route: `${method.toUpperCase()} ${path}`, id: operation.operationId ?? '' })),
    );
    const rowOf = (id: string) => Object.keys(matrix).find((key) => key.split('.')[1] === id);
    expect(documented.filter(({ id }) => !rowOf(id)).map(({ route }) => route)).toEqual([]);
    const routeOf = (key: string) => {
      const route = restRoutes[key as OperationKey];
      return `${route?.method ?? 'GET'} ${(route?.path ?? '').replace(/:(\w+)/g, '{$1}')}`;
    };
    const undocumented = Object.keys(matrix).filter((key) => !documented.some(({ route, id }) => route === routeOf(key) && id === key.split('.')[1]));
    expect(undocumented).toEqual([]);
  });
});

// ---------------------------------------------------------------- the cells

const REFUSAL_CODES = { 401: 'UNAUTHENTICATED', 403: 'FORBIDDEN', 404: 'NOT_FOUND' } as const;

/** One surface's answer against the cell's verdict. */
function assertVerdict(key: OperationKey, verdict: Verdict, outcome: Outcome): void {
  const why = `${outcome.surface} answered ${outcome.raw.status}: ${JSON.stringify(outcome.raw.body)}`;
  if (verdict === 'allowed') {
    expect(outcome.code, why).toBeUndefined();
    expect(outcome.raw.status, why).toBe(outcome.surface === 'rest' ? restSuccessStatus(restRoutes, key) : 200);
    expect(outcome.data ?? null, why).not.toBeNull();
    return;
  }
  // A GraphQL refusal carries its status as the HTTP status too (httpHeadFromErrors).
  expect(outcome.raw.status, why).toBe(verdict);
  expect(outcome.status, why).toBe(verdict);
  expect(outcome.code, why).toBe(REFUSAL_CODES[verdict]);
  if (verdict === 401) expect(outcome.raw.headers.get('www-authenticate') ?? '', why).toMatch(/^Bearer\b/);
}

describe('authorization of every operation, on both surfaces', () => {
  for (const [key, r] of Object.entries(matrix) as [OperationKey, MatrixRow<unknown>][]) {
    describe(key, () => {
      if (r.freshInTurn) {
        beforeAll(() => freshRecords.fillRow(key));
        afterAll(() => r.freshInTurn!.leftovers());
      }
      for (const caller of CALLERS) {
        const verdict = verdictOf(r, caller);
        it(`${caller}: ${verdict === 'allowed' ? 'allowed' : verdict}`, async () => {
          const { credential, who } = resolveCaller(r, caller);
          // The surfaces run side by side: each has its own fixture and its own arguments.
          const outcomes = await Promise.all(
            SURFACES.map((surface) => {
              const operation = operationFromSchema(schema, restRoutes, key, r.args(who, freshRecords.take(key)));
              return callOperation(app, surface, operation, credential);
            }),
          );
          // Each surface against the same verdict: the same status and code on both.
          for (const outcome of outcomes) assertVerdict(key, verdict, outcome);
        });
      }
    });
  }
});
