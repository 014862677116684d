import jwt from 'jsonwebtoken';
import { ObjectId } from 'mongodb';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { SessionModel } from '../../src/auth/session.model.js';
import { UserModel } from '../../src/users/index.js';
import { apiCase, runCases } from '../support/surfaces.js';
import type { TestUser } from '../support/test-app.js';
import {
  app,
  asAnotherInstanceWouldSoon,
  auditOf,
  client,
  makeKey,
  op,
  OTHER_TENANT,
  refreshOverRest,
  sessions,
  signIn,
  storedSession,
  TENANT,
  tokenWorks,
  useSessionsApp,
} from './session-fixtures.js';

/**
 * Sign-in sessions in person: login's refresh token and `sid`, refresh with
 * rotation and reuse detection, logout, mySessions, session, endSession.
 */

useSessionsApp();

let admin: TestUser;
let member: TestUser;
let outsider: TestUser;

beforeAll(async () => {
  [admin, member, outsider] = await Promise.all([
    app.createUser({ tenantId: TENANT }),
    app.createUser({ tenantId: TENANT, roles: ['member'] }),
    app.createUser({ tenantId: OTHER_TENANT }),
  ]);
});

const newMember = () => app.createUser({ tenantId: TENANT, roles: ['member'] });
const REFRESH_TOKEN_SHAPE = /^rt_[0-9a-f]{24}_\d+_[A-Za-z0-9_-]{65}$/;

runCases('signing in starts a session (login)', client, [
  apiCase({
    name: 'answers a refresh token; the access token carries the session id; only a hash of the refresh token is stored',
    arrange: newMember,
    caller: () => ({}),
    operation: (user) => op.login({ email: user.email, password: user.password, tenantId: TENANT }),
    expect: {
      status: 200,
      data: async (answer, user) => {
        expect(answer.refreshToken).toMatch(REFRESH_TOKEN_SHAPE);
        const sid = (jwt.decode(answer.accessToken) as jwt.JwtPayload).sid as string;
        expect(answer.refreshToken.startsWith(`rt_${sid}_`)).toBe(true);
        const stored = await storedSession(sid);
        expect(stored).toMatchObject({ user_id: user.id, tenant_id: TENANT, tokenVersion: 0, generation: 0, endedAt: null });
        expect(JSON.stringify(stored)).not.toContain(answer.refreshToken.slice(-43));
        expect(stored!.expireAt.getTime() - stored!.lastUsedAt.getTime()).toBe(30 * 24 * 3600 * 1000);
        expect(await tokenWorks(answer.accessToken)).toBe(true);
      },
    },
  }),
]);

