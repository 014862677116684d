import { ObjectId } from 'mongodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { UPDATE_TYPES, mutation } from '../users/user-fixtures.js';
import { apiCase, runCases, type Operation } from '../support/surfaces.js';
import type { TestUser } from '../support/test-app.js';
import { app, auditOf, client, makeKey, op, refreshOverRest, signIn, TENANT, tokenWorks, useSessionsApp } from './session-fixtures.js';

/**
 * Credentials changed in person, with proof: changePassword
 * (POST /auth/password) and updateUser of one's own password or email with
 * currentPassword. A wrong proof is 403 naming currentPassword (rule
 * matches), never 401, and counts in the sign-in throttle.
 */

// Two free failures per email: the throttle case below reaches the wait.
useSessionsApp({ LOGIN_ACCOUNT_FAILURES: '2', LOGIN_IP_FAILURES: '1000' });

let admin: TestUser;

beforeAll(async () => {
  admin = await app.createUser({ tenantId: TENANT });
});

const NEW_PASSWORD = 'N3w-passw0rd!';
const newMember = () => app.createUser({ tenantId: TENANT, roles: ['member'] });
const signInStatus = async (user: TestUser, password: string) =>
  (await app.rest('POST', '/auth/login', { body: { email: user.email, password, tenantId: TENANT } })).status;

/** A member signed in twice: `mine` makes the change, `other` is another device. */
async function twoSessions() {
  const user = await newMember();
  return { user, mine: await signIn(user), other: await signIn(user) };
}

const hashOf = async (id: string) => (await app.db.collection('users').findOne({ _id: new ObjectId(id) }))!.passwordHash as string;

runCases('changing one\'s password (POST /auth/password, changePassword)', client, [
  apiCase({
    name: "sets it, ends every other session, and answers a fresh access token of the caller's session, whose refresh token carries on",
    arrange: twoSessions,
    caller: ({ mine }) => ({ token: mine.accessToken }),
    operation: ({ user }) => op.changePassword({ currentPassword: user.password, newPassword: NEW_PASSWORD }),
    expect: {
      status: 200,
      data: async (answer, { mine }) => {
        expect(answer).toMatchObject({ tokenType: 'Bearer', accessToken: expect.any(String) });
        expect(await tokenWorks(answer.accessToken)).toBe(true);
        expect(await tokenWorks(mine.accessToken)).toBe(false);
        expect((await refreshOverRest(mine.refreshToken)).status).toBe(200);
      },
      db: async ({ user, other }) => {
        expect(await tokenWorks(other.accessToken)).toBe(false);
        expect((await refreshOverRest(other.refreshToken)).status).toBe(401);
        expect(await signInStatus(user, NEW_PASSWORD)).toBe(200);
        expect(await signInStatus(user, user.password)).toBe(401);
        const [record] = (await auditOf('auth.password-change')).filter((event) => event.actor.id === user.id);
        expect(record).toMatchObject({ outcome: 'success', changes: ['currentPassword', 'newPassword'] });
      },
    },
  }),
  apiCase({
    name: 'works with a token of no session (the CLI\'s), answering a token of no session',
    arrange: newMember,
    caller: (user) => ({ token: user.token }),
    operation: (user) => op.changePassword({ currentPassword: user.password, newPassword: NEW_PASSWORD }),
    expect: { status: 200, data: async (answer) => expect(await tokenWorks(answer.accessToken)).toBe(true) },
  }),
  apiCase({
    name: 'refuses a wrong current password with 403 naming currentPassword, changing nothing',
    arrange: async () => {
      const sessions = await twoSessions();
      return { ...sessions, hash: await hashOf(sessions.user.id) };
    },
    caller: ({ mine }) => ({ token: mine.accessToken }),
    operation: () => op.changePassword({ currentPassword: 'Wr0ng-password', newPassword: NEW_PASSWORD }),
    expect: {
      status: 403,
      code: 'FORBIDDEN',
      fieldErrors: [{ field: 'currentPassword', rule: 'matches' }],
      db: async ({ user, hash, mine, other }) => {
        expect(await hashOf(user.id)).toBe(hash);
        expect(await tokenWorks(mine.accessToken)).toBe(true);
        expect(await tokenWorks(other.accessToken)).toBe(true);
      },
    },
  }),
  apiCase({
    name: 'refuses a new password breaking the password rules with 400 naming newPassword, changing nothing',
    arrange: async () => {
      const user = await newMember();
      return { user, hash: await hashOf(user.id) };
    },
    caller: ({ user }) => ({ token: user.token }),
    operation: ({ user }) => op.changePassword({ currentPassword: user.password, newPassword: 'short' }),
    expect: { status: 400, code: 'BAD_USER_INPUT', fieldErrors: [{ field: 'newPassword', rule: 'isAcceptablePassword' }], db: async ({ user, hash }) => expect(await hashOf(user.id)).toBe(hash) },
  }),
  apiCase({
    name: 'refuses an API key with 403 whatever its scopes, changing nothing',
    arrange: async () => ({ key: await makeKey(admin, ['users:update', 'users:read']), hash: await hashOf(admin.id) }),
    caller: ({ key }) => ({ token: key }),
    operation: () => op.changePassword({ currentPassword: admin.password, newPassword: NEW_PASSWORD }),
    expect: { status: 403, code: 'FORBIDDEN', db: async ({ hash }) => expect(await hashOf(admin.id)).toBe(hash) },
  }),
  apiCase({
    name: 'refuses an anonymous caller with 401',
    caller: () => ({}),
    operation: () => op.changePassword({ currentPassword: 'x', newPassword: NEW_PASSWORD }),
    expect: { status: 401, code: 'UNAUTHENTICATED' },
  }),
]);

