import { ObjectId, type Document } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RoleModel } from '../../src/users/index.js';
import { argumentTypes } from '../support/schema-operations.js';
import { servedSchema, startTestApp, type TestApp, type TestUser } from '../support/test-app.js';
import { apiCase, callOperation, runCases, type Caller, type Operation, type Surface } from '../support/surfaces.js';

/**
 * Access-control users (description 2.2, 4.3, 4.4, 8; contract "Users"),
 * every rule and refusal over REST and GraphQL. Mutation cases check the
 * stored record afterwards through the native driver (`users` collection).
 */

let app: TestApp;
const client = () => app;

const TENANT = 'tenant-users';
const OTHER_TENANT = 'tenant-users-elsewhere';
const LIST_TENANT = 'tenant-users-lists';
type Who = Caller & { id: string; user: TestUser };
let platform: Who; // platform administrator, no tenant
let admin: Who; // TENANT, built-in admin (`*`)
let member: Who; // TENANT, built-in member (users:read, no users:create/update)
let outsider: Who; // OTHER_TENANT admin
let manager: Who; // TENANT, custom role: users:create/update/read/assign-roles + member's permissions, not `*`
let clerk: Who; // TENANT, custom role: users:create/read, no users:assign-roles
let listReader: Who; // LIST_TENANT member
let tenantless: Who; // no tenant, member role: not a platform administrator
let auditorRoleId: string; // TENANT custom role with api-keys:read
let managerRoleId: string; // the manager's custom role
let otherTenantRoleId: string; // OTHER_TENANT custom role
const nobody: Caller = {};

// ---------------------------------------------------------------- operations

const USER_FIELDS = `id email firstName lastName profilePicture mobile identificationType identification address bio
  social { twitter instagram linkedin } defaultColor roles tenant_id createdBy updatedBy createdAt updatedAt`;

/** GraphQL types of the create and update arguments, from the served schema; anything else is declared String (and refused as unknown). */
const CREATE_TYPES = argumentTypes(await servedSchema(), 'Mutation.createUser');
const UPDATE_TYPES = argumentTypes(await servedSchema(), 'Mutation.updateUser');

function mutation(field: string, types: Readonly<Record<string, string>>, variables: Record<string, unknown>): string {
  const names = Object.keys(variables);
  const declared = names.map((name) => `$${name}: ${types[name] ?? 'String'}`).join(', ');
  const passed = names.map((name) => `${name}: $${name}`).join(', ');
  return `mutation${names.length ? `(${declared})` : ''} { ${field}${names.length ? `(${passed})` : ''} { ${USER_FIELDS} } }`;
}

const op = {
  create(body: Record<string, unknown>): Operation {
    return {
      rest: { method: 'POST', path: '/access-control/users', body },
      graphql: { query: mutation('createUser', CREATE_TYPES, body), variables: body },
    };
  },
  update(id: string, body: Record<string, unknown>): Operation {
    return {
      rest: { method: 'PATCH', path: `/access-control/users/${id}`, body },
      graphql: { query: mutation('updateUser', UPDATE_TYPES, { id, ...body }), variables: { id, ...body } },
    };
  },
  get(id: string): Operation {
    return {
      rest: { method: 'GET', path: `/access-control/users/${id}` },
      graphql: { query: `query($id: ID!) { user(id: $id) { ${USER_FIELDS} } }`, variables: { id } },
    };
  },
  list(args: Record<string, string | number> = {}): Operation {
    const query = new URLSearchParams(Object.entries(args).map(([k, v]) => [k, String(v)])).toString();
    return {
      rest: { method: 'GET', path: `/access-control/users${query ? `?${query}` : ''}` },
      graphql: {
        query: `query($limit: Int, $cursor: String, $email: String, $role: String, $search: String,
            $createdAfter: DateTimeISO, $createdBefore: DateTimeISO) {
          users(limit: $limit, cursor: $cursor, email: $email, role: $role, search: $search,
            createdAfter: $createdAfter, createdBefore: $createdBefore) { items { ${USER_FIELDS} } nextCursor } }`,
        variables: { ...args },
      },
    };
  },
  roles(args: Record<string, string | number> = {}): Operation {
    const query = new URLSearchParams(Object.entries(args).map(([k, v]) => [k, String(v)])).toString();
    return {
      rest: { method: 'GET', path: `/access-control/roles${query ? `?${query}` : ''}` },
      graphql: {
        query: `query($limit: Int, $cursor: String) { roles(limit: $limit, cursor: $cursor) {
          items { id name description permissions tenant_id builtIn } nextCursor } }`,
        variables: { ...args },
      },
    };
  },
  createRole(body: Record<string, unknown>): Operation {
    return {
      rest: { method: 'POST', path: '/access-control/roles', body },
      graphql: {
        query: `mutation($name: String!, $description: String, $permissions: [String!]!, $tenant_id: String) {
          createRole(name: $name, description: $description, permissions: $permissions, tenant_id: $tenant_id) {
            id name description permissions tenant_id builtIn } }`,
        variables: body,
      },
    };
  },
};

// ---------------------------------------------------------------- fixtures

let counter = 0;
/** A fresh email, unique per call (and so per surface). */
function freshEmail(prefix = 'user'): string {
  counter += 1;
  return `${prefix}${counter}.${Date.now().toString(36)}@example.test`;
}

/** A valid create body by `who`, with overrides. */
function validUser(who: Who, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { email: freshEmail(), password: 'Str0ng-Pass', firstName: 'Ada', createdBy: who.id, updatedBy: who.id, ...overrides };
}

const EVERY_OPTIONAL = {
  lastName: 'Lovelace',
  profilePicture: 'https://pictures.example.test/ada.png',
  mobile: '+573001234567',
  identificationType: 'CC',
  identification: '1020304050',
  address: 'Calle 1 # 2-3, Bogotá',
  bio: 'Wrote the first program.',
  social: { twitter: 'https://twitter.com/ada', instagram: 'https://instagram.com/ada', linkedin: 'https://linkedin.com/in/ada' },
  defaultColor: 'bg-green-700',
};

const users = () => app.db.collection('users');
const storedById = (id: string) => users().findOne({ _id: new ObjectId(id) });
const countByEmail = (email: unknown) => users().countDocuments({ email });

/** A user of TENANT made directly (not through the API), for update cases. */
async function tenantUser(overrides: { roles?: string[]; tenantId?: string } = {}): Promise<{ id: string; before: Document | null; user: TestUser }> {
  const user = await app.createUser({ tenantId: overrides.tenantId ?? TENANT, roles: overrides.roles ?? ['member'] });
  return { id: user.id, before: await storedById(user.id), user };
}

/** A user of TENANT as an import may store it: without createdAt and updatedAt. */
async function unstampedUser(): Promise<{ id: string; before: Document | null; user: TestUser }> {
  const made = await tenantUser();
  await users().updateOne({ _id: new ObjectId(made.id) }, { $unset: { createdAt: '', updatedAt: '' } });
  return made;
}

/** What a record without timestamps answers for both: when its id was made. */
const idTimes = (id: string) => {
  const at = new ObjectId(id).getTimestamp().toISOString();
  return { createdAt: at, updatedAt: at };
};

/** createdAfter/createdBefore `ms` either side of a time. */
const around = (at: Date, ms: number) => ({
  createdAfter: new Date(at.getTime() - ms).toISOString(),
  createdBefore: new Date(at.getTime() + ms).toISOString(),
});

function caller(user: TestUser): Who {
  return { token: user.token, id: user.id, user };
}

const unknownId = () => new ObjectId().toHexString();

/** The status of signing in to TENANT with this email and password. */
async function signInStatus(email: string, password: string): Promise<number> {
  return (await app.rest('POST', '/auth/login', { body: { email, password, tenantId: TENANT } })).status;
}

/**
 * A refused takeover of a user's sign-in: 403 naming what was refused, the
 * record unchanged, and the user still signs in with the old email and password.
 */