runCases('refreshing an access token (POST /auth/refresh, refreshAccessToken)', client, [
  apiCase({
    name: 'answers a new access token of the same session and a new refresh token; the old one is spent, the session carried on',
    arrange: async () => {
      const signedIn = await signIn(await newMember(), { 'user-agent': 'first-agent' });
      return { ...signedIn, before: await storedSession(signedIn.sid) };
    },
    caller: () => ({}),
    operation: ({ refreshToken }) => op.refresh(refreshToken),
    expect: {
      status: 200,
      data: async (answer, fixture) => {
        expect(answer.refreshToken).toMatch(REFRESH_TOKEN_SHAPE);
        expect(answer.refreshToken).not.toBe(fixture.refreshToken);
        expect((jwt.decode(answer.accessToken) as jwt.JwtPayload).sid).toBe(fixture.sid);
        expect(await tokenWorks(answer.accessToken)).toBe(true);
        const after = await storedSession(fixture.sid);
        expect(after!.generation).toBe(1);
        expect(after!.refreshHash).not.toBe(fixture.before!.refreshHash);
        expect(after!.lastUsedAt.getTime()).toBeGreaterThanOrEqual(fixture.before!.lastUsedAt.getTime());
        expect(after!.expireAt.getTime()).toBeGreaterThanOrEqual(fixture.before!.expireAt.getTime());
        // The next refresh takes the new token.
        expect((await refreshOverRest(answer.refreshToken)).status).toBe(200);
      },
    },
  }),
  apiCase({
    name: 'a spent refresh token presented again ends the whole session (401), its access tokens too, and is audited as auth.refresh-reuse',
    arrange: async () => {
      const signedIn = await signIn(await newMember());
      const next = await refreshOverRest(signedIn.refreshToken);
      expect(next.status).toBe(200);
      return { ...signedIn, nextAccess: next.body.accessToken as string, nextRefresh: next.body.refreshToken as string };
    },
    caller: () => ({}),
    operation: ({ refreshToken }) => op.refresh(refreshToken),
    expect: {
      status: 401,
      code: 'UNAUTHENTICATED',
      data: (_data, _fixture, outcome) => expect(outcome.message).toBe('Refresh token already used: the session is ended'),
      db: async (fixture) => {
        expect(await storedSession(fixture.sid)).toMatchObject({ endedAt: expect.any(Date), endReason: 'refresh-reuse' });
        expect(await tokenWorks(fixture.nextAccess)).toBe(false);
        expect(await tokenWorks(fixture.accessToken)).toBe(false);
        expect((await refreshOverRest(fixture.nextRefresh)).status).toBe(401);
        const [record] = (await auditOf('auth.refresh-reuse')).filter((event) => event.target.id === fixture.sid);
        expect(record).toMatchObject({ actor: { type: 'user' }, target: { type: 'Session', id: fixture.sid }, tenant_id: TENANT, changes: [] });
      },
    },
  }),
  apiCase({
    name: 'refuses a token of no session with 401',
    caller: () => ({}),
    operation: () => op.refresh(`rt_${new ObjectId().toHexString()}_0_${'A'.repeat(65)}`),
    expect: { status: 401, code: 'UNAUTHENTICATED', data: (_d, _f, outcome) => expect(outcome.message).toBe('Invalid refresh token') },
  }),
  apiCase({
    name: "refuses a made-up token naming a real session with 401, and leaves the session alive",
    arrange: () => signIn(member),
    caller: () => ({}),
    operation: ({ sid }) => op.refresh(`rt_${sid}_0_${'B'.repeat(65)}`),
    expect: {
      status: 401,
      code: 'UNAUTHENTICATED',
      db: async ({ sid, refreshToken }) => {
        expect((await storedSession(sid))!.endedAt).toBeNull();
        expect((await refreshOverRest(refreshToken)).status).toBe(200);
      },
    },
  }),
  apiCase({
    name: "refuses a text of no refresh token's shape with 401",
    caller: () => ({}),
    operation: () => op.refresh('not-a-refresh-token'),
    expect: { status: 401, code: 'UNAUTHENTICATED', data: (_d, _f, outcome) => expect(outcome.message).toBe('Invalid refresh token') },
  }),
  apiCase({
    name: 'refuses a text longer than any refresh token (an access token) with 400 naming the field',
    arrange: () => signIn(member),
    caller: () => ({}),
    operation: ({ accessToken }) => op.refresh(accessToken),
    expect: { status: 400, code: 'BAD_USER_INPUT', fieldErrors: [{ field: 'refreshToken', rule: 'maxLength' }] },
  }),
  apiCase({
    name: 'refuses an empty refresh token with 400 naming the field',
    caller: () => ({}),
    operation: () => op.refresh(''),
    expect: { status: 400, code: 'BAD_USER_INPUT', fieldErrors: [{ field: 'refreshToken', rule: 'isNotEmpty' }] },
  }),
  apiCase({
    name: "refuses an expired session's token with 401",
    arrange: async () => {
      const signedIn = await signIn(member);
      await sessions().updateOne({ _id: new ObjectId(signedIn.sid) }, { $set: { expireAt: new Date(Date.now() - 1000) } });
      return signedIn;
    },
    caller: () => ({}),
    operation: ({ refreshToken }) => op.refresh(refreshToken),
    expect: { status: 401, code: 'UNAUTHENTICATED', data: (_d, _f, outcome) => expect(outcome.message).toBe('Session expired') },
  }),
  apiCase({
    name: "refuses an ended session's token with 401",
    arrange: async () => {
      const signedIn = await signIn(member);
      expect((await app.rest('POST', '/auth/logout', { token: signedIn.accessToken })).status).toBe(200);
      return signedIn;
    },
    caller: () => ({}),
    operation: ({ refreshToken }) => op.refresh(refreshToken),
    expect: { status: 401, code: 'UNAUTHENTICATED', data: (_d, _f, outcome) => expect(outcome.message).toBe('Session ended') },
  }),
  apiCase({
    name: 'refuses a session whose user is gone with 401',
    arrange: async () => {
      const user = await newMember();
      const signedIn = await signIn(user);
      await UserModel.deleteOne({ _id: user.id });
      return signedIn;
    },
    caller: () => ({}),
    operation: ({ refreshToken }) => op.refresh(refreshToken),
    expect: { status: 401, code: 'UNAUTHENTICATED', data: (_d, _f, outcome) => expect(outcome.message).toBe('Invalid refresh token: unknown user') },
  }),
  apiCase({
    name: "refuses a session whose user's token version moved on (every session ended) with 401",
    arrange: async () => {
      const user = await newMember();
      const signedIn = await signIn(user);
      await UserModel.updateOne({ _id: user.id }, { $inc: { tokenVersion: 1 } });
      return signedIn;
    },
    caller: () => ({}),
    operation: ({ refreshToken }) => op.refresh(refreshToken),
    expect: { status: 401, code: 'UNAUTHENTICATED' },
  }),
  apiCase({
    name: "an administrator setting the user's password ends the user's sessions: the refresh is 401",
    arrange: async () => {
      const user = await newMember();
      const signedIn = await signIn(user);
      const set = await app.rest('PATCH', `/access-control/users/${user.id}`, { token: admin.token, body: { password: 'N3w-passw0rd!', updatedBy: admin.id } });
      expect(set.status, JSON.stringify(set.body)).toBe(200);
      return signedIn;
    },
    caller: () => ({}),
    operation: ({ refreshToken }) => op.refresh(refreshToken),
    expect: { status: 401, code: 'UNAUTHENTICATED', db: async ({ accessToken }) => expect(await tokenWorks(accessToken)).toBe(false) },
  }),
]);

