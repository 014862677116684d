import { setTimeout as sleep } from 'node:timers/promises';
import { ObjectId, type Document } from 'mongodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_MAX_AGE_MS } from '../../src/users/account-cache.js';
import { RoleModel } from '../../src/users/index.js';
import { apiCase, callOperation, runCases, SURFACES, type Operation } from '../support/surfaces.js';
import { admin, app, caller, client, member, nextCount, otherTenantRoleId, outsider, TENANT, useUsersApp, type Who } from './user-fixtures.js';

/**
 * Changing and deleting custom roles (contract "Users: disabling, deleting,
 * sessions", Roles): updateRole / PATCH /access-control/roles/{id} and
 * deleteRole / DELETE /access-control/roles/{id}, and role / GET of one role
 * (whose ETag an If-Match names). Never beyond the caller, never a built-in
 * role, 409 while a user holds a role being deleted; a permission taken from
 * a role stops working for its holders and their API keys.
 */

useUsersApp();

const ROLE_FIELDS = 'id name description permissions tenant_id builtIn updatedAt';

const op = {
  role(id: string): Operation {
    return {
      rest: { method: 'GET', path: `/access-control/roles/${id}` },
      graphql: { query: `query($id: ID!) { role(id: $id) { ${ROLE_FIELDS} } }`, variables: { id } },
    };
  },
  update(id: string, body: Record<string, unknown>): Operation {
    return {
      rest: { method: 'PATCH', path: `/access-control/roles/${id}`, body },
      graphql: {
        query: `mutation($id: ID!, $name: String, $description: String, $permissions: [String!]) {
          updateRole(id: $id, name: $name, description: $description, permissions: $permissions) { ${ROLE_FIELDS} } }`,
        variables: { id, ...body },
      },
    };
  },
  remove(id: string): Operation {
    return {
      rest: { method: 'DELETE', path: `/access-control/roles/${id}` },
      graphql: { query: `mutation($id: ID!) { deleteRole(id: $id) { ${ROLE_FIELDS} } }`, variables: { id } },
    };
  },
};

const roles = () => app.db.collection('roles');
// Without the outbox's evidence (`_events`: the ids of the calls that wrote it), which a refused call's undo also leaves.
const storedRole = (id: string) => roles().findOne({ _id: new ObjectId(id) }, { projection: { _events: 0 } });

/** A fresh custom role of TENANT (or `tenant`), with what was stored. */
async function freshRole(permissions: string[] = ['menus:read'], tenant = TENANT): Promise<{ id: string; name: string; before: Document | null }> {
  const name = `role-${nextCount()}-${Date.now().toString(36)}`;
  const role = await RoleModel.create({ name, tenant_id: tenant, permissions, description: 'as made' });
  const id = String(role._id);
  return { id, name, before: await storedRole(id) };
}
const unchanged = async (fixture: { id: string; before: Document | null }) => expect(await storedRole(fixture.id)).toEqual(fixture.before);

/** A user of TENANT holding the custom role, made directly. */
const holder = (roleId: string) => app.createUser({ tenantId: TENANT, roles: [roleId] });

/** roles:update and roles:delete with menus and role reads: not every permission (no api-keys:read, no users:*). */
let editor: Who;
beforeAll(async () => {
  const role = await RoleModel.create({
    name: 'role-editor',
    tenant_id: TENANT,
    permissions: ['roles:read', 'roles:update', 'roles:delete', 'menus:read', 'menus:write', 'api-keys:create'],
  });
  editor = caller(await app.createUser({ tenantId: TENANT, roles: [String(role._id)] }));
});

// ---------------------------------------------------------------- role