function refusedTakeover(name: string, field: 'password' | 'email', who: () => Who, fields: (who: Who) => Record<string, unknown>) {
  return apiCase({
    name,
    arrange: () => tenantUser({ roles: ['admin'] }),
    caller: () => who(),
    operation: ({ id }) => op.update(id, { ...fields(who()), updatedBy: who().id }),
    expect: {
      status: 403,
      code: 'FORBIDDEN',
      db: async ({ id, before, user }, outcome) => {
        expect(outcome.message).toBe(
          `Changing the ${field} of a user who holds permissions you do not hold is not allowed (it would let you sign in as them): '*' (role admin)`,
        );
        expect(await storedById(id)).toEqual(before);
        expect(await signInStatus(user.email, user.password)).toBe(200);
      },
    },
  });
}

/** A refused change of an administrator's roles by the manager: 403 naming what was refused, the record unchanged. */
function refusedDemotion(name: string, roles: string[]) {
  return apiCase({
    name,
    arrange: () => tenantUser({ roles: ['admin'] }),
    caller: () => manager,
    operation: ({ id }) => op.update(id, { roles, updatedBy: manager.id }),
    expect: {
      status: 403,
      code: 'FORBIDDEN',
      db: async ({ id, before }, outcome) => {
        expect(outcome.message).toBe(
          "Changing the roles of a user who holds permissions you do not hold is not allowed (it would let you take their access away): '*' (role admin)",
        );
        expect(await storedById(id)).toEqual(before);
      },
    },
  });
}

beforeAll(async () => {
  app = await startTestApp();
  const managerRole = await RoleModel.create({
    name: 'user-manager',
    tenant_id: TENANT,
    permissions: ['users:create', 'users:update', 'users:read', 'users:assign-roles', 'roles:read', 'menus:read', 'schemas:read', 'api-keys:create'],
  });
  const clerkRole = await RoleModel.create({ name: 'clerk', tenant_id: TENANT, permissions: ['users:create', 'users:read'] });
  const auditorRole = await RoleModel.create({ name: 'auditor', tenant_id: TENANT, permissions: ['api-keys:read'] });
  const foreignRole = await RoleModel.create({ name: 'auditor', tenant_id: OTHER_TENANT, permissions: ['api-keys:read'] });
  auditorRoleId = String(auditorRole._id);
  managerRoleId = String(managerRole._id);
  otherTenantRoleId = String(foreignRole._id);
  const [p, a, m, o, mg, c, lr, tl] = await Promise.all([
    app.createUser({ tenantId: null }),
    app.createUser({ tenantId: TENANT, roles: ['admin'] }),
    app.createUser({ tenantId: TENANT, roles: ['member'] }),
    app.createUser({ tenantId: OTHER_TENANT, roles: ['admin'] }),
    app.createUser({ tenantId: TENANT, roles: [String(managerRole._id)] }),
    app.createUser({ tenantId: TENANT, roles: [String(clerkRole._id)] }),
    app.createUser({ tenantId: LIST_TENANT, roles: ['member'] }),
    app.createUser({ tenantId: null, roles: ['member'] }),
  ]);
  [platform, admin, member, outsider, manager, clerk, listReader, tenantless] = [p, a, m, o, mg, c, lr, tl].map(caller);

  // The list tenant: five users with known names, emails and roles; nobody changes them.
  for (const [first, last, roles] of [
    ['Grace', 'Hopper', ['member']],
    ['Alan', 'Turing', ['admin']],
    ['Barbara', 'Liskov', ['member']],
    ['Edsger', 'Dijkstra', []],
  ] as const) {
    await app.createUser({ tenantId: LIST_TENANT, roles: [...roles], firstName: first, email: `${first.toLowerCase()}.${last.toLowerCase()}@lists.example.test` });
  }
});

afterAll(async () => {
  await app?.close();
});

/** A refusal of one field and rule that leaves no user with the body's email. */
function refusedCreate(name: string, overrides: Record<string, unknown>, field: string, rule: string) {
  return apiCase({
    name,
    arrange: () => validUser(admin, overrides),
    caller: () => admin,
    operation: (body) => op.create(body),
    expect: { status: 400, fieldErrors: [{ field, rule }], db: async (body) => expect(await countByEmail(body.email)).toBe(0) },
  });
}

// ---------------------------------------------------------------- create