describe('concurrent refreshes with one token', () => {
  it('give exactly one winner; the others find the token spent, which ends the session', async () => {
    const signedIn = await signIn(await newMember());
    const answers = await Promise.all(Array.from({ length: 12 }, () => refreshOverRest(signedIn.refreshToken)));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 401)).toHaveLength(11);
    expect(await storedSession(signedIn.sid)).toMatchObject({ endedAt: expect.any(Date), endReason: 'refresh-reuse' });
    expect((await auditOf('auth.refresh-reuse')).filter((event) => event.target.id === signedIn.sid)).toHaveLength(1);
  });
});

runCases('signing out (POST /auth/logout, logout)', client, [
  apiCase({
    name: "ends the caller's session: its access token is 401 from the next request, its refresh token 401; audited as auth.logout",
    arrange: () => signIn(member),
    caller: ({ accessToken }) => ({ token: accessToken }),
    operation: () => op.logout(),
    expect: {
      status: 200,
      data: (answer, { sid }) => expect(answer).toMatchObject({ id: sid, endedAt: expect.any(String) }),
      db: async ({ sid, accessToken, refreshToken }) => {
        expect(await storedSession(sid)).toMatchObject({ endedAt: expect.any(Date), endReason: 'logout' });
        expect(await tokenWorks(accessToken)).toBe(false);
        expect((await refreshOverRest(refreshToken)).status).toBe(401);
        const [record] = (await auditOf('auth.logout')).filter((event) => event.target.id === sid);
        expect(record).toMatchObject({ actor: { type: 'user', id: member.id }, outcome: 'success', target: { type: 'Session', id: sid } });
      },
    },
  }),
  apiCase({
    name: 'leaves the user\'s other sessions alone',
    arrange: async () => ({ first: await signIn(member), second: await signIn(member) }),
    caller: ({ first }) => ({ token: first.accessToken }),
    operation: () => op.logout(),
    expect: { status: 200, db: async ({ second }) => expect(await tokenWorks(second.accessToken)).toBe(true) },
  }),
  apiCase({
    name: 'refuses an access token that belongs to no session (minted by the CLI) with 403',
    caller: () => ({ token: member.token }),
    operation: () => op.logout(),
    expect: { status: 403, code: 'FORBIDDEN', data: (_d, _f, outcome) => expect(outcome.message).toMatch(/belongs to no session/) },
  }),
  apiCase({
    name: 'refuses an API key with 403',
    arrange: () => makeKey(admin),
    caller: (key) => ({ token: key }),
    operation: () => op.logout(),
    expect: { status: 403, code: 'FORBIDDEN', data: (_d, _f, outcome) => expect(outcome.message).toMatch(/an API key has none/) },
  }),
  apiCase({
    name: 'refuses an anonymous caller with 401',
    caller: () => ({}),
    operation: () => op.logout(),
    expect: { status: 401, code: 'UNAUTHENTICATED' },
  }),
]);