runCases('one role (GET /access-control/roles/{id}, role)', client, [
  apiCase({
    name: 'answers a custom role with its version (updatedAt)',
    arrange: () => freshRole(),
    caller: () => admin,
    operation: ({ id }) => op.role(id),
    expect: { status: 200, data: (role, { id, name }) => expect(role).toMatchObject({ id, name, permissions: ['menus:read'], builtIn: false, updatedAt: expect.any(String) }) },
  }),
  apiCase({
    name: 'answers a built-in role, without a version',
    caller: () => member,
    operation: () => op.role('member'),
    expect: { status: 200, data: (role) => expect(role).toMatchObject({ id: 'member', builtIn: true, tenant_id: TENANT, updatedAt: null }) },
  }),
  apiCase({
    name: "another tenant's role is 404",
    caller: () => admin,
    operation: () => op.role(otherTenantRoleId),
    expect: { status: 404, code: 'NOT_FOUND' },
  }),
  apiCase({
    name: 'a malformed id is 400 naming id',
    caller: () => admin,
    operation: () => op.role('not-a-role'),
    expect: { status: 400, fieldErrors: [{ field: 'id', rule: 'matches' }] },
  }),
]);

// ---------------------------------------------------------------- updateRole

runCases('changing a role (PATCH /access-control/roles/{id}, updateRole)', client, [
  apiCase({
    name: 'renames it, describes it and replaces its permissions',
    arrange: () => freshRole(['menus:read']),
    caller: () => admin,
    operation: ({ id }) => op.update(id, { name: `renamed-${nextCount()}`, description: 'now writes', permissions: ['menus:read', 'menus:write'] }),
    expect: {
      status: 200,
      data: (role, { id }) => expect(role).toMatchObject({ id, description: 'now writes', permissions: ['menus:read', 'menus:write'], tenant_id: TENANT, builtIn: false }),
      db: async ({ id }) => expect(await storedRole(id)).toMatchObject({ description: 'now writes', permissions: ['menus:read', 'menus:write'] }),
    },
  }),
  apiCase({
    name: 'is partial: a field left out stays',
    arrange: () => freshRole(['menus:read']),
    caller: () => admin,
    operation: ({ id }) => op.update(id, { description: 'only this' }),
    expect: { status: 200, db: async ({ id, name }) => expect(await storedRole(id)).toMatchObject({ name, description: 'only this', permissions: ['menus:read'] }) },
  }),
  apiCase({
    name: 'clears the description with null',
    arrange: () => freshRole(),
    caller: () => admin,
    operation: ({ id }) => op.update(id, { description: null }),
    expect: { status: 200, data: (role) => expect(role.description).toBeNull(), db: async ({ id }) => expect(await storedRole(id)).toMatchObject({ description: null }) },
  }),
  apiCase({
    name: 'lets a caller holding what the role grants, before and after, change it',
    arrange: () => freshRole(['menus:read']),
    caller: () => editor,
    operation: ({ id }) => op.update(id, { permissions: ['menus:read', 'menus:write'] }),
    expect: { status: 200, db: async ({ id }) => expect(await storedRole(id)).toMatchObject({ permissions: ['menus:read', 'menus:write'] }) },
  }),
  apiCase({
    name: 'refuses to grant a permission the caller lacks (403), changing nothing',
    arrange: () => freshRole(['menus:read']),
    caller: () => editor,
    operation: ({ id }) => op.update(id, { permissions: ['menus:read', 'users:update'] }),
    expect: { status: 403, code: 'FORBIDDEN', db: unchanged },
  }),
  apiCase({
    name: 'refuses a role whose current permissions the caller lacks (403), changing nothing',
    arrange: () => freshRole(['api-keys:read']),
    caller: () => editor,
    operation: ({ id }) => op.update(id, { description: 'taken over' }),
    expect: {
      status: 403,
      code: 'FORBIDDEN',
      db: async (fixture, outcome) => {
        expect(outcome.message).toContain("'api-keys:read'");
        await unchanged(fixture);
      },
    },
  }),
  ...(['admin', 'member'] as const).map((id) =>
    apiCase({
      name: `refuses the built-in role ${id} (403)`,
      caller: () => admin,
      operation: () => op.update(id, { description: 'mine now' }),
      expect: { status: 403, code: 'FORBIDDEN' },
    }),
  ),
  apiCase({
    name: "another tenant's role is 404, unchanged",
    arrange: async () => ({ id: otherTenantRoleId, before: await storedRole(otherTenantRoleId) }),
    caller: () => admin,
    operation: ({ id }) => op.update(id, { description: 'from elsewhere' }),
    expect: { status: 404, code: 'NOT_FOUND', db: unchanged },
  }),
  apiCase({
    name: 'an unknown role is 404',
    caller: () => admin,
    operation: () => op.update(new ObjectId().toHexString(), { description: 'nobody' }),
    expect: { status: 404, code: 'NOT_FOUND' },
  }),
  apiCase({
    name: 'a malformed id is 400 naming id',
    caller: () => admin,
    operation: () => op.update('12345', { description: 'x' }),
    expect: { status: 400, fieldErrors: [{ field: 'id', rule: 'matches' }] },
  }),
  apiCase({
    name: 'a permission outside the catalogue is 400 naming permissions, changing nothing',
    arrange: () => freshRole(),
    caller: () => admin,
    operation: ({ id }) => op.update(id, { permissions: ['menus:read', 'everything:*'] }),
    expect: { status: 400, fieldErrors: [{ field: 'permissions', rule: 'isIn' }], db: unchanged },
  }),
  apiCase({
    name: 'a null name is 400 (it cannot be cleared), changing nothing',
    arrange: () => freshRole(),
    caller: () => admin,
    operation: ({ id }) => op.update(id, { name: null }),
    expect: { status: 400, fieldErrors: [{ field: 'name', rule: 'isDefined' }], db: unchanged },
  }),
  apiCase({
    name: 'a name with a trailing space is 400 naming name',
    arrange: () => freshRole(),
    caller: () => admin,
    operation: ({ id }) => op.update(id, { name: 'admin ' }),
    expect: { status: 400, fieldErrors: [{ field: 'name', rule: 'matches' }], db: unchanged },
  }),
  apiCase({
    name: 'the name of a built-in role (any letter case) is 409 naming name',
    arrange: () => freshRole(),
    caller: () => admin,
    operation: ({ id }) => op.update(id, { name: 'Admin' }),
    expect: { status: 409, code: 'CONFLICT', fieldErrors: [{ field: 'name', rule: 'unique' }], db: unchanged },
  }),
  apiCase({
    name: "another role's name in the tenant is 409 naming name",
    arrange: () => freshRole(),
    caller: () => admin,
    operation: ({ id }) => op.update(id, { name: 'clerk' }),
    expect: { status: 409, code: 'CONFLICT', fieldErrors: [{ field: 'name', rule: 'unique' }], db: unchanged },
  }),
  apiCase({
    name: 'a caller without roles:update is 403',
    arrange: () => freshRole(),
    caller: () => member,
    operation: ({ id }) => op.update(id, { description: 'x' }),
    expect: { status: 403, code: 'FORBIDDEN', db: unchanged },
  }),
]);

