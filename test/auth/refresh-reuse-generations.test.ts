import { expect } from 'vitest';
import { apiCase, runCases } from '../support/surfaces.js';
import { auditOf, client, op, refreshOverRest, signIn, storedSession, TENANT, tokenWorks, useSessionsApp, app } from './session-fixtures.js';

/**
 * Reuse detection by generation (src/auth/refresh-token.ts): a spent refresh
 * token is recognised however many refreshes ago it was spent, and a token
 * forged for an older generation of a known session id (the sid is public)
 * ends nothing.
 */

useSessionsApp();

/** More refreshes than the 100 spent hashes a session used to keep. */
const MANY_REFRESHES = 105;

async function spentLongAgo() {
  const user = await app.createUser({ tenantId: TENANT, roles: ['member'] });
  const signedIn = await signIn(user);
  let latest = signedIn.refreshToken;
  for (let i = 0; i < MANY_REFRESHES; i += 1) {
    const next = await refreshOverRest(latest);
    expect(next.status).toBe(200);
    latest = next.body.refreshToken as string;
  }
  return { ...signedIn, latest };
}

/** The first token's shape with the tag and secret replaced: a forgery naming generation 0 of the session. */
const forgedFirstGeneration = (refreshToken: string) => refreshToken.replace(/_0_[A-Za-z0-9_-]{65}$/, `_0_${'C'.repeat(65)}`);

runCases('reuse detection never ages out, and cannot be forged', client, [
  apiCase({
    name: 'a token spent more than 100 refreshes ago, presented again, ends the session (401) and is audited as auth.refresh-reuse',
    arrange: spentLongAgo,
    caller: () => ({}),
    operation: ({ refreshToken }) => op.refresh(refreshToken),
    expect: {
      status: 401,
      code: 'UNAUTHENTICATED',
      data: (_data, _fixture, outcome) => expect(outcome.message).toBe('Refresh token already used: the session is ended'),
      db: async (fixture) => {
        expect(await storedSession(fixture.sid)).toMatchObject({ endedAt: expect.any(Date), endReason: 'refresh-reuse' });
        expect((await refreshOverRest(fixture.latest)).status).toBe(401);
        expect(await tokenWorks(fixture.accessToken)).toBe(false);
        expect((await auditOf('auth.refresh-reuse')).filter((event) => event.target.id === fixture.sid)).toHaveLength(1);
      },
    },
  }),
  apiCase({
    name: 'a forged token naming an older generation of a real session is only an invalid token: the session lives on',
    arrange: async () => {
      const user = await app.createUser({ tenantId: TENANT, roles: ['member'] });
      const signedIn = await signIn(user);
      const next = await refreshOverRest(signedIn.refreshToken);
      expect(next.status).toBe(200);
      return { ...signedIn, forged: forgedFirstGeneration(signedIn.refreshToken), latest: next.body.refreshToken as string };
    },
    caller: () => ({}),
    operation: ({ forged }) => op.refresh(forged),
    expect: {
      status: 401,
      code: 'UNAUTHENTICATED',
      data: (_data, _fixture, outcome) => expect(outcome.message).toBe('Invalid refresh token'),
      db: async (fixture) => {
        expect(fixture.forged).not.toBe(fixture.refreshToken);
        expect((await storedSession(fixture.sid))!.endedAt).toBeNull();
        expect((await auditOf('auth.refresh-reuse')).filter((event) => event.target.id === fixture.sid)).toHaveLength(0);
        expect((await refreshOverRest(fixture.latest)).status).toBe(200);
      },
    },
  }),
]);
