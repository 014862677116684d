import { ObjectId, type Document } from 'mongodb';
import { expect } from 'vitest';
import { RoleModel } from '../../src/users/index.js';
import { apiCase, runCases, type Operation } from '../support/surfaces.js';
import {
  admin,
  app,
  caller,
  client,
  member,
  nextCount,
  op,
  outsider,
  storedById,
  TENANT,
  tenantUser,
  unknownId,
  USER_FIELDS,
  useUsersApp,
  type Who,
} from './user-fixtures.js';

/**
 * A user's status (contract "Users: disabling, deleting, sessions"):
 * disableUser / enableUser (users:disable) and deleteUser (users:delete),
 * every rule and refusal over REST and GraphQL, the stored record after.
 * What the credentials of a disabled or deleted user get is
 * test/users/user-status-credentials.test.ts; the last platform
 * administrator, test/users/last-platform-admin.test.ts.
 */

useUsersApp();

const STATUS_FIELDS = `${USER_FIELDS} status disabledAt disabledReason`;

export const statusOp = {
  disable(id: string, reason?: unknown): Operation {
    const body = reason === undefined ? undefined : { reason };
    return {
      rest: { method: 'PATCH', path: `/access-control/users/${id}/disable`, body },
      graphql: { query: `mutation($id: ID!, $reason: String) { disableUser(id: $id, reason: $reason) { ${STATUS_FIELDS} } }`, variables: { id, ...body } },
    };
  },
  enable(id: string): Operation {
    return {
      rest: { method: 'PATCH', path: `/access-control/users/${id}/enable` },
      graphql: { query: `mutation($id: ID!) { enableUser(id: $id) { ${STATUS_FIELDS} } }`, variables: { id } },
    };
  },
  delete(id: string): Operation {
    return {
      rest: { method: 'DELETE', path: `/access-control/users/${id}` },
      graphql: { query: `mutation($id: ID!) { deleteUser(id: $id) { id deletedAt revokedKeys tenant_id } }`, variables: { id } },
    };
  },
};

type Target = { id: string; before: Document | null; user: Who['user'] };

const unchanged = async ({ id, before }: Target) => expect(await storedById(id)).toEqual(before);