// ---------------------------------------------------------------- deleteRole

runCases('deleting a role (DELETE /access-control/roles/{id}, deleteRole)', client, [
  apiCase({
    name: 'deletes a role nobody holds and answers it as it was',
    arrange: () => freshRole(),
    caller: () => admin,
    operation: ({ id }) => op.remove(id),
    expect: {
      status: 200,
      data: (role, { id, name }) => expect(role).toMatchObject({ id, name, permissions: ['menus:read'], builtIn: false }),
      db: async ({ id }) => expect(await storedRole(id)).toBeNull(),
    },
  }),
  apiCase({
    name: 'refuses a role two users hold (409 naming how many), keeping it',
    arrange: async () => {
      const role = await freshRole();
      await Promise.all([holder(role.id), holder(role.id)]);
      return role;
    },
    caller: () => admin,
    operation: ({ id }) => op.remove(id),
    expect: {
      status: 409,
      code: 'CONFLICT',
      fieldErrors: [{ field: 'id', rule: 'heldByUsers' }],
      db: async (fixture, outcome) => {
        expect(outcome.message).toBe('The role is held by 2 users; take it from them first');
        await unchanged(fixture);
      },
    },
  }),
  apiCase({
    name: 'does not count a deleted user as a holder',
    arrange: async () => {
      const role = await freshRole();
      const gone = await holder(role.id);
      await app.db.collection('users').updateOne({ _id: new ObjectId(gone.id) }, { $set: { status: 'deleted', deletedAt: new Date() } });
      return role;
    },
    caller: () => admin,
    operation: ({ id }) => op.remove(id),
    expect: { status: 200, db: async ({ id }) => expect(await storedRole(id)).toBeNull() },
  }),
  ...(['admin', 'member'] as const).map((id) =>
    apiCase({
      name: `refuses the built-in role ${id} (403)`,
      caller: () => admin,
      operation: () => op.remove(id),
      expect: { status: 403, code: 'FORBIDDEN' },
    }),
  ),
  apiCase({
    name: 'refuses a role granting what the caller lacks (403), keeping it',
    arrange: () => freshRole(['api-keys:read']),
    caller: () => editor,
    operation: ({ id }) => op.remove(id),
    expect: { status: 403, code: 'FORBIDDEN', db: unchanged },
  }),
  apiCase({
    name: "another tenant's role is 404, kept",
    arrange: async () => ({ id: otherTenantRoleId, before: await storedRole(otherTenantRoleId) }),
    caller: () => admin,
    operation: ({ id }) => op.remove(id),
    expect: { status: 404, code: 'NOT_FOUND', db: unchanged },
  }),
  apiCase({
    name: 'a malformed id is 400 naming id',
    caller: () => admin,
    operation: () => op.remove('ADMIN'),
    expect: { status: 400, fieldErrors: [{ field: 'id', rule: 'matches' }] },
  }),
  apiCase({
    name: 'a caller without roles:delete is 403, keeping it',
    arrange: () => freshRole(),
    caller: () => member,
    operation: ({ id }) => op.remove(id),
    expect: { status: 403, code: 'FORBIDDEN', db: unchanged },
  }),
]);