describe('a wrong current password counts as a failed sign-in', () => {
  it('is throttled like sign-in: past the free failures of the email, the next proof is 429 and checks nothing', async () => {
    const user = await newMember();
    const attempt = () => app.rest('POST', '/auth/password', { token: user.token, body: { currentPassword: 'Wr0ng-password', newPassword: NEW_PASSWORD } });
    expect((await attempt()).status).toBe(403);
    expect((await attempt()).status).toBe(403);
    const throttled = await attempt();
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toMatch(/^\d+$/);
    // Sign-in of the email waits too: the proof and the sign-in share the counter.
    expect(await signInStatus(user, user.password)).toBe(429);
  });
});

function updateOwn(id: string, body: Record<string, unknown>): Operation {
  return {
    rest: { method: 'PATCH', path: `/access-control/users/${id}`, body },
    graphql: { query: mutation('updateUser', UPDATE_TYPES, { id, ...body }), variables: { id, ...body } },
  };
}

runCases("updating one's own password or email needs currentPassword (PATCH /access-control/users/{id}, updateUser)", client, [
  apiCase({
    name: 'changes the password with the current one',
    arrange: newMember,
    caller: (user) => ({ token: user.token }),
    operation: (user) => updateOwn(user.id, { password: NEW_PASSWORD, currentPassword: user.password, updatedBy: user.id }),
    expect: { status: 200, db: async (user) => expect(await signInStatus(user, NEW_PASSWORD)).toBe(200) },
  }),
  apiCase({
    name: 'refuses a password change without currentPassword with 400 naming it (rule required), changing nothing',
    arrange: async () => {
      const user = await newMember();
      return { user, hash: await hashOf(user.id) };
    },
    caller: ({ user }) => ({ token: user.token }),
    operation: ({ user }) => updateOwn(user.id, { password: NEW_PASSWORD, updatedBy: user.id }),
    expect: { status: 400, code: 'BAD_USER_INPUT', fieldErrors: [{ field: 'currentPassword', rule: 'required' }], db: async ({ user, hash }) => expect(await hashOf(user.id)).toBe(hash) },
  }),
  apiCase({
    name: 'refuses an email change with a wrong currentPassword with 403 (rule matches), changing nothing',
    arrange: newMember,
    caller: (user) => ({ token: user.token }),
    operation: (user) => updateOwn(user.id, { email: `changed.${new ObjectId().toHexString()}@example.test`, currentPassword: 'Wr0ng-password', updatedBy: user.id }),
    expect: {
      status: 403,
      code: 'FORBIDDEN',
      fieldErrors: [{ field: 'currentPassword', rule: 'matches' }],
      db: async (user) => expect((await app.db.collection('users').findOne({ _id: new ObjectId(user.id) }))!.email).toBe(user.email),
    },
  }),
  apiCase({
    name: 'needs no currentPassword for the rest of the profile',
    arrange: newMember,
    caller: (user) => ({ token: user.token }),
    operation: (user) => updateOwn(user.id, { bio: 'Still me', updatedBy: user.id }),
    expect: { status: 200, data: (user) => expect(user.bio).toBe('Still me') },
  }),
  apiCase({
    name: "needs none from an administrator setting another user's password",
    arrange: newMember,
    caller: () => ({ token: admin.token }),
    operation: (user) => updateOwn(user.id, { password: NEW_PASSWORD, updatedBy: admin.id }),
    expect: { status: 200 },
  }),
  apiCase({
    name: 'stays 403 through an API key, even with the right currentPassword',
    arrange: async () => ({ key: await makeKey(admin, ['users:update', 'users:read']) }),
    caller: ({ key }) => ({ token: key }),
    operation: () => updateOwn(admin.id, { password: NEW_PASSWORD, currentPassword: admin.password, updatedBy: admin.id }),
    expect: { status: 403, code: 'FORBIDDEN', fieldErrors: [{ field: 'password', rule: 'inPersonOnly' }] },
  }),
]);