runCases('creating a user', client, [
  apiCase({
    name: 'answers 201 with the user, never the password or its hash, in the caller tenant',
    arrange: () => validUser(admin),
    caller: () => admin,
    operation: (body) => op.create(body),
    expect: {
      status: 201,
      data: (user, body) => {
        expect(user).toMatchObject({ email: body.email, firstName: 'Ada', tenant_id: TENANT, createdBy: admin.id, updatedBy: admin.id, roles: [], defaultColor: 'bg-blue-500', lastName: null });
        expect(JSON.stringify(user)).not.toMatch(/Str0ng-Pass|argon2|passwordHash|"password"/);
      },
      db: async (body) => {
        const stored = await users().findOne({ email: body.email });
        expect(stored?.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
        expect(stored?.passwordHash).not.toContain('Str0ng-Pass');
      },
    },
  }),
  apiCase({
    name: 'keeps every optional field of 2.2',
    arrange: () => validUser(admin, EVERY_OPTIONAL),
    caller: () => admin,
    operation: (body) => op.create(body),
    expect: { status: 201, data: (user) => expect(user).toMatchObject(EVERY_OPTIONAL) },
  }),
  refusedCreate('refuses an email that is no email address', { email: 'not-an-email' }, 'email', 'isEmail'),
  refusedCreate('refuses a password under 6 characters', { password: 'Ab1!' }, 'password', 'isAcceptablePassword'),
  refusedCreate('refuses a password over 50 characters (no silent truncation)', { password: `Aa1${'x'.repeat(48)}` }, 'password', 'isAcceptablePassword'),
  refusedCreate('refuses a password without an uppercase letter', { password: 'abcdef1!' }, 'password', 'isAcceptablePassword'),
  refusedCreate('refuses a password without a lowercase letter', { password: 'ABCDEF1!' }, 'password', 'isAcceptablePassword'),
  refusedCreate('refuses a password without a digit or non-word character', { password: 'Abcdefgh' }, 'password', 'isAcceptablePassword'),
  refusedCreate('refuses an empty firstName', { firstName: '' }, 'firstName', 'isLength'),
  refusedCreate('refuses an empty lastName', { lastName: '' }, 'lastName', 'isLength'),
  refusedCreate('refuses a profilePicture that is no http(s) URL', { profilePicture: 'ftp://files.example.test/a.png' }, 'profilePicture', 'isUrl'),
  refusedCreate('refuses a mobile of 6 digits', { mobile: '123456' }, 'mobile', 'matches'),
  refusedCreate('refuses a mobile of 16 digits', { mobile: '+1234567890123456' }, 'mobile', 'matches'),
  refusedCreate('refuses a mobile with separators', { mobile: '300-123-4567' }, 'mobile', 'matches'),
  refusedCreate('refuses an identificationType outside CC, CE, PA, TI, NIT', { identificationType: 'DNI' }, 'identificationType', 'type'),
  refusedCreate('refuses a social link that is no URL', { social: { twitter: 'not a url' } }, 'social.twitter', 'isUrl'),
  refusedCreate('refuses an unknown social key', { social: { myspace: 'https://myspace.example.test/ada' } }, 'social', 'type'),
  refusedCreate('refuses a createdBy that is no MongoId', { createdBy: 'me' }, 'createdBy', 'isMongoId'),
  refusedCreate('refuses an updatedBy that is no MongoId', { updatedBy: '12345' }, 'updatedBy', 'isMongoId'),
  refusedCreate('refuses a role id of the wrong shape', { roles: ['superuser'] }, 'roles', 'matches'),
  refusedCreate('refuses a defaultColor with spaces', { defaultColor: 'bg blue 500' }, 'defaultColor', 'matches'),
  apiCase({
    name: 'names every failing field at once',
    arrange: () => validUser(admin, { email: 'nope', firstName: '', mobile: '12' }),
    caller: () => admin,
    operation: (body) => op.create(body),
    expect: {
      status: 400,
      fieldErrors: [
        { field: 'email', rule: 'isEmail' },
        { field: 'firstName', rule: 'isLength' },
        { field: 'mobile', rule: 'matches' },
      ],
    },
  }),
  apiCase({
    name: 'refuses an unknown field',
    arrange: () => validUser(admin, { nickname: 'ada' }),
    caller: () => admin,
    operation: (body) => op.create(body),
    expect: { status: 400, db: async (body) => expect(await countByEmail(body.email)).toBe(0) },
  }),
  apiCase({
    name: 'refuses a missing required field',
    arrange: () => {
      const { updatedBy: _omitted, ...body } = validUser(admin);
      return body;
    },
    caller: () => admin,
    operation: (body) => op.create(body),
    expect: { status: 400, db: async (body) => expect(await countByEmail(body.email)).toBe(0) },
  }),
  apiCase({
    name: 'refuses an email taken in the tenant, in another letter case, with 409 naming email',
    arrange: async () => {
      const taken = await app.createUser({ tenantId: TENANT, email: freshEmail('Taken') });
      return validUser(admin, { email: taken.email.toUpperCase() });
    },
    caller: () => admin,
    operation: (body) => op.create(body),
    expect: { status: 409, code: 'CONFLICT', fieldErrors: [{ field: 'email', rule: 'unique' }] },
  }),
  apiCase({
    name: 'accepts an email that exists only in another tenant',
    arrange: async () => {
      const elsewhere = await app.createUser({ tenantId: OTHER_TENANT, email: freshEmail('twin') });
      return validUser(admin, { email: elsewhere.email });
    },
    caller: () => admin,
    operation: (body) => op.create(body),
    expect: { status: 201, data: (user) => expect(user.tenant_id).toBe(TENANT) },
  }),
  apiCase({
    name: "refuses a createdBy that is someone else's id with 403",
    arrange: () => validUser(admin, { createdBy: member.id }),
    caller: () => admin,
    operation: (body) => op.create(body),
    expect: { status: 403, code: 'FORBIDDEN', db: async (body) => expect(await countByEmail(body.email)).toBe(0) },
  }),
  apiCase({
    name: "refuses an updatedBy that is someone else's id with 403",
    arrange: () => validUser(admin, { updatedBy: unknownId() }),
    caller: () => admin,
    operation: (body) => op.create(body),
    expect: { status: 403, code: 'FORBIDDEN' },
  }),
  apiCase({
    name: 'makes a platform administrator name tenant_id (400)',
    arrange: () => validUser(platform),
    caller: () => platform,
    operation: (body) => op.create(body),
    expect: { status: 400, fieldErrors: [{ field: 'tenant_id', rule: 'required' }] },
  }),
  apiCase({
    name: 'lets a platform administrator create a user in the tenant it names',
    arrange: () => validUser(platform, { tenant_id: OTHER_TENANT, roles: ['admin'] }),
    caller: () => platform,
    operation: (body) => op.create(body),
    expect: { status: 201, data: (user) => expect([user.tenant_id, user.roles]).toEqual([OTHER_TENANT, ['admin']]) },
  }),
  apiCase({
    name: 'refuses a tenant administrator naming another tenant with 403',
    arrange: () => validUser(admin, { tenant_id: OTHER_TENANT }),
    caller: () => admin,
    operation: (body) => op.create(body),
    expect: { status: 403, code: 'FORBIDDEN' },
  }),
  apiCase({
    name: 'refuses a caller without users:create with 403',
    arrange: () => validUser(member),
    caller: () => member,
    operation: (body) => op.create(body),
    expect: { status: 403, code: 'FORBIDDEN' },
  }),
  apiCase({
    name: 'refuses a request without a credential with 401',
    arrange: () => validUser(admin),
    caller: () => nobody,
    operation: (body) => op.create(body),
    expect: { status: 401, code: 'UNAUTHENTICATED', headers: { 'www-authenticate': 'Bearer' } },
  }),
  apiCase({
    name: 'refuses roles from a caller without users:assign-roles with 403',
    arrange: () => validUser(clerk, { roles: ['member'] }),
    caller: () => clerk,
    operation: (body) => op.create(body),
    expect: { status: 403, code: 'FORBIDDEN', db: async (body) => expect(await countByEmail(body.email)).toBe(0) },
  }),
  apiCase({
    name: 'lets a caller without users:assign-roles create a user without roles',
    arrange: () => validUser(clerk),
    caller: () => clerk,
    operation: (body) => op.create(body),
    expect: { status: 201 },
  }),
  apiCase({
    name: 'refuses granting a role whose permissions the caller lacks (admin) with 403',
    arrange: () => validUser(manager, { roles: ['admin'] }),
    caller: () => manager,
    operation: (body) => op.create(body),
    expect: { status: 403, code: 'FORBIDDEN', db: async (body) => expect(await countByEmail(body.email)).toBe(0) },
  }),
  apiCase({
    name: 'refuses granting a custom role whose permissions the caller lacks with 403',
    arrange: () => validUser(manager, { roles: [auditorRoleId] }),
    caller: () => manager,
    operation: (body) => op.create(body),
    expect: { status: 403, code: 'FORBIDDEN' },
  }),
  apiCase({
    name: 'lets a caller grant a role whose permissions it holds',
    arrange: () => validUser(manager, { roles: ['member'] }),
    caller: () => manager,
    operation: (body) => op.create(body),
    expect: { status: 201, data: (user) => expect(user.roles).toEqual(['member']) },
  }),
  apiCase({
    name: "refuses a role of another tenant (400 naming roles)",
    arrange: () => validUser(admin, { roles: [otherTenantRoleId] }),
    caller: () => admin,
    operation: (body) => op.create(body),
    expect: { status: 400, fieldErrors: [{ field: 'roles', rule: 'exists' }] },
  }),
  apiCase({
    name: 'refuses a caller without a tenant who is no platform administrator',
    arrange: () => validUser(tenantless, { tenant_id: TENANT }),
    caller: () => tenantless,
    operation: (body) => op.create(body),
    expect: { status: 403, code: 'FORBIDDEN' },
  }),
]);

// ---------------------------------------------------------------- update

runCases('updating a user', client, [
  apiCase({
    name: 'updates a user stored without createdAt/updatedAt: 200, updatedAt as stored, createdAt the time of its id',
    arrange: unstampedUser,
    caller: () => admin,
    operation: ({ id }) => op.update(id, { bio: 'Imported.', updatedBy: admin.id }),
    expect: {
      status: 200,
      data: (user, { id }) => expect(user).toMatchObject({ bio: 'Imported.', createdAt: idTimes(id).createdAt }),
      db: async ({ id }, outcome) => {
        const record = await storedById(id);
        expect((record?.['updatedAt'] as Date).toISOString()).toBe((outcome.data as { updatedAt: string }).updatedAt);
      },
    },
  }),
  apiCase({
    name: 'changes only the fields given',
    arrange: () => tenantUser(),
    caller: () => admin,
    operation: ({ id }) => op.update(id, { lastName: 'Byron', bio: 'Poet', updatedBy: admin.id }),
    expect: {
      status: 200,
      data: (user, { before }) => expect(user).toMatchObject({ lastName: 'Byron', bio: 'Poet', firstName: before!.firstName, email: before!.email, updatedBy: admin.id }),
      db: async ({ id, before }) => expect(await storedById(id)).toMatchObject({ lastName: 'Byron', bio: 'Poet', email: before!.email, passwordHash: before!.passwordHash }),
    },
  }),
  apiCase({
    name: 'clears an optional field given as null',
    arrange: async () => {
      const target = await tenantUser();
      await users().updateOne({ _id: new ObjectId(target.id) }, { $set: { lastName: 'Byron', social: { twitter: 'https://twitter.com/x' } } });
      return target;
    },
    caller: () => admin,
    operation: ({ id }) => op.update(id, { lastName: null, social: null, updatedBy: admin.id }),
    expect: { status: 200, data: (user) => expect([user.lastName, user.social]).toEqual([null, null]) },
  }),
  apiCase({
    name: 'replaces the whole social object with the one sent (a link left out is gone)',
    arrange: async () => {
      const target = await tenantUser();
      await users().updateOne({ _id: new ObjectId(target.id) }, { $set: { social: { twitter: 'https://twitter.com/x' } } });
      return target;
    },
    caller: () => admin,
    operation: ({ id }) => op.update(id, { social: { instagram: 'https://instagram.com/x' }, updatedBy: admin.id }),
    expect: {
      status: 200,
      data: (user) => expect(user.social).toEqual({ twitter: null, instagram: 'https://instagram.com/x', linkedin: null }),
      db: async ({ id }) => expect((await storedById(id))?.social?.twitter ?? null).toBeNull(),
    },
  }),
  apiCase({
    name: 'refuses clearing a required field (firstName: null) and changes nothing',
    arrange: () => tenantUser(),
    caller: () => admin,
    operation: ({ id }) => op.update(id, { firstName: null, updatedBy: admin.id }),
    expect: {
      status: 400,
      fieldErrors: [{ field: 'firstName', rule: 'isDefined' }],
      db: async ({ id, before }) => expect(await storedById(id)).toEqual(before),
    },
  }),
  apiCase({
    name: 'applies every rule of 2.2 on update too',
    arrange: () => tenantUser(),
    caller: () => admin,
    operation: ({ id }) => op.update(id, { email: 'bad', password: 'short', mobile: 'x', updatedBy: admin.id }),
    expect: {
      status: 400,
      fieldErrors: [
        { field: 'email', rule: 'isEmail' },
        { field: 'password', rule: 'isAcceptablePassword' },
        { field: 'mobile', rule: 'matches' },
      ],
      db: async ({ id, before }) => expect(await storedById(id)).toEqual(before),
    },
  }),
  apiCase({
    name: 'requires updatedBy',
    arrange: () => tenantUser(),
    caller: () => admin,
    operation: ({ id }) => op.update(id, { bio: 'x' }),
    expect: { status: 400, db: async ({ id, before }) => expect(await storedById(id)).toEqual(before) },
  }),
  apiCase({
    name: "refuses an updatedBy that is someone else's id with 403",
    arrange: () => tenantUser(),
    caller: () => admin,
    operation: ({ id }) => op.update(id, { bio: 'x', updatedBy: member.id }),
    expect: { status: 403, code: 'FORBIDDEN', db: async ({ id, before }) => expect(await storedById(id)).toEqual(before) },
  }),
  apiCase({
    name: 'lets users edit their own profile without users:update',
    arrange: () => tenantUser({ roles: [] }),
    caller: ({ user }) => caller(user),
    operation: ({ id }) => op.update(id, { bio: 'My own words', updatedBy: id }),
    expect: { status: 200, data: (user) => expect(user.bio).toBe('My own words') },
  }),
  apiCase({
    name: 'never lets users change their own roles',
    arrange: () => tenantUser({ roles: ['admin'] }),
    caller: ({ user }) => caller(user),
    operation: ({ id }) => op.update(id, { roles: ['admin', 'member'], updatedBy: id }),
    expect: { status: 403, code: 'FORBIDDEN', db: async ({ id }) => expect((await storedById(id))?.roles).toEqual(['admin']) },
  }),
  apiCase({
    name: 'never lets users move themselves to another tenant',
    arrange: () => tenantUser({ roles: ['admin'] }),
    caller: ({ user }) => caller(user),
    operation: ({ id }) => op.update(id, { tenant_id: OTHER_TENANT, updatedBy: id }),
    expect: { status: 403, code: 'FORBIDDEN', db: async ({ id }) => expect((await storedById(id))?.tenant_id).toBe(TENANT) },
  }),
  apiCase({
    name: "refuses editing another user's profile without users:update",
    arrange: () => tenantUser(),
    caller: () => member,
    operation: ({ id }) => op.update(id, { bio: 'x', updatedBy: member.id }),
    expect: { status: 403, code: 'FORBIDDEN' },
  }),
  apiCase({
    name: 'changes roles for a holder of users:assign-roles',
    arrange: () => tenantUser({ roles: [] }),
    caller: () => admin,
    operation: ({ id }) => op.update(id, { roles: ['member', auditorRoleId], updatedBy: admin.id }),
    expect: { status: 200, data: (user) => expect(user.roles).toEqual(['member', auditorRoleId]) },
  }),
  apiCase({
    name: 'refuses a role escalation on update with 403',
    arrange: () => tenantUser({ roles: ['member'] }),
    caller: () => manager,
    operation: ({ id }) => op.update(id, { roles: ['admin'], updatedBy: manager.id }),
    expect: { status: 403, code: 'FORBIDDEN', db: async ({ id }) => expect((await storedById(id))?.roles).toEqual(['member']) },
  }),
  refusedDemotion("refuses taking some of an administrator's roles away without holding what they hold (403)", ['member']),
  refusedDemotion("refuses taking all of an administrator's roles away without holding what they hold (403)", []),
  apiCase({
    name: 'lets a holder of users:assign-roles change the roles of a user holding less',
    arrange: () => tenantUser({ roles: ['member'] }),
    caller: () => manager,
    operation: ({ id }) => op.update(id, { roles: [], updatedBy: manager.id }),
    expect: { status: 200, data: (user) => expect(user.roles).toEqual([]) },
  }),
  apiCase({
    name: 'lets a holder of users:assign-roles change the roles of a peer holding the same permissions',
    arrange: () => tenantUser({ roles: [managerRoleId] }),
    caller: () => manager,
    operation: ({ id }) => op.update(id, { roles: ['member'], updatedBy: manager.id }),
    expect: { status: 200, data: (user) => expect(user.roles).toEqual(['member']) },
  }),
  refusedTakeover("refuses setting an administrator's password without holding what it holds (403)", 'password', () => manager, () => ({ password: 'Hijack3d!' })),
  refusedTakeover("refuses setting an administrator's email without holding what it holds (403)", 'email', () => manager, () => ({ email: freshEmail('hijack') })),
  apiCase({
    name: "refuses a password and email takeover of a user with a custom role whose permissions the caller lacks, naming both fields",
    arrange: () => tenantUser({ roles: [auditorRoleId] }),
    caller: () => manager,
    operation: ({ id }) => op.update(id, { email: freshEmail('hijack'), password: 'Hijack3d!', updatedBy: manager.id }),
    expect: {
      status: 403,
      code: 'FORBIDDEN',
      db: async ({ id, before }, outcome) => {
        expect(outcome.message).toMatch(/^Changing the password and email of a user .*: 'api-keys:read' \(role auditor\)$/);
        expect(await storedById(id)).toEqual(before);
      },
    },
  }),
  apiCase({
    name: "lets a caller set the password and email of a peer holding the same permissions",
    arrange: () => tenantUser({ roles: [managerRoleId] }),
    caller: () => manager,
    operation: ({ id }) => op.update(id, { email: freshEmail('peer'), password: 'Peer-Passw0rd', updatedBy: manager.id }),
    expect: { status: 200, data: async (user) => expect(await signInStatus(user.email, 'Peer-Passw0rd')).toBe(200) },
  }),
  apiCase({
    name: "lets a caller set the password and email of a user holding less",
    arrange: () => tenantUser({ roles: ['member'] }),
    caller: () => manager,
    operation: ({ id }) => op.update(id, { email: freshEmail('lesser'), password: 'Less3r-Pass', updatedBy: manager.id }),
    expect: { status: 200, data: async (user) => expect(await signInStatus(user.email, 'Less3r-Pass')).toBe(200) },
  }),
  apiCase({
    name: "lets a caller edit other fields of an administrator, and send the administrator's unchanged email",
    arrange: () => tenantUser({ roles: ['admin'] }),
    caller: () => manager,
    operation: ({ user }) => op.update(user.id, { email: user.email, bio: 'Edited by a manager', updatedBy: manager.id }),
    expect: { status: 200, data: (user) => expect(user.bio).toBe('Edited by a manager') },
  }),
  apiCase({
    name: 'lets users without admin rights change their own password and email',
    arrange: () => tenantUser({ roles: [managerRoleId] }),
    caller: ({ user }) => caller(user),
    operation: ({ id }) => op.update(id, { email: freshEmail('own'), password: '0wn-Passw0rd', updatedBy: id }),
    expect: { status: 200, data: async (user) => expect(await signInStatus(user.email, '0wn-Passw0rd')).toBe(200) },
  }),
  apiCase({
    name: "lets a tenant administrator set another administrator's password",
    arrange: () => tenantUser({ roles: ['admin'] }),
    caller: () => admin,
    operation: ({ id }) => op.update(id, { password: 'Adm1n-Reset', updatedBy: admin.id }),
    expect: { status: 200, db: async ({ user }) => expect(await signInStatus(user.email, 'Adm1n-Reset')).toBe(200) },
  }),
  apiCase({
    name: "lets a platform administrator set a tenant administrator's password and email",
    arrange: () => tenantUser({ roles: ['admin'] }),
    caller: () => platform,
    operation: ({ id }) => op.update(id, { email: freshEmail('platform-set'), password: 'Pl4tform-Set', updatedBy: platform.id }),
    expect: { status: 200, data: async (user) => expect(await signInStatus(user.email, 'Pl4tform-Set')).toBe(200) },
  }),
  apiCase({
    name: "answers 404 for another tenant's user",
    arrange: () => tenantUser({ tenantId: OTHER_TENANT }),
    caller: () => admin,
    operation: ({ id }) => op.update(id, { bio: 'x', updatedBy: admin.id }),
    expect: { status: 404, code: 'NOT_FOUND', db: async ({ id, before }) => expect(await storedById(id)).toEqual(before) },
  }),
  apiCase({
    name: 'answers 404 for an unknown id and 400 for a malformed one',
    caller: () => admin,
    operation: () => op.update(unknownId(), { bio: 'x', updatedBy: admin.id }),
    expect: { status: 404, code: 'NOT_FOUND' },
  }),
  apiCase({
    name: 'refuses a malformed id (400 naming id)',
    caller: () => admin,
    operation: () => op.update('not-an-id', { bio: 'x', updatedBy: admin.id }),
    expect: { status: 400, fieldErrors: [{ field: 'id', rule: 'isMongoId' }] },
  }),
  apiCase({
    name: 'refuses an email taken in the tenant with 409',
    arrange: async () => ({ target: await tenantUser(), taken: await app.createUser({ tenantId: TENANT, email: freshEmail('taken') }) }),
    caller: () => admin,
    operation: ({ target, taken }) => op.update(target.id, { email: taken.email.toUpperCase(), updatedBy: admin.id }),
    expect: { status: 409, code: 'CONFLICT', fieldErrors: [{ field: 'email', rule: 'unique' }] },
  }),
  apiCase({
    name: 'refuses changing createdBy',
    arrange: () => tenantUser(),
    caller: () => admin,
    operation: ({ id }) => op.update(id, { createdBy: admin.id, updatedBy: admin.id }),
    expect: { status: 400, fieldErrors: [{ field: 'createdBy', rule: 'immutable' }] },
  }),
]);

/** A fresh role of TENANT granting users:update and users:read, not users:assign-roles, and a user holding it. */
async function updater(): Promise<Who> {
  counter += 1;
  const role = await RoleModel.create({ name: `updater-${counter}`, tenant_id: TENANT, permissions: ['users:update', 'users:read'] });
  return caller(await app.createUser({ tenantId: TENANT, roles: [String(role._id)] }));
}

/** Tenant ids the rule refuses (1-100 letters, digits, -, _, .). */
const BAD_TENANT_IDS: [string, string][] = [
  ['blank', '  '],
  ['with a NUL character', 'x\u0000y'],
  ['with a trailing space', 'acme '],
  ['with a slash', 'acme/beta'],
  ['of 101 characters', 'a'.repeat(101)],
  // Two tenants differing only in letter case would share emails through the unique index's collation.
  ['with an uppercase letter', 'Acme'],
];

runCases('sending back what a user holds', client, [
  apiCase({
    name: 'lets a user send back their own roles unchanged (no permission needed, nothing changes)',
    arrange: () => tenantUser({ roles: ['member'] }),
    caller: ({ user }) => caller(user),
    operation: ({ id }) => op.update(id, { roles: ['member'], firstName: 'Same-Roles', updatedBy: id }),
    expect: {
      status: 200,
      data: (user) => expect([user.roles, user.firstName]).toEqual([['member'], 'Same-Roles']),
      db: async ({ id }) => expect((await storedById(id))?.roles).toEqual(['member']),
    },
  }),
  apiCase({
    name: 'lets a user send back their whole record (roles, tenant_id, createdBy as stored)',
    arrange: async () => {
      const made = await tenantUser({ roles: ['member'] });
      return { ...made, stored: await storedById(made.id) };
    },
    caller: ({ user }) => caller(user),
    operation: ({ id, stored }) =>
      op.update(id, { id, email: stored!.email, firstName: stored!.firstName, roles: stored!.roles, tenant_id: stored!.tenant_id, updatedBy: id }),
    expect: { status: 200, data: (user, { id }) => expect([user.id, user.roles, user.tenant_id]).toEqual([id, ['member'], TENANT]) },
  }),
  apiCase({
    name: 'still refuses a user changing their own roles (403, nothing changes)',
    arrange: () => tenantUser({ roles: ['member'] }),
    caller: ({ user }) => caller(user),
    operation: ({ id }) => op.update(id, { roles: ['member', 'admin'], updatedBy: id }),
    expect: { status: 403, code: 'FORBIDDEN', db: async ({ id, before }) => expect(await storedById(id)).toEqual(before) },
  }),
  apiCase({
    name: "lets a holder of users:update without users:assign-roles send another user's roles back unchanged, in any order",
    arrange: async () => ({ target: await tenantUser({ roles: ['member', auditorRoleId] }), who: await updater() }),
    caller: ({ who }) => who,
    operation: ({ target, who }) => op.update(target.id, { roles: [auditorRoleId, 'member'], lastName: 'Kept', updatedBy: who.id }),
    expect: {
      status: 200,
      db: async ({ target }) => expect((await storedById(target.id))?.roles).toEqual(['member', auditorRoleId]),
    },
  }),
  apiCase({
    name: "lets a holder of users:update without users:assign-roles send another user's empty roles back",
    arrange: async () => ({ target: await tenantUser({ roles: [] }), who: await updater() }),
    caller: ({ who }) => who,
    operation: ({ target, who }) => op.update(target.id, { roles: [], updatedBy: who.id }),
    expect: { status: 200, data: (user) => expect(user.roles).toEqual([]) },
  }),
  apiCase({
    name: "still refuses a holder of users:update without users:assign-roles changing another user's roles (403, nothing changes)",
    arrange: async () => ({ target: await tenantUser({ roles: [] }), who: await updater() }),
    caller: ({ who }) => who,
    operation: ({ target, who }) => op.update(target.id, { roles: ['member'], updatedBy: who.id }),
    expect: { status: 403, code: 'FORBIDDEN', db: async ({ target }) => expect(await storedById(target.id)).toEqual(target.before) },
  }),
]);

runCases('ids in any letter case', client, [
  apiCase({
    name: 'takes your own id in uppercase as createdBy and updatedBy, and stores it in lowercase',
    arrange: () => validUser(admin, { createdBy: admin.id.toUpperCase(), updatedBy: admin.id.toUpperCase() }),
    caller: () => admin,
    operation: (body) => op.create(body),
    expect: {
      status: 201,
      data: (user) => expect([user.createdBy, user.updatedBy]).toEqual([admin.id, admin.id]),
      db: async (body) => expect((await users().findOne({ email: body.email }))?.createdBy).toBe(admin.id),
    },
  }),
  apiCase({
    name: 'treats your own id in uppercase in the path as your own record (no users:update needed)',
    arrange: () => tenantUser({ roles: [] }),
    caller: ({ user }) => caller(user),
    operation: ({ id }) => op.update(id.toUpperCase(), { firstName: 'Upper', updatedBy: id.toUpperCase() }),
    expect: { status: 200, data: (user, { id }) => expect([user.firstName, user.updatedBy]).toEqual(['Upper', id]) },
  }),
  apiCase({
    name: 'refuses changing your own roles through your id in uppercase (403, nothing changes)',
    arrange: () => tenantUser({ roles: ['admin'] }),
    caller: ({ user }) => caller(user),
    operation: ({ id }) => op.update(id.toUpperCase(), { roles: [], updatedBy: id }),
    expect: { status: 403, code: 'FORBIDDEN', db: async ({ id, before }) => expect(await storedById(id)).toEqual(before) },
  }),
  apiCase({
    name: "still refuses someone else's id as createdBy (403, nothing stored)",
    arrange: () => validUser(admin, { createdBy: member.id.toUpperCase() }),
    caller: () => admin,
    operation: (body) => op.create(body),
    expect: { status: 403, code: 'FORBIDDEN', db: async (body) => expect(await countByEmail(body.email)).toBe(0) },
  }),
]);

runCases('tenant ids', client, [
  ...BAD_TENANT_IDS.map(([what, tenantId]) =>
    apiCase({
      name: `refuses a user in a tenant_id ${what} (400 naming tenant_id and the rule, nothing stored)`,
      arrange: () => validUser(platform, { tenant_id: tenantId }),
      caller: () => platform,
      operation: (body) => op.create(body),
      expect: {
        status: 400,
        code: 'BAD_USER_INPUT',
        fieldErrors: [{ field: 'tenant_id', rule: 'matches', message: 'tenant_id must be 1 to 100 lowercase letters (a-z), digits, -, _ or . (no spaces)' }],
        db: async (body) => expect(await countByEmail(body.email)).toBe(0),
      },
    }),
  ),
  ...BAD_TENANT_IDS.map(([what, tenantId]) =>
    apiCase({
      name: `refuses a role in a tenant_id ${what} (400 naming tenant_id, nothing stored)`,
      arrange: () => ({ name: `bad-tenant-${(counter += 1)}` }),
      caller: () => platform,
      operation: ({ name }) => op.createRole({ name, permissions: ['menus:read'], tenant_id: tenantId }),
      expect: {
        status: 400,
        code: 'BAD_USER_INPUT',
        fieldErrors: [{ field: 'tenant_id', rule: 'matches' }],
        db: async ({ name }) => expect(await app.db.collection('roles').countDocuments({ name })).toBe(0),
      },
    }),
  ),
  apiCase({
    name: 'takes a tenant_id of lowercase letters, digits, -, _ and .',
    arrange: () => validUser(platform, { tenant_id: 'acme_2.eu-west' }),
    caller: () => platform,
    operation: (body) => op.create(body),
    expect: { status: 201, data: (user) => expect(user.tenant_id).toBe('acme_2.eu-west') },
  }),
]);

// ---------------------------------------------------------------- read

runCases('reading users', client, [
  apiCase({
    name: 'lets users read their own record without users:read',
    arrange: () => tenantUser({ roles: [] }),
    caller: ({ user }) => caller(user),
    operation: ({ id }) => op.get(id),
    expect: { status: 200, data: (user, { id }) => expect(user.id).toBe(id) },
  }),
  apiCase({
    name: "refuses reading another user's record without users:read",
    arrange: async () => ({ reader: await tenantUser({ roles: [] }), target: await tenantUser() }),
    caller: ({ reader }) => caller(reader.user),
    operation: ({ target }) => op.get(target.id),
    expect: { status: 403, code: 'FORBIDDEN' },
  }),
  apiCase({
    name: "answers 404 for another tenant's user",
    arrange: () => tenantUser({ tenantId: OTHER_TENANT }),
    caller: () => member,
    operation: ({ id }) => op.get(id),
    expect: { status: 404, code: 'NOT_FOUND' },
  }),
  apiCase({
    name: 'reads a user stored without createdAt/updatedAt (imported): both are the time of its id',
    arrange: unstampedUser,
    caller: () => admin,
    operation: ({ id }) => op.get(id),
    expect: { status: 200, data: (user, { id }) => expect(user).toMatchObject(idTimes(id)) },
  }),
  apiCase({
    name: 'lists a page holding a user stored without createdAt/updatedAt, with the time of its id',
    arrange: unstampedUser,
    caller: () => admin,
    operation: ({ user }) => op.list({ email: user.email }),
    expect: { status: 200, data: (page, { id }) => expect(page.items).toMatchObject([{ id, ...idTimes(id) }]) },
  }),
  apiCase({
    name: 'lists only the caller tenant',
    caller: () => listReader,
    operation: () => op.list({ limit: 100 }),
    expect: {
      status: 200,
      data: (page) => {
        expect(page.items.length).toBe(5);
        expect(new Set(page.items.map((user: { tenant_id: string }) => user.tenant_id))).toEqual(new Set([LIST_TENANT]));
      },
    },
  }),
  apiCase({
    name: 'filters by exact email, in any letter case',
    caller: () => listReader,
    operation: () => op.list({ email: 'GRACE.hopper@lists.example.test' }),
    expect: { status: 200, data: (page) => expect(page.items.map((u: { firstName: string }) => u.firstName)).toEqual(['Grace']) },
  }),
  apiCase({
    name: 'filters by role',
    caller: () => listReader,
    operation: () => op.list({ role: 'admin' }),
    expect: { status: 200, data: (page) => expect(page.items.map((u: { firstName: string }) => u.firstName)).toEqual(['Alan']) },
  }),
  apiCase({
    name: 'searches email and names',
    caller: () => listReader,
    operation: () => op.list({ search: 'LISK' }),
    expect: { status: 200, data: (page) => expect(page.items.map((u: { firstName: string }) => u.firstName)).toEqual(['Barbara']) },
  }),
  apiCase({
    name: 'filters by creation time',
    caller: () => listReader,
    operation: () => op.list({ createdAfter: '2000-01-01T00:00:00.000Z', createdBefore: '2001-01-01T00:00:00.000Z' }),
    expect: { status: 200, data: (page) => expect(page.items).toEqual([]) },
  }),
  apiCase({
    name: 'filters a user stored without createdAt by the time of its id, as it answers it (bounds exclusive, beside a search)',
    arrange: unstampedUser,
    caller: () => admin,
    operation: ({ id, user }) => op.list({ search: user.email, ...around(new ObjectId(id).getTimestamp(), 1) }),
    expect: { status: 200, data: (page, { id }) => expect(page.items.map((u: { id: string }) => u.id)).toEqual([id]) },
  }),
  ...(['createdAfter', 'createdBefore'] as const).map((bound) =>
    apiCase({
      name: `leaves out a user stored without createdAt when the time of its id is ${bound} (exclusive)`,
      arrange: unstampedUser,
      caller: () => admin,
      operation: ({ id, user }) => op.list({ search: user.email, [bound]: new ObjectId(id).getTimestamp().toISOString() }),
      expect: { status: 200, data: (page) => expect(page).toEqual({ items: [], nextCursor: null }) },
    }),
  ),
  apiCase({
    name: 'filters a stamped user by its createdAt',
    arrange: () => tenantUser(),
    caller: () => admin,
    operation: ({ before, user }) => op.list({ search: user.email, ...around(before!.createdAt as Date, 1) }),
    expect: { status: 200, data: (page, { id }) => expect(page.items.map((u: { id: string }) => u.id)).toEqual([id]) },
  }),
  ...(['search', 'email', 'role'] as const).map((filter) =>
    apiCase({
      name: `refuses an empty ${filter} filter, as sent (400 naming ${filter}; REST's ?${filter}= is no missing filter)`,
      caller: () => listReader,
      operation: () => op.list({ [filter]: '' }),
      expect: { status: 400, fieldErrors: [{ field: filter, rule: expect.any(String) }] },
    }),
  ),
  apiCase({
    name: 'refuses a malformed email filter (400 naming email)',
    caller: () => listReader,
    operation: () => op.list({ email: 'nope' }),
    expect: { status: 400, fieldErrors: [{ field: 'email', rule: 'isEmail' }] },
  }),
  apiCase({
    name: 'refuses a caller without a tenant who is no platform administrator (never widened to every tenant)',
    caller: () => tenantless,
    operation: () => op.list(),
    expect: { status: 403, code: 'FORBIDDEN' },
  }),
]);

describe('paging through users', () => {
  it.each(['rest', 'graphql'] as Surface[])('visits every user of the tenant exactly once, two at a time, over %s', async (surface) => {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page += 1) {
      const outcome = await callOperation(client(), surface, op.list({ limit: 2, ...(cursor ? { cursor } : {}) }), listReader);
      const data = outcome.data as { items: { id: string }[]; nextCursor: string | null };
      seen.push(...data.items.map((user) => user.id));
      if (!data.nextCursor) break;
      cursor = data.nextCursor;
    }
    expect([seen.length, new Set(seen).size]).toEqual([5, 5]);
  });
});

