import { expect } from 'vitest';
import { apiCase, runCases, type Operation } from '../support/surfaces.js';
import { app, client, op, refreshOverRest, signIn, sidOf, TENANT, useSessionsApp } from '../auth/session-fixtures.js';

/**
 * The two changes recorded outside the `Audited` middleware go through the
 * outbox too (docs/events.md "The event model"), over REST and GraphQL: a
 * reused refresh token's session end is one committed `auth.refresh-reuse`
 * event, a redeemed password ticket one `auth.password-ticket-redeem` naming
 * the ticket's user as actor and target; an unknown ticket none, and no
 * pending event is left behind.
 */

useSessionsApp();

const NEW_PASSWORD = 'N3w-Passw0rd!';
const events = () => app.db.collection('events');
const committedAbout = (type: string, id: string) => events().find({ type, 'target.id': id, state: 'committed' }).toArray();
const redeem = (ticket: string): Operation => ({
  rest: { method: 'POST', path: '/auth/password-ticket', body: { ticket, newPassword: NEW_PASSWORD } },
  graphql: {
    query: 'mutation($ticket: String!, $newPassword: String!) { redeemPasswordTicket(ticket: $ticket, newPassword: $newPassword) { email } }',
    variables: { ticket, newPassword: NEW_PASSWORD },
  },
});
const noPendingLeft = async () => expect(await events().countDocuments({ state: 'pending' })).toBe(0);

runCases('changes recorded outside the middleware are events', client, [
  apiCase({
    name: 'a reused refresh token ends its session: one auth.refresh-reuse event, by the session\'s user',
    arrange: async () => {
      const user = await app.createUser({ tenantId: TENANT, roles: ['member'] });
      const signedIn = await signIn(user);
      expect((await refreshOverRest(signedIn.refreshToken)).status).toBe(200);
      return { spent: signedIn.refreshToken, sid: sidOf(signedIn.accessToken), userId: user.id };
    },
    caller: () => ({}),
    operation: ({ spent }) => op.refresh(spent),
    expect: {
      status: 401,
      db: async ({ sid, userId }) => {
        const found = await committedAbout('auth.refresh-reuse', sid);
        expect(found).toHaveLength(1);
        expect(found[0]).toMatchObject({ tenant_id: TENANT, actor: { type: 'user', id: userId }, target: { type: 'Session', id: sid } });
        await noPendingLeft();
      },
    },
  }),
  apiCase({
    name: 'a redeemed password ticket: one auth.password-ticket-redeem event naming the ticket\'s user',
    arrange: async () => {
      const admin = await app.createUser({ tenantId: TENANT });
      const user = await app.createUser({ tenantId: TENANT, roles: ['member'] });
      const made = await app.rest('POST', `/access-control/users/${user.id}/password-ticket`, { token: admin.token, body: {} });
      expect(made.status).toBe(201);
      return { ticket: made.body.ticket as string, userId: user.id };
    },
    caller: () => ({}),
    operation: ({ ticket }) => redeem(ticket),
    expect: {
      status: 200,
      db: async ({ userId }) => {
        const found = await committedAbout('auth.password-ticket-redeem', userId);
        expect(found).toHaveLength(1);
        expect(found[0]).toMatchObject({ tenant_id: TENANT, actor: { type: 'user', id: userId }, data: { changes: ['password'] } });
        await noPendingLeft();
      },
    },
  }),
  apiCase({
    name: 'an unknown ticket changes nothing: no event, none pending',
    caller: () => ({}),
    operation: () => redeem('pt_unknown-ticket-of-nobody-at-all-000000000000'),
    expect: {
      status: 401,
      db: async () => {
        expect(await events().countDocuments({ type: 'auth.password-ticket-redeem', 'target.id': null })).toBe(0);
        await noPendingLeft();
      },
    },
  }),
]);