describe('a user given the role while it is being deleted', () => {
  it('puts the role back and answers 409 when the assignment is stored before the delete finishes', async () => {
    const role = await freshRole();
    // The assignment lands between the delete's first count and its delete: the second count sees it.
    const users = app.db.collection('users');
    const late = await app.createUser({ tenantId: TENANT, roles: [] });
    const original = RoleModel.findOneAndDelete.bind(RoleModel);
    const spy = ((...args: Parameters<typeof RoleModel.findOneAndDelete>) => {
      void users.updateOne({ _id: new ObjectId(late.id) }, { $set: { roles: [role.id] } });
      return original(...args);
    }) as typeof RoleModel.findOneAndDelete;
    RoleModel.findOneAndDelete = spy;
    try {
      const answer = await app.rest('DELETE', `/access-control/roles/${role.id}`, { token: admin.token });
      expect(answer.status, JSON.stringify(answer.body)).toBe(409);
      expect(answer.body.detail).toBe('The role is held by 1 user; take it from them first');
    } finally {
      RoleModel.findOneAndDelete = original;
    }
    expect(await storedRole(role.id)).toEqual(role.before);
  });
});

describe('a role changed between the check and the write', () => {
  it('is 409 naming permissions, and the change made meanwhile stands', async () => {
    const role = await freshRole(['menus:read']);
    // Another request widens the role right after this one read it (and was checked against menus:read alone).
    const original = RoleModel.findOne.bind(RoleModel);
    const widen = () => roles().updateOne({ _id: new ObjectId(role.id) }, { $set: { permissions: ['menus:read', 'users:update'] } });
    const spy = ((...args: Parameters<typeof RoleModel.findOne>) => {
      RoleModel.findOne = original;
      return { lean: () => original(...args).lean().then(async (read) => (await widen(), read)) };
    }) as unknown as typeof RoleModel.findOne;
    RoleModel.findOne = spy;
    try {
      const answer = await app.rest('PATCH', `/access-control/roles/${role.id}`, { token: editor.token, body: { description: 'stale check' } });
      expect(answer.status, JSON.stringify(answer.body)).toBe(409);
      expect(answer.body.errors).toEqual([expect.objectContaining({ field: 'permissions', rule: 'concurrentChange' })]);
    } finally {
      RoleModel.findOne = original;
    }
    expect(await storedRole(role.id)).toMatchObject({ description: 'as made', permissions: ['menus:read', 'users:update'] });
  });
});

// ---------------------------------------------------------------- the role cache