// ---------------------------------------------------------------- roles

runCases('roles', client, [
  apiCase({
    name: 'lists the built-in roles first, then the tenant custom roles',
    caller: () => admin,
    operation: () => op.roles({ limit: 100 }),
    expect: {
      status: 200,
      data: (page) => {
        expect(page.items.slice(0, 2).map((r: { id: string; builtIn: boolean }) => [r.id, r.builtIn])).toEqual([
          ['admin', true],
          ['member', true],
        ]);
        const custom = page.items.slice(2);
        expect(custom.every((r: { tenant_id: string; builtIn: boolean }) => r.tenant_id === TENANT && !r.builtIn)).toBe(true);
        expect(custom.map((r: { name: string }) => r.name)).toEqual(expect.arrayContaining(['user-manager', 'clerk', 'auditor']));
      },
    },
  }),
  apiCase({
    name: 'creates a custom role (201) with catalogue permissions the caller holds',
    arrange: () => ({ name: `reader-${freshEmail('r').slice(0, 12)}`, permissions: ['menus:read', 'users:read'] }),
    caller: () => admin,
    operation: (body) => op.createRole(body),
    expect: { status: 201, data: (role, body) => expect(role).toMatchObject({ ...body, tenant_id: TENANT, builtIn: false }) },
  }),
  apiCase({
    name: 'refuses a permission outside the catalogue (400 naming permissions)',
    arrange: () => ({ name: `bad-${counter++}`, permissions: ['menus:read', 'everything:*'] }),
    caller: () => admin,
    operation: (body) => op.createRole(body),
    expect: { status: 400, fieldErrors: [{ field: 'permissions', rule: 'isIn' }] },
  }),
  apiCase({
    name: 'refuses a role granting what its creator lacks with 403',
    arrange: () => ({ name: `escalate-${counter++}`, permissions: ['api-keys:revoke'] }),
    caller: () => manager,
    operation: (body) => op.createRole(body),
    expect: { status: 403, code: 'FORBIDDEN', db: async (body) => expect(await RoleModel.countDocuments({ name: body.name })).toBe(0) },
  }),
  apiCase({
    name: 'refuses a duplicate role name in the tenant with 409',
    arrange: () => ({ name: 'clerk', permissions: ['users:read'] }),
    caller: () => admin,
    operation: (body) => op.createRole(body),
    expect: { status: 409, code: 'CONFLICT', fieldErrors: [{ field: 'name', rule: 'unique' }] },
  }),
  apiCase({
    name: 'refuses the name of a built-in role with 409',
    arrange: () => ({ name: 'admin', permissions: ['users:read'] }),
    caller: () => admin,
    operation: (body) => op.createRole(body),
    expect: { status: 409, code: 'CONFLICT' },
  }),
  apiCase({
    name: 'refuses the name of a built-in role in another letter case with 409',
    arrange: () => ({ name: 'Member', permissions: ['users:read'] }),
    caller: () => admin,
    operation: (body) => op.createRole(body),
    expect: { status: 409, code: 'CONFLICT', db: async () => expect(await RoleModel.countDocuments({ name: /^member$/i })).toBe(0) },
  }),
  ...['admin ', ' member', '  '].map((name) =>
    apiCase({
      name: `refuses a role name starting or ending with a space (${JSON.stringify(name)}): 400, nothing stored`,
      arrange: () => ({ name, permissions: ['users:read'] }),
      caller: () => admin,
      operation: (body) => op.createRole(body),
      expect: {
        status: 400,
        fieldErrors: [{ field: 'name', rule: 'matches' }],
        db: async () => expect(await RoleModel.countDocuments({ name: { $in: ['admin', 'member', name.trim()] } })).toBe(0),
      },
    }),
  ),
  apiCase({
    name: 'refuses a caller without roles:create with 403',
    arrange: () => ({ name: `member-made-${counter++}`, permissions: ['menus:read'] }),
    caller: () => member,
    operation: (body) => op.createRole(body),
    expect: { status: 403, code: 'FORBIDDEN' },
  }),
]);