async function call(method: string, path: string, token: string, body?: unknown) {
  const answer = await app.rest(method, path, { token, body });
  if (answer.status >= 300) throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/** A member of TENANT disabled by the admin (reason `first`), read back after. */
async function disabledUser(): Promise<Target> {
  const target = await tenantUser();
  await call('PATCH', `/access-control/users/${target.id}/disable`, admin.token!, { reason: 'first' });
  return { ...target, before: await storedById(target.id) };
}

async function deletedUser(): Promise<Target> {
  const target = await tenantUser();
  await call('DELETE', `/access-control/users/${target.id}`, admin.token!);
  return { ...target, before: await storedById(target.id) };
}

/** A user of TENANT holding a fresh role with users:disable and users:delete (and users:read), nothing more. */
async function statusKeeper(): Promise<Who> {
  const role = await RoleModel.create({ name: `status-keeper-${nextCount()}`, tenant_id: TENANT, permissions: ['users:disable', 'users:delete', 'users:read'] });
  return caller(await app.createUser({ tenantId: TENANT, roles: [String(role._id)] }));
}
let keeper: Who | undefined;
const theKeeper = async () => (keeper ??= await statusKeeper());

/** An API key of the admin carrying these scopes. */
async function adminKey(scopes: string[]): Promise<string> {
  return (await call('POST', '/api-keys', admin.token!, { name: `status key ${nextCount()}`, scopes })).key;
}

// ---------------------------------------------------------------- disable

runCases('disabling a user (PATCH /access-control/users/{id}/disable, disableUser)', client, [
  apiCase({
    name: 'sets status disabled, disabledAt and the reason, and raises the token version',
    arrange: () => tenantUser(),
    caller: () => admin,
    operation: ({ id }) => statusOp.disable(id, 'left the company'),
    expect: {
      status: 200,
      data: (user, { id }) => {
        expect(user).toMatchObject({ id, status: 'disabled', disabledReason: 'left the company', updatedBy: admin.id });
        expect(Date.parse(user.disabledAt)).toBeLessThanOrEqual(Date.now());
      },
      db: async ({ id, before }) =>
        expect(await storedById(id)).toMatchObject({
          status: 'disabled',
          disabledAt: expect.any(Date),
          disabledReason: 'left the company',
          tokenVersion: (before!.tokenVersion ?? 0) + 1,
          deletedAt: null,
        }),
    },
  }),
  apiCase({
    name: 'takes no reason too (disabledReason null)',
    arrange: () => tenantUser(),
    caller: () => admin,
    operation: ({ id }) => statusOp.disable(id),
    expect: { status: 200, data: (user) => expect([user.status, user.disabledReason]).toEqual(['disabled', null]) },
  }),
  apiCase({
    name: 'lets an API key carrying users:disable disable a user holding nothing beyond its scopes (as its creator)',
    arrange: async () => ({ ...(await tenantUser({ roles: [] })), key: await adminKey(['users:disable', 'users:read']) }),
    caller: ({ key }) => ({ token: key }),
    operation: ({ id }) => statusOp.disable(id, 'by key'),
    expect: { status: 200, data: (user) => expect([user.status, user.updatedBy]).toEqual(['disabled', admin.id]) },
  }),
  apiCase({
    name: 'answers the same record when disabled again: the first disabledAt and reason stay, the version is not raised again',
    arrange: disabledUser,
    caller: () => admin,
    operation: ({ id }) => statusOp.disable(id, 'second'),
    expect: {
      status: 200,
      data: (user, { before }) => expect([user.status, user.disabledAt, user.disabledReason]).toEqual(['disabled', before!.disabledAt.toISOString(), 'first']),
      db: unchanged,
    },
  }),
  apiCase({
    name: 'refuses a caller without users:disable with 403, changing nothing',
    arrange: () => tenantUser(),
    caller: () => member,
    operation: ({ id }) => statusOp.disable(id, 'no'),
    expect: { status: 403, code: 'FORBIDDEN', db: unchanged },
  }),
  apiCase({
    name: 'refuses disabling oneself with 403, changing nothing',
    arrange: async () => ({ id: admin.id, before: await storedById(admin.id), user: admin.user }),
    caller: () => admin,
    operation: ({ id }) => statusOp.disable(id, 'me'),
    expect: {
      status: 403,
      code: 'FORBIDDEN',
      data: (_data, _fixture, outcome) => expect(outcome.message).toBe('You cannot disable yourself; another administrator can'),
      db: unchanged,
    },
  }),
  apiCase({
    name: 'refuses disabling a user who holds permissions the caller lacks with 403, changing nothing',
    arrange: async () => ({ ...(await tenantUser({ roles: ['admin'] })), by: await theKeeper() }),
    caller: ({ by }) => by,
    operation: ({ id }) => statusOp.disable(id, 'coup'),
    expect: {
      status: 403,
      code: 'FORBIDDEN',
      data: (_data, _fixture, outcome) =>
        expect(outcome.message).toBe(
          "Changing the status of a user who holds permissions you do not hold is not allowed (it would lock them out): '*' (role admin)",
        ),
      db: unchanged,
    },
  }),
  apiCase({
    name: 'lets a holder of users:disable (not *) disable a member',
    arrange: async () => ({ ...(await tenantUser({ roles: [] })), by: await theKeeper() }),
    caller: ({ by }) => by,
    operation: ({ id }) => statusOp.disable(id),
    expect: { status: 200, data: (user) => expect(user.status).toBe('disabled') },
  }),
  apiCase({
    name: "answers 404 for another tenant's user, changing nothing",
    arrange: () => tenantUser(),
    caller: () => outsider,
    operation: ({ id }) => statusOp.disable(id, 'elsewhere'),
    expect: { status: 404, code: 'NOT_FOUND', db: unchanged },
  }),
  apiCase({
    name: 'answers 404 for a deleted user, changing nothing',
    arrange: deletedUser,
    caller: () => admin,
    operation: ({ id }) => statusOp.disable(id, 'late'),
    expect: { status: 404, code: 'NOT_FOUND', db: unchanged },
  }),
  apiCase({
    name: 'answers 404 for an unknown id',
    caller: () => admin,
    operation: () => statusOp.disable(unknownId(), 'nobody'),
    expect: { status: 404, code: 'NOT_FOUND' },
  }),
  apiCase({
    name: 'refuses a malformed id with 400 naming id',
    caller: () => admin,
    operation: () => statusOp.disable('not-an-id', 'x'),
    expect: { status: 400, code: 'BAD_USER_INPUT', fieldErrors: [{ field: 'id', rule: 'isMongoId' }] },
  }),
  apiCase({
    name: 'refuses a reason over 500 characters with 400 naming reason, changing nothing',
    arrange: () => tenantUser(),
    caller: () => admin,
    operation: ({ id }) => statusOp.disable(id, 'x'.repeat(501)),
    expect: { status: 400, code: 'BAD_USER_INPUT', fieldErrors: [{ field: 'reason', rule: 'isLength' }], db: unchanged },
  }),
  apiCase({
    name: 'refuses an empty reason with 400 naming reason, changing nothing',
    arrange: () => tenantUser(),
    caller: () => admin,
    operation: ({ id }) => statusOp.disable(id, ''),
    expect: { status: 400, code: 'BAD_USER_INPUT', fieldErrors: [{ field: 'reason', rule: 'isLength' }], db: unchanged },
  }),
]);

// ---------------------------------------------------------------- enable

runCases('enabling a user (PATCH /access-control/users/{id}/enable, enableUser)', client, [
  apiCase({
    name: 'sets status active and clears disabledAt and the reason; the token version stays raised',
    arrange: disabledUser,
    caller: () => admin,
    operation: ({ id }) => statusOp.enable(id),
    expect: {
      status: 200,
      data: (user) => expect([user.status, user.disabledAt, user.disabledReason, user.updatedBy]).toEqual(['active', null, null, admin.id]),
      db: async ({ id, before }) =>
        expect(await storedById(id)).toMatchObject({ status: 'active', disabledAt: null, disabledReason: null, tokenVersion: before!.tokenVersion }),
    },
  }),
  apiCase({
    name: 'answers an active user unchanged',
    arrange: () => tenantUser(),
    caller: () => admin,
    operation: ({ id }) => statusOp.enable(id),
    expect: { status: 200, data: (user) => expect([user.status, user.disabledAt]).toEqual(['active', null]), db: unchanged },
  }),
  apiCase({
    name: 'refuses enabling a user who holds permissions the caller lacks with 403, changing nothing',
    arrange: async () => {
      const target = await tenantUser({ roles: ['admin'] });
      await call('PATCH', `/access-control/users/${target.id}/disable`, admin.token!, { reason: 'first' });
      return { ...target, before: await storedById(target.id), by: await theKeeper() };
    },
    caller: ({ by }) => by!,
    operation: ({ id }) => statusOp.enable(id),
    expect: {
      status: 403,
      code: 'FORBIDDEN',
      data: (_data, _fixture, outcome) =>
        expect(outcome.message).toBe(
          "Changing the status of a user who holds permissions you do not hold is not allowed (it would let you undo their disabling): '*' (role admin)",
        ),
      db: unchanged,
    },
  }),
  apiCase({
    name: 'lets a holder of users:disable (not *) enable a user holding no more than they do',
    arrange: async () => {
      const target = await tenantUser({ roles: [] });
      await call('PATCH', `/access-control/users/${target.id}/disable`, admin.token!, { reason: 'first' });
      return { ...target, by: await theKeeper() };
    },
    caller: ({ by }) => by!,
    operation: ({ id }) => statusOp.enable(id),
    expect: { status: 200, data: (user) => expect(user.status).toBe('active') },
  }),
  apiCase({
    name: 'refuses a caller without users:disable with 403, changing nothing',
    arrange: disabledUser,
    caller: () => member,
    operation: ({ id }) => statusOp.enable(id),
    expect: { status: 403, code: 'FORBIDDEN', db: unchanged },
  }),
  apiCase({
    name: "answers 404 for another tenant's user, changing nothing",
    arrange: disabledUser,
    caller: () => outsider,
    operation: ({ id }) => statusOp.enable(id),
    expect: { status: 404, code: 'NOT_FOUND', db: unchanged },
  }),
  apiCase({
    name: 'answers 404 for a deleted user: a delete is not undone, changing nothing',
    arrange: deletedUser,
    caller: () => admin,
    operation: ({ id }) => statusOp.enable(id),
    expect: { status: 404, code: 'NOT_FOUND', db: unchanged },
  }),
  apiCase({
    name: 'refuses a malformed id with 400 naming id',
    caller: () => admin,
    operation: () => statusOp.enable('123'),
    expect: { status: 400, code: 'BAD_USER_INPUT', fieldErrors: [{ field: 'id', rule: 'isMongoId' }] },
  }),
]);

// ---------------------------------------------------------------- delete

/** A member of TENANT with an API key, a key that key made, and a key already revoked. */
async function userWithKeys(): Promise<Target & { keyIds: string[] }> {
  const target = await tenantUser();
  const token = target.user.token;
  const first = await call('POST', '/api-keys', token, { name: `own ${nextCount()}`, scopes: ['api-keys:create', 'menus:read'] });
  const child = await call('POST', '/api-keys', first.key, { name: `child ${nextCount()}`, scopes: ['menus:read'] });
  const revoked = await call('POST', '/api-keys', token, { name: `revoked ${nextCount()}`, scopes: ['menus:read'] });
  await call('PATCH', `/api-keys/${revoked._id}/revoke`, token);
  return { ...target, before: await storedById(target.id), keyIds: [first._id, child._id, revoked._id] };
}

const keyRecords = (ids: string[]) => app.db.collection('apikeys').find({ _id: { $in: ids.map((id) => new ObjectId(id)) } }).toArray();

runCases('deleting a user (DELETE /access-control/users/{id}, deleteUser)', client, [
  apiCase({
    name: 'keeps the record with deletedAt and status deleted, raises the token version, revokes its keys and the keys they made: 200 {id, deletedAt, revokedKeys}',
    arrange: userWithKeys,
    caller: () => admin,
    operation: ({ id }) => statusOp.delete(id),
    expect: {
      status: 200,
      data: (answer, { id }) => {
        expect(answer).toEqual({ id, deletedAt: expect.any(String), revokedKeys: 2, tenant_id: TENANT });
        expect(Date.parse(answer.deletedAt)).toBeLessThanOrEqual(Date.now());
      },
      db: async ({ id, before, keyIds }, outcome) => {
        const stored = await storedById(id);
        expect(stored).toMatchObject({ status: 'deleted', email: before!.email, tokenVersion: (before!.tokenVersion ?? 0) + 1, updatedBy: admin.id });
        expect((stored!.deletedAt as Date).toISOString()).toBe((outcome.data as { deletedAt: string }).deletedAt);
        const keys = await keyRecords(keyIds);
        expect(keys.map((key) => key.revokedAt)).toEqual([expect.any(Date), expect.any(Date), expect.any(Date)]);
        expect(keys.filter((key) => key.revokedBy === admin.id)).toHaveLength(2);
      },
    },
  }),
  apiCase({
    name: 'deletes a disabled user too',
    arrange: disabledUser,
    caller: () => admin,
    operation: ({ id }) => statusOp.delete(id),
    expect: { status: 200, data: (answer) => expect(answer.revokedKeys).toBe(0), db: async ({ id }) => expect(await storedById(id)).toMatchObject({ status: 'deleted' }) },
  }),
  apiCase({
    name: 'answers 404 for a second delete, changing nothing',
    arrange: deletedUser,
    caller: () => admin,
    operation: ({ id }) => statusOp.delete(id),
    expect: { status: 404, code: 'NOT_FOUND', db: unchanged },
  }),
  apiCase({
    name: 'refuses a caller without users:delete with 403, changing nothing',
    arrange: () => tenantUser(),
    caller: () => member,
    operation: ({ id }) => statusOp.delete(id),
    expect: { status: 403, code: 'FORBIDDEN', db: unchanged },
  }),
  apiCase({
    name: 'refuses deleting oneself with 403, changing nothing',
    arrange: async () => ({ id: admin.id, before: await storedById(admin.id), user: admin.user }),
    caller: () => admin,
    operation: ({ id }) => statusOp.delete(id),
    expect: {
      status: 403,
      code: 'FORBIDDEN',
      data: (_data, _fixture, outcome) => expect(outcome.message).toBe('You cannot delete yourself; another administrator can'),
      db: unchanged,
    },
  }),
  apiCase({
    name: 'refuses deleting a user who holds permissions the caller lacks with 403, changing nothing',
    arrange: async () => ({ ...(await tenantUser({ roles: ['admin'] })), by: await theKeeper() }),
    caller: ({ by }) => by,
    operation: ({ id }) => statusOp.delete(id),
    expect: { status: 403, code: 'FORBIDDEN', db: unchanged },
  }),
  apiCase({
    name: "answers 404 for another tenant's user, changing nothing",
    arrange: () => tenantUser(),
    caller: () => outsider,
    operation: ({ id }) => statusOp.delete(id),
    expect: { status: 404, code: 'NOT_FOUND', db: unchanged },
  }),
  apiCase({
    name: 'refuses a malformed id with 400 naming id',
    caller: () => admin,
    operation: () => statusOp.delete('zz'),
    expect: { status: 400, code: 'BAD_USER_INPUT', fieldErrors: [{ field: 'id', rule: 'isMongoId' }] },
  }),
]);

// ---------------------------------------------------------------- a deleted user is gone from reads

runCases('a deleted user answers no read', client, [
  apiCase({
    name: 'user(id) is 404',
    arrange: deletedUser,
    caller: () => admin,
    operation: ({ id }) => op.get(id),
    expect: { status: 404, code: 'NOT_FOUND' },
  }),
  apiCase({
    name: 'users filtered by its email finds none',
    arrange: deletedUser,
    caller: () => admin,
    operation: ({ user }) => op.list({ email: user.email }),
    expect: { status: 200, data: (page) => expect(page.items).toEqual([]) },
  }),
  apiCase({
    name: 'users searched by its email finds none',
    arrange: deletedUser,
    caller: () => admin,
    operation: ({ user }) => op.list({ search: user.email.split('@')[0] }),
    expect: { status: 200, data: (page) => expect(page.items).toEqual([]) },
  }),
  apiCase({
    name: 'users filtered by a role it held leave it out',
    arrange: deletedUser,
    caller: () => admin,
    operation: () => op.list({ role: 'member', limit: 100 }),
    expect: { status: 200, data: (page, { id }) => expect(page.items.map((user: { id: string }) => user.id)).not.toContain(id) },
  }),
  apiCase({
    name: 'updateUser is 404, changing nothing',
    arrange: deletedUser,
    caller: () => admin,
    operation: ({ id }) => op.update(id, { firstName: 'Ghost', updatedBy: admin.id }),
    expect: { status: 404, code: 'NOT_FOUND', db: unchanged },
  }),
]);

runCases('a user read answers its status', client, [
  apiCase({
    name: 'a user stored before status existed reads as active',
    arrange: async () => {
      const target = await tenantUser();
      await app.db.collection('users').updateOne({ _id: new ObjectId(target.id) }, { $unset: { status: '', disabledAt: '', disabledReason: '', deletedAt: '' } });
      return target;
    },
    caller: () => admin,
    operation: ({ id }) => ({ ...op.get(id), graphql: { query: `query($id: ID!) { user(id: $id) { ${STATUS_FIELDS} } }`, variables: { id } } }),
    expect: { status: 200, data: (user) => expect([user.status, user.disabledAt, user.disabledReason]).toEqual(['active', null, null]) },
  }),
  apiCase({
    name: 'a disabled user reads as disabled, with its reason',
    arrange: disabledUser,
    caller: () => admin,
    operation: ({ id }) => ({ ...op.get(id), graphql: { query: `query($id: ID!) { user(id: $id) { ${STATUS_FIELDS} } }`, variables: { id } } }),
    expect: { status: 200, data: (user) => expect([user.status, user.disabledReason]).toEqual(['disabled', 'first']) },
  }),
]);