describe('a permission taken from a role', () => {
  const readMenus = (token: string) => app.rest('GET', '/restaurant/meal-menus', { token });
  const readMenusWithKey = (secret: string) => app.rest('GET', '/restaurant/meal-menus', { headers: { 'X-API-Key': secret } });

  /** A role granting menus:read, a user holding it, and an API key of theirs with that scope: both read menus. */
  async function readerWithKey() {
    const role = await freshRole(['menus:read', 'api-keys:create']);
    const user = await holder(role.id);
    const made = await app.rest('POST', '/api-keys', { token: user.token, body: { name: `reader-${nextCount()}`, scopes: ['menus:read'] } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const secret = made.body.key as string;
    expect([(await readMenus(user.token)).status, (await readMenusWithKey(secret)).status]).toEqual([200, 200]);
    return { role, user, secret };
  }

  it.each(SURFACES)('stops working for its holders and their keys at once on the instance that changed it (%s)', async (surface) => {
    const { role, user, secret } = await readerWithKey();
    const outcome = await callOperation(client(), surface, op.update(role.id, { permissions: ['api-keys:create'] }), admin);
    expect(outcome.status, JSON.stringify(outcome.raw.body)).toBe(200);
    expect((await readMenus(user.token)).status).toBe(403);
    expect((await readMenusWithKey(secret)).status).toBe(403);
  });

  it('stops working within a second when another instance changed it (a write this instance did not make)', async () => {
    const { role, user, secret } = await readerWithKey();
    // Another instance's write reaches this one only through the database: the collection, bypassing this process's models.
    await roles().updateOne({ _id: new ObjectId(role.id) }, { $set: { permissions: ['api-keys:create'], updatedAt: new Date() } });
    await sleep(ACCOUNT_MAX_AGE_MS + 50);
    expect((await readMenus(user.token)).status).toBe(403);
    expect((await readMenusWithKey(secret)).status).toBe(403);
  });

  it('a deleted role grants nothing: its id left on a user opens nothing', async () => {
    const role = await freshRole(['menus:read']);
    const user = await app.createUser({ tenantId: TENANT, roles: [role.id] });
    expect((await readMenus(user.token)).status).toBe(200);
    await roles().deleteOne({ _id: new ObjectId(role.id) });
    await sleep(ACCOUNT_MAX_AGE_MS + 50);
    expect((await readMenus(user.token)).status).toBe(403);
  });
});

describe('If-Match on a role', () => {
  it('a stale ETag is 412 and changes nothing; the current one goes through', async () => {
    const role = await freshRole();
    const read = await app.rest('GET', `/access-control/roles/${role.id}`, { token: admin.token });
    const etag = read.headers.get('etag')!;
    expect(etag).toMatch(/^"\d+-[0-9a-f]{16}"$/);
    await sleep(5);
    await app.rest('PATCH', `/access-control/roles/${role.id}`, { token: admin.token, body: { description: 'moved on' } });
    const after = await storedRole(role.id);
    const stale = await app.rest('DELETE', `/access-control/roles/${role.id}`, { token: admin.token, headers: { 'If-Match': etag } });
    expect(stale.status).toBe(412);
    expect(await storedRole(role.id)).toEqual(after);
  });

  it("another tenant's administrator gets 404 for a role of this tenant", async () => {
    const role = await freshRole();
    const answer = await app.rest('PATCH', `/access-control/roles/${role.id}`, { token: outsider.token, body: { description: 'x' } });
    expect(answer.status).toBe(404);
    await unchanged(role);
  });
});

describe('the audit trail', () => {
  it.each(SURFACES)('records roles.update and roles.delete with the role and the names of what changed (%s)', async (surface) => {
    const role = await freshRole();
    expect((await callOperation(client(), surface, op.update(role.id, { description: 'audited' }), admin)).status).toBe(200);
    expect((await callOperation(client(), surface, op.remove(role.id), admin)).status).toBe(200);
    const records = await app.db.collection('auditevents').find({ 'target.id': role.id }).sort({ _id: 1 }).toArray();
    expect(records).toEqual([
      expect.objectContaining({ action: 'roles.update', outcome: 'success', actor: { type: 'user', id: admin.id }, target: { type: 'Role', id: role.id }, tenant_id: TENANT, changes: ['description'] }),
      expect.objectContaining({ action: 'roles.delete', outcome: 'success', target: { type: 'Role', id: role.id }, tenant_id: TENANT }),
    ]);
  });
});
