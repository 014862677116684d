import { ObjectId, type Document } from 'mongodb';
import { afterAll, beforeAll, expect } from 'vitest';
import { RoleModel } from '../../src/users/index.js';
import { argumentTypes } from '../support/schema-operations.js';
import { servedSchema, startTestApp, type TestApp, type TestUser } from '../support/test-app.js';
import { apiCase, type Caller, type Operation } from '../support/surfaces.js';

/**
 * Access-control users (description 2.2, 4.3, 4.4, 8; contract "Users"),
 * every rule and refusal over REST and GraphQL. Mutation cases check the
 * stored record afterwards through the native driver (`users` collection).
 * The callers, operations and fixtures the users' API test files share.
 */

export let app: TestApp;
export const client = () => app;

export const TENANT = 'tenant-users';
export const OTHER_TENANT = 'tenant-users-elsewhere';
export const LIST_TENANT = 'tenant-users-lists';
export type Who = Caller & { id: string; user: TestUser };
export let platform: Who; // platform administrator, no tenant
export let admin: Who; // TENANT, built-in admin (`*`)
export let member: Who; // TENANT, built-in member (users:read, no users:create/update)
export let outsider: Who; // OTHER_TENANT admin
export let manager: Who; // TENANT, custom role: users:create/update/read/assign-roles + member's permissions, not `*`
export let clerk: Who; // TENANT, custom role: users:create/read, no users:assign-roles
export let listReader: Who; // LIST_TENANT member
export let tenantless: Who; // no tenant, member role: not a platform administrator
export let auditorRoleId: string; // TENANT custom role with api-keys:read
export let managerRoleId: string; // the manager's custom role
export let otherTenantRoleId: string; // OTHER_TENANT custom role
export const nobody: Caller = {};

// ---------------------------------------------------------------- operations

export const USER_FIELDS = `id email firstName lastName profilePicture mobile identificationType identification address bio
  social { twitter instagram linkedin } defaultColor roles tenant_id createdBy updatedBy createdAt updatedAt`;

/** GraphQL types of the create and update arguments, from the served schema; anything else is declared String (and refused as unknown). */
export const CREATE_TYPES = argumentTypes(await servedSchema(), 'Mutation.createUser');
export const UPDATE_TYPES = argumentTypes(await servedSchema(), 'Mutation.updateUser');

export function mutation(field: string, types: Readonly<Record<string, string>>, variables: Record<string, unknown>): string {
  const names = Object.keys(variables);
  const declared = names.map((name) => `$${name}: ${types[name] ?? 'String'}`).join(', ');
  const passed = names.map((name) => `${name}: $${name}`).join(', ');
  return `mutation${names.length ? `(${declared})` : ''} { ${field}${names.length ? `(${passed})` : ''} { ${USER_FIELDS} } }`;
}

export const op = {
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
/** A number not handed out before in this test file (unique names). */
export function nextCount(): number {
  counter += 1;
  return counter;
}

/** A fresh email, unique per call (and so per surface). */
export function freshEmail(prefix = 'user'): string {
  const counter = nextCount();
  return `${prefix}${counter}.${Date.now().toString(36)}@example.test`;
}

/** A valid create body by `who`, with overrides. */
export function validUser(who: Who, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { email: freshEmail(), password: 'Str0ng-Pass', firstName: 'Ada', createdBy: who.id, updatedBy: who.id, ...overrides };
}

export const EVERY_OPTIONAL = {
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

export const users = () => app.db.collection('users');
export const storedById = (id: string) => users().findOne({ _id: new ObjectId(id) });
export const countByEmail = (email: unknown) => users().countDocuments({ email });

/** A user of TENANT made directly (not through the API), for update cases. */
export async function tenantUser(overrides: { roles?: string[]; tenantId?: string } = {}): Promise<{ id: string; before: Document | null; user: TestUser }> {
  const user = await app.createUser({ tenantId: overrides.tenantId ?? TENANT, roles: overrides.roles ?? ['member'] });
  return { id: user.id, before: await storedById(user.id), user };
}

/** A user of TENANT as an import may store it: without createdAt and updatedAt. */
export async function unstampedUser(): Promise<{ id: string; before: Document | null; user: TestUser }> {
  const made = await tenantUser();
  await users().updateOne({ _id: new ObjectId(made.id) }, { $unset: { createdAt: '', updatedAt: '' } });
  return made;
}

/** What a record without timestamps answers for both: when its id was made. */
export const idTimes = (id: string) => {
  const at = new ObjectId(id).getTimestamp().toISOString();
  return { createdAt: at, updatedAt: at };
};

/** createdAfter/createdBefore `ms` either side of a time. */
export const around = (at: Date, ms: number) => ({
  createdAfter: new Date(at.getTime() - ms).toISOString(),
  createdBefore: new Date(at.getTime() + ms).toISOString(),
});

export function caller(user: TestUser): Who {
  return { token: user.token, id: user.id, user };
}

export const unknownId = () => new ObjectId().toHexString();

/** The status of signing in to TENANT with this email and password. */
export async function signInStatus(email: string, password: string): Promise<number> {
  return (await app.rest('POST', '/auth/login', { body: { email, password, tenantId: TENANT } })).status;
}

/**
 * A refused takeover of a user's sign-in: 403 naming what was refused, the
 * record unchanged, and the user still signs in with the old email and password.
 */
export function refusedTakeover(name: string, field: 'password' | 'email', who: () => Who, fields: (who: Who) => Record<string, unknown>) {
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
export function refusedDemotion(name: string, roles: string[]) {
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

/** Starts the app and makes the callers and the list tenant above (beforeAll), closes it after (afterAll): one app per test file. */
export function useUsersApp(): void {
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
}

/** A refusal of one field and rule that leaves no user with the body's email. */
export function refusedCreate(name: string, overrides: Record<string, unknown>, field: string, rule: string) {
  return apiCase({
    name,
    arrange: () => validUser(admin, overrides),
    caller: () => admin,
    operation: (body) => op.create(body),
    expect: { status: 400, fieldErrors: [{ field, rule }], db: async (body) => expect(await countByEmail(body.email)).toBe(0) },
  });
}


/** A fresh role of TENANT granting users:update and users:read, not users:assign-roles, and a user holding it. */
export async function updater(): Promise<Who> {
  const counter = nextCount();
  const role = await RoleModel.create({ name: `updater-${counter}`, tenant_id: TENANT, permissions: ['users:update', 'users:read'] });
  return caller(await app.createUser({ tenantId: TENANT, roles: [String(role._id)] }));
}

/** Tenant ids the rule refuses (1-100 letters, digits, -, _, .). */
export const BAD_TENANT_IDS: [string, string][] = [
  ['blank', '  '],
  ['with a NUL character', 'x\u0000y'],
  ['with a trailing space', 'acme '],
  ['with a slash', 'acme/beta'],
  ['of 101 characters', 'a'.repeat(101)],
  // Two tenants differing only in letter case would share emails through the unique index's collation.
  ['with an uppercase letter', 'Acme'],
];
