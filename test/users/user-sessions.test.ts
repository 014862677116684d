import { ObjectId } from 'mongodb';
import { beforeAll, expect } from 'vitest';
import { apiCase, runCases } from '../support/surfaces.js';
import type { TestUser } from '../support/test-app.js';
import { app, auditOf, client, makeKey, op, OTHER_TENANT, refreshOverRest, signIn, TENANT, tokenWorks, useSessionsApp } from '../auth/session-fixtures.js';

/**
 * An administrator's view of a user's sessions: userSessions
 * (GET /access-control/users/{id}/sessions) and endUserSessions
 * (DELETE /access-control/users/{id}/sessions), with users:update, confined
 * to the tenant. Ending every session raises the user's token version.
 */

useSessionsApp();

let admin: TestUser;
let member: TestUser;
let outsider: TestUser;
let platform: TestUser;

beforeAll(async () => {
  [admin, member, outsider, platform] = await Promise.all([
    app.createUser({ tenantId: TENANT }),
    app.createUser({ tenantId: TENANT, roles: ['member'] }),
    app.createUser({ tenantId: OTHER_TENANT }),
    app.createUser({ tenantId: null }),
  ]);
});

/** A member of TENANT signed in twice. */
async function twiceSignedIn() {
  const user = await app.createUser({ tenantId: TENANT, roles: ['member'] });
  const first = await signIn(user);
  const second = await signIn(user);
  return { user, first, second, version: (await app.db.collection('users').findOne({ _id: new ObjectId(user.id) }))!.tokenVersion ?? 0 };
}

runCases("a user's sessions (GET /access-control/users/{id}/sessions, userSessions)", client, [
  apiCase({
    name: 'lists them to an administrator of the tenant, most recently used first; current marks none of the caller\'s',
    arrange: twiceSignedIn,
    caller: () => ({ token: admin.token }),
    operation: ({ user }) => op.userSessions(user.id),
    expect: {
      status: 200,
      data: (list, { first, second }) => {
        expect(list.map((session: { id: string }) => session.id)).toEqual([second.sid, first.sid]);
        expect(list.every((session: { current: boolean }) => session.current === false)).toBe(true);
      },
    },
  }),
  apiCase({
    name: 'lists them to a platform administrator',
    arrange: twiceSignedIn,
    caller: () => ({ token: platform.token }),
    operation: ({ user }) => op.userSessions(user.id),
    expect: { status: 200, data: (list) => expect(list).toHaveLength(2) },
  }),
  apiCase({
    name: 'lists them to an API key with users:update',
    arrange: async () => ({ ...(await twiceSignedIn()), key: await makeKey(admin, ['users:update']) }),
    caller: ({ key }) => ({ token: key }),
    operation: ({ user }) => op.userSessions(user.id),
    expect: { status: 200, data: (list) => expect(list).toHaveLength(2) },
  }),
  apiCase({
    name: 'refuses a member (no users:update) with 403',
    arrange: twiceSignedIn,
    caller: () => ({ token: member.token }),
    operation: ({ user }) => op.userSessions(user.id),
    expect: { status: 403, code: 'FORBIDDEN' },
  }),
  apiCase({
    name: "answers 404 for another tenant's user",
    arrange: twiceSignedIn,
    caller: () => ({ token: outsider.token }),
    operation: ({ user }) => op.userSessions(user.id),
    expect: { status: 404, code: 'NOT_FOUND' },
  }),
  apiCase({
    name: 'refuses a malformed id with 400',
    caller: () => ({ token: admin.token }),
    operation: () => op.userSessions('nope'),
    expect: { status: 400, code: 'BAD_USER_INPUT', fieldErrors: [{ field: 'id', rule: 'isMongoId' }] },
  }),
]);

runCases("ending every session of a user (DELETE /access-control/users/{id}/sessions, endUserSessions)", client, [
  apiCase({
    name: 'ends them all: answers how many were live, their access and refresh tokens are refused, the token version is raised; audited',
    arrange: twiceSignedIn,
    caller: () => ({ token: admin.token }),
    operation: ({ user }) => op.endUserSessions(user.id),
    expect: {
      status: 200,
      data: (answer, { user }) => expect(answer).toEqual({ userId: user.id, ended: 2 }),
      db: async ({ user, first, second, version }) => {
        expect((await app.db.collection('users').findOne({ _id: new ObjectId(user.id) }))!.tokenVersion).toBe(version + 1);
        for (const session of [first, second]) {
          expect(await tokenWorks(session.accessToken)).toBe(false);
          expect((await refreshOverRest(session.refreshToken)).status).toBe(401);
        }
        expect(await tokenWorks(user.token)).toBe(false);
        const listed = await app.rest('GET', `/access-control/users/${user.id}/sessions`, { token: admin.token });
        expect(listed.body).toEqual([]);
        const records = (await auditOf('auth.session-end')).filter((event) => event.target.id === user.id);
        expect(records).toEqual([expect.objectContaining({ target: { type: 'User', id: user.id }, outcome: 'success', actor: { type: 'user', id: admin.id } })]);
        // A new sign-in works again.
        expect(await tokenWorks((await signIn(user)).accessToken)).toBe(true);
      },
    },
  }),
  apiCase({
    name: 'answers 0 for a user without sessions',
    arrange: () => app.createUser({ tenantId: TENANT, roles: ['member'] }),
    caller: () => ({ token: admin.token }),
    operation: (user) => op.endUserSessions(user.id),
    expect: { status: 200, data: (answer) => expect(answer.ended).toBe(0) },
  }),
  apiCase({
    name: 'refuses a member with 403, ending nothing',
    arrange: twiceSignedIn,
    caller: () => ({ token: member.token }),
    operation: ({ user }) => op.endUserSessions(user.id),
    expect: { status: 403, code: 'FORBIDDEN', db: async ({ first }) => expect(await tokenWorks(first.accessToken)).toBe(true) },
  }),
  apiCase({
    name: "answers 404 for another tenant's user, ending nothing",
    arrange: twiceSignedIn,
    caller: () => ({ token: outsider.token }),
    operation: ({ user }) => op.endUserSessions(user.id),
    expect: { status: 404, code: 'NOT_FOUND', db: async ({ first }) => expect(await tokenWorks(first.accessToken)).toBe(true) },
  }),
  apiCase({
    name: 'answers 404 for no such user',
    caller: () => ({ token: admin.token }),
    operation: () => op.endUserSessions(new ObjectId().toHexString()),
    expect: { status: 404, code: 'NOT_FOUND' },
  }),
  apiCase({
    name: 'refuses a malformed id with 400',
    caller: () => ({ token: admin.token }),
    operation: () => op.endUserSessions('nope'),
    expect: { status: 400, code: 'BAD_USER_INPUT', fieldErrors: [{ field: 'id', rule: 'isMongoId' }] },
  }),
]);