describe('paging through roles', () => {
  const pagingTenant = 'tenant-role-pages';
  let reader: TestUser;
  let customIds: string[];
  beforeAll(async () => {
    reader = await app.createUser({ tenantId: pagingTenant, roles: ['admin'] });
    const made = [];
    for (const name of ['first', 'second', 'third']) made.push(await RoleModel.create({ name, tenant_id: pagingTenant, permissions: ['menus:read'] }));
    customIds = made.map((role) => String(role._id));
  });

  it.each((['rest', 'graphql'] as Surface[]).flatMap((surface) => [1, 2, 3, 4].map((limit) => [surface, limit] as const)))(
    'walks the built-in roles, then the custom ones, at most `limit` a page (%s, limit %i)',
    async (surface, limit) => {
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 10; page += 1) {
        const outcome = await callOperation(client(), surface, op.roles({ limit, ...(cursor ? { cursor } : {}) }), caller(reader));
        const data = outcome.data as { items: { id: string }[]; nextCursor: string | null };
        expect(data.items.length).toBeLessThanOrEqual(limit);
        seen.push(...data.items.map((role) => role.id));
        if (!data.nextCursor) break;
        cursor = data.nextCursor;
      }
      expect(seen).toEqual(['admin', 'member', ...customIds]);
    },
  );

  it('ends on the built-ins when a tenant has no custom role', async () => {
    const alone = await app.createUser({ tenantId: 'tenant-role-pages-empty', roles: ['admin'] });
    const outcome = await callOperation(client(), 'rest', op.roles({ limit: 2 }), caller(alone));
    expect(outcome.data).toMatchObject({ items: [{ id: 'admin' }, { id: 'member' }], nextCursor: null });
  });
});

