import { ObjectId } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { apiCase, callOperation, runCases, type Surface } from '../support/surfaces.js';
import {
  admin,
  around,
  caller,
  client,
  idTimes,
  LIST_TENANT,
  listReader,
  member,
  nobody,
  op,
  OTHER_TENANT,
  TENANT,
  tenantless,
  tenantUser,
  unstampedUser,
  USER_FIELDS,
  useUsersApp,
} from './user-fixtures.js';

/** Reading users (`user`, `users` and their pages, `me`) over both surfaces. */

useUsersApp();

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
