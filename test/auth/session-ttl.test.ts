import { expect } from 'vitest';
import { apiCase, runCases } from '../support/surfaces.js';
import { app, client, op, signIn, storedSession, TENANT, useSessionsApp } from './session-fixtures.js';

/** SESSION_TTL sets how long a session lives unused: from the sign-in, then from each refresh. */

useSessionsApp({ SESSION_TTL: '2h', LOGIN_ACCOUNT_FAILURES: '1000', LOGIN_IP_FAILURES: '1000' });

const TWO_HOURS_MS = 2 * 3600 * 1000;

runCases('a session lives SESSION_TTL unused', client, [
  apiCase({
    name: 'from its sign-in',
    arrange: async () => {
      const user = await app.createUser({ tenantId: TENANT, roles: ['member'] });
      return signIn(user);
    },
    caller: () => ({}),
    operation: ({ refreshToken }) => op.refresh(refreshToken),
    expect: {
      status: 200,
      db: async ({ sid }) => {
        const session = await storedSession(sid);
        // The refresh pushed the end on to its own time + SESSION_TTL.
        expect(session!.expireAt.getTime() - session!.lastUsedAt.getTime()).toBe(TWO_HOURS_MS);
        expect(session!.expireAt.getTime() - session!.createdAt.getTime()).toBeGreaterThanOrEqual(TWO_HOURS_MS);
      },
    },
  }),
  apiCase({
    name: 'and is stored with that end at sign-in',
    arrange: () => app.createUser({ tenantId: TENANT, roles: ['member'] }),
    caller: () => ({}),
    operation: (user) => op.login({ email: user.email, password: user.password, tenantId: TENANT }),
    expect: {
      status: 200,
      data: async (answer) => {
        const sid = JSON.parse(Buffer.from(answer.accessToken.split('.')[1], 'base64url').toString()).sid as string;
        const session = await storedSession(sid);
        expect(session!.expireAt.getTime() - session!.createdAt.getTime()).toBe(TWO_HOURS_MS);
      },
    },
  }),
]);