// ---------------------------------------------------------------- concurrency, tokens, hashing

describe('one email, many concurrent creates', () => {
  it('lets exactly one of 20 concurrent creates of one email (in varied case, over both surfaces) win', async () => {
    const email = freshEmail('race');
    const attempts = Array.from({ length: 20 }, (_, i) => {
      const body = validUser(admin, { email: i % 2 ? email.toUpperCase() : email });
      return callOperation(client(), i % 3 ? 'rest' : 'graphql', op.create(body), admin);
    });
    const statuses = (await Promise.all(attempts)).map((outcome) => outcome.status);
    expect(statuses.filter((status) => status === 201 || status === 200).length).toBe(1);
    expect(statuses.filter((status) => status === 409).length).toBe(19);
    expect(await users().countDocuments({ tenant_id: TENANT, email: { $in: [email, email.toUpperCase()] } })).toBe(1);
  });
});

describe('a password change', () => {
  it.each(['rest', 'graphql'] as Surface[])('ends every token issued before it; tokens issued after it work (%s)', async (surface) => {
    const target = await tenantUser({ roles: ['member'] });
    const oldToken = target.user.token;
    const changed = await callOperation(client(), surface, op.update(target.id, { password: 'N3w-Passw0rd', updatedBy: admin.id }), admin);
    expect(changed.status).toBe(200);
    const withOld = await callOperation(client(), surface, op.get(target.id), { token: oldToken });
    expect([withOld.status, withOld.code]).toEqual([401, 'UNAUTHENTICATED']);
    const login = await app.rest('POST', '/auth/login', { body: { email: target.user.email, password: 'N3w-Passw0rd', tenantId: TENANT } });
    const withNew = await callOperation(client(), surface, op.get(target.id), { token: login.body.accessToken });
    expect(withNew.status).toBe(200);
    const stored = await storedById(target.id);
    expect(stored?.passwordHash).not.toBe(target.before?.passwordHash);
  });
});