runCases("one's own sessions (GET /auth/sessions, mySessions; GET /auth/sessions/{id}, session)", client, [
  apiCase({
    name: 'lists the live sessions, most recently used first, marking the current one; ended and other users\' sessions are not listed',
    arrange: async () => {
      const user = await newMember();
      const ended = await signIn(user);
      await app.rest('POST', '/auth/logout', { token: ended.accessToken });
      const older = await signIn(user, { 'user-agent': 'older-agent' });
      const current = await signIn(user, { 'user-agent': 'current-agent' });
      await signIn(member);
      return { older, current, ended };
    },
    caller: ({ current }) => ({ token: current.accessToken }),
    operation: () => op.mySessions(),
    expect: {
      status: 200,
      data: (list, { older, current }) => {
        expect(list.map((session: { id: string }) => session.id)).toEqual([current.sid, older.sid]);
        expect(list[0]).toMatchObject({ current: true, userAgent: 'current-agent', ip: expect.any(String) });
        expect(list[1]).toMatchObject({ current: false, userAgent: 'older-agent' });
        expect(Object.keys(list[0]).sort()).toEqual(['createdAt', 'current', 'expiresAt', 'id', 'ip', 'lastUsedAt', 'updatedAt', 'userAgent']);
      },
    },
  }),
  apiCase({
    name: 'refuses an API key with 403, whatever its scopes',
    arrange: () => makeKey(admin, ['users:read', 'users:update']),
    caller: (key) => ({ token: key }),
    operation: () => op.mySessions(),
    expect: { status: 403, code: 'FORBIDDEN' },
  }),
  apiCase({
    name: 'answers one of them by id',
    arrange: () => signIn(member),
    caller: ({ accessToken }) => ({ token: accessToken }),
    operation: ({ sid }) => op.session(sid),
    expect: { status: 200, data: (session, { sid }) => expect(session).toMatchObject({ id: sid, current: true }) },
  }),
  apiCase({
    name: "answers 404 for another user's session",
    arrange: () => signIn(outsider),
    caller: () => ({ token: member.token }),
    operation: ({ sid }) => op.session(sid),
    expect: { status: 404, code: 'NOT_FOUND' },
  }),
]);

