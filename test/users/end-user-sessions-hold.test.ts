import { beforeAll, expect } from 'vitest';
import { RoleModel } from '../../src/users/index.js';
import { apiCase, runCases } from '../support/surfaces.js';
import type { TestUser } from '../support/test-app.js';
import { app, client, op, signIn, TENANT, tokenWorks, useSessionsApp } from '../auth/session-fixtures.js';

/**
 * endUserSessions follows the hold rule of the other actions on another
 * user's access: a caller lacking a permission the user holds cannot sign
 * them out (403 naming what is not held); one's own sessions always.
 */

useSessionsApp();

let lesser: TestUser;

beforeAll(async () => {
  const role = await RoleModel.create({ name: 'session-ender', tenant_id: TENANT, permissions: ['users:update', 'users:read'] });
  lesser = await app.createUser({ tenantId: TENANT, roles: [String(role._id)] });
});

/** A user of TENANT with these roles, signed in. */
async function signedIn(roles: string[]) {
  const user = await app.createUser({ tenantId: TENANT, roles });
  return { user, session: await signIn(user) };
}

runCases("endUserSessions and the permissions the user holds (DELETE /access-control/users/{id}/sessions)", client, [
  apiCase({
    name: 'refuses a caller lacking a permission the user holds with 403 naming it, ending nothing',
    arrange: () => signedIn(['admin']),
    caller: () => ({ token: lesser.token }),
    operation: ({ user }) => op.endUserSessions(user.id),
    expect: {
      status: 403,
      code: 'FORBIDDEN',
      data: (_data, _fixture, outcome) =>
        expect(outcome.message).toBe(
          "Changing the sessions of a user who holds permissions you do not hold is not allowed (it would sign them out): '*' (role admin)",
        ),
      db: async ({ session, user }) => {
        expect(await tokenWorks(session.accessToken)).toBe(true);
        expect(await tokenWorks(user.token)).toBe(true);
      },
    },
  }),
  apiCase({
    name: 'lets the same caller end the sessions of a user holding no more than they do',
    arrange: () => signedIn([]),
    caller: () => ({ token: lesser.token }),
    operation: ({ user }) => op.endUserSessions(user.id),
    expect: { status: 200, data: (answer) => expect(answer.ended).toBe(1), db: async ({ session }) => expect(await tokenWorks(session.accessToken)).toBe(false) },
  }),
  apiCase({
    name: "lets a user end their own sessions this way, whatever they hold",
    arrange: async () => {
      const role = await RoleModel.create({ name: `self-ender-${Date.now()}-${Math.random()}`, tenant_id: TENANT, permissions: ['users:update'] });
      return signedIn([String(role._id), 'member']);
    },
    caller: ({ session }) => ({ token: session.accessToken }),
    operation: ({ user }) => op.endUserSessions(user.id),
    expect: { status: 200, data: (answer) => expect(answer.ended).toBe(1) },
  }),
]);