describe('hashing a password', () => {
  it('does not hold up other requests while users are being created', async () => {
    const finished: string[] = [];
    const creates = Array.from({ length: 4 }, () =>
      app.rest('POST', '/access-control/users', { token: admin.token, body: validUser(admin) }).then(() => finished.push('create')),
    );
    const health = app.http('GET', '/healthz').then(() => finished.push('health'));
    await Promise.all([...creates, health]);
    expect(finished[0]).toBe('health');
  });
});

runCases('who am I', client, [
  apiCase({
    name: 'answers the caller own record, whatever its roles',
    arrange: () => tenantUser({ roles: [] }),
    caller: ({ user }) => caller(user),
    operation: () => ({
      rest: { method: 'GET', path: '/auth/me' },
      graphql: { query: `query { me { ${USER_FIELDS} } }` },
    }),
    expect: { status: 200, data: (user, { id, user: made }) => expect([user.id, user.email, user.tenant_id]).toEqual([id, made.email, TENANT]) },
  }),
  apiCase({
    name: 'answers 401 without a credential',
    caller: () => nobody,
    operation: () => ({ rest: { method: 'GET', path: '/auth/me' }, graphql: { query: 'query { me { id } }' } }),
    expect: { status: 401, code: 'UNAUTHENTICATED' },
  }),
]);