runCases('ending one of one\'s sessions (DELETE /auth/sessions/{id}, endSession)', client, [
  apiCase({
    name: 'ends another session of the caller: its tokens are refused; audited as auth.session-end',
    arrange: async () => ({ mine: await signIn(member), other: await signIn(member) }),
    caller: ({ mine }) => ({ token: mine.accessToken }),
    operation: ({ other }) => op.endSession(other.sid),
    expect: {
      status: 200,
      data: (answer, { other }) => expect(answer).toMatchObject({ id: other.sid, endedAt: expect.any(String) }),
      db: async ({ mine, other }) => {
        expect(await tokenWorks(other.accessToken)).toBe(false);
        expect((await refreshOverRest(other.refreshToken)).status).toBe(401);
        expect(await tokenWorks(mine.accessToken)).toBe(true);
        expect((await auditOf('auth.session-end')).some((event) => event.target.id === other.sid && event.outcome === 'success')).toBe(true);
      },
    },
  }),
  apiCase({
    name: "answers 404 for another user's session, ending nothing",
    arrange: () => signIn(outsider),
    caller: () => ({ token: admin.token }),
    operation: ({ sid }) => op.endSession(sid),
    expect: { status: 404, code: 'NOT_FOUND', db: async ({ sid, accessToken }) => {
      expect((await storedSession(sid))!.endedAt).toBeNull();
      expect(await tokenWorks(accessToken)).toBe(true);
    } },
  }),
  apiCase({
    name: 'answers 404 for a session already ended',
    arrange: async () => {
      const signedIn = await signIn(member);
      await app.rest('POST', '/auth/logout', { token: signedIn.accessToken });
      return signedIn;
    },
    caller: () => ({ token: member.token }),
    operation: ({ sid }) => op.endSession(sid),
    expect: { status: 404, code: 'NOT_FOUND' },
  }),
  apiCase({
    name: 'refuses a malformed id with 400',
    caller: () => ({ token: member.token }),
    operation: () => op.endSession('not-an-id'),
    expect: { status: 400, code: 'BAD_USER_INPUT', fieldErrors: [{ field: 'id', rule: 'isMongoId' }] },
  }),
  apiCase({
    name: 'refuses an API key with 403, ending nothing',
    arrange: async () => ({ key: await makeKey(admin), session: await signIn(admin) }),
    caller: ({ key }) => ({ token: key }),
    operation: ({ session }) => op.endSession(session.sid),
    expect: { status: 403, code: 'FORBIDDEN', db: async ({ session }) => expect(await tokenWorks(session.accessToken)).toBe(true) },
  }),
]);

describe('the cached session state', () => {
  it('reads a live session at most once a second: a session ended behind the instance\'s back is seen once the state is old', async () => {
    const signedIn = await signIn(member);
    expect(await tokenWorks(signedIn.accessToken)).toBe(true);
    // Ended straight in the database, as another instance would: this instance learns it within a second.
    await sessions().updateOne({ _id: new ObjectId(signedIn.sid) }, { $set: { endedAt: new Date() } });
    const deadline = Date.now() + 1500;
    let refusedAt: number | null = null;
    while (Date.now() < deadline && refusedAt === null) {
      if (!(await tokenWorks(signedIn.accessToken))) refusedAt = Date.now();
      else await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(refusedAt).not.toBeNull();
    asAnotherInstanceWouldSoon();
  });

  it('costs no database read on most requests: twenty requests with one session token within a second read its state at most twice', async () => {
    const signedIn = await signIn(member);
    asAnotherInstanceWouldSoon();
    const reads = vi.spyOn(SessionModel, 'findById');
    try {
      const started = Date.now();
      for (let i = 0; i < 20; i += 1) expect(await tokenWorks(signedIn.accessToken)).toBe(true);
      // Twenty requests within a second read the state once; spanning one boundary, twice.
      if (Date.now() - started < 1000) expect(reads.mock.calls.length).toBeLessThanOrEqual(2);
      expect(reads.mock.calls.length).toBeGreaterThanOrEqual(1);
    } finally {
      reads.mockRestore();
    }
  });

  it('a token without sid keeps working as before (no session consulted)', async () => {
    expect(await tokenWorks(member.token)).toBe(true);
  });
});