describe('operations that hash a password, aliased in one GraphQL request', () => {
  it('refuses two createUser selections and creates nobody', async () => {
    const [a, b] = [validUser(admin), validUser(admin)];
    const field = (alias: string, body: Record<string, unknown>) =>
      `${alias}: createUser(email: "${body.email}", password: "Str0ng-Pass", firstName: "A", createdBy: "${admin.id}", updatedBy: "${admin.id}") { id }`;
    const response = await app.graphql(`mutation { ${field('a', a)} ${field('b', b)} }`, undefined, { token: admin.token });
    expect([response.status, response.body.errors?.[0]?.extensions?.code]).toEqual([400, 'GRAPHQL_VALIDATION_FAILED']);
    expect(await users().countDocuments({ email: { $in: [a.email, b.email] } })).toBe(0);
  });

  it('refuses two updateUser selections', async () => {
    const target = await tenantUser();
    const field = (alias: string) => `${alias}: updateUser(id: "${target.id}", password: "N3w-Passw0rd", updatedBy: "${admin.id}") { id }`;
    const response = await app.graphql(`mutation { ${field('a')} ${field('b')} }`, undefined, { token: admin.token });
    expect([response.status, await storedById(target.id)]).toEqual([400, target.before]);
  });
});

// ---------------------------------------------------------------- audit trail

describe('the audit records users and roles changes leave', () => {
  let seq = 0;
  async function recordOf(requestId: string): Promise<Document[]> {
    return app.db.collection('auditevents').find({ requestId }).toArray();
  }
  async function call(surface: Surface, operation: Operation, who: Caller) {
    seq += 1;
    const requestId = `audit-users-${surface}-${seq}`;
    const outcome = await callOperation(client(), surface, operation, { ...who, headers: { 'x-request-id': requestId } });
    return { outcome, records: await recordOf(requestId) };
  }

  describe.each(['rest', 'graphql'] as Surface[])('over %s', (surface) => {
    it('a create: one success record naming the fields, never a value', async () => {
      const body = validUser(admin, { lastName: 'Lovelace' });
      const { outcome, records } = await call(surface, op.create(body), admin);
      expect(records).toHaveLength(1);
      expect(records[0]).toMatchObject({
        actor: { type: 'user', id: admin.id },
        tenant_id: TENANT,
        action: 'users.create',
        target: { type: 'User', id: (outcome.data as { id: string }).id },
        outcome: 'success',
      });
      expect(records[0].changes).toEqual(expect.arrayContaining(['email', 'password', 'firstName', 'lastName']));
      expect(JSON.stringify(records[0])).not.toMatch(/Str0ng-Pass|argon2|Lovelace/);
    });

    it('a role change: one record listing roles', async () => {
      const target = await tenantUser({ roles: [] });
      const { records } = await call(surface, op.update(target.id, { roles: ['member'], updatedBy: admin.id }), admin);
      expect(records.map((r) => [r.action, r.target.id, r.changes, r.outcome])).toEqual([['users.update', target.id, ['roles', 'updatedBy'], 'success']]);
    });

    it('a refused escalation: one failure record', async () => {
      const target = await tenantUser({ roles: ['member'] });
      const { outcome, records } = await call(surface, op.update(target.id, { roles: ['admin'], updatedBy: manager.id }), manager);
      expect([outcome.status, records.map((r) => [r.action, r.target.id, r.outcome])]).toEqual([403, [['users.update', target.id, 'failure']]]);
    });

    it('a refused removal of an administrator\'s roles: one failure record', async () => {
      const target = await tenantUser({ roles: ['admin'] });
      const { outcome, records } = await call(surface, op.update(target.id, { roles: [], updatedBy: manager.id }), manager);
      expect([outcome.status, records.map((r) => [r.action, r.target.id, r.outcome])]).toEqual([403, [['users.update', target.id, 'failure']]]);
    });

    it('a refused password takeover: one failure record, naming no value', async () => {
      const target = await tenantUser({ roles: ['admin'] });
      const { outcome, records } = await call(surface, op.update(target.id, { password: 'Hijack3d!', updatedBy: manager.id }), manager);
      expect([outcome.status, records.map((r) => [r.action, r.target.id, r.changes, r.outcome])]).toEqual([
        403,
        [['users.update', target.id, ['password', 'updatedBy'], 'failure']],
      ]);
      expect(JSON.stringify(records[0])).not.toContain('Hijack3d!');
    });

    it('a role creation: one record', async () => {
      const { outcome, records } = await call(surface, op.createRole({ name: `audited-${surface}-${seq}`, permissions: ['menus:read'] }), admin);
      expect(records.map((r) => [r.action, r.target.type, r.target.id, r.tenant_id, r.outcome])).toEqual([
        ['roles.create', 'Role', (outcome.data as { id: string }).id, TENANT, 'success'],
      ]);
    });
  });
});
