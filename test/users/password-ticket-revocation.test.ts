import { describe, expect } from 'vitest';
import { LOGIN_THROTTLE_COLLECTION } from '../../src/auth/index.js';
import { PASSWORD_TICKET_COLLECTION } from '../../src/users/index.js';
import { apiCase, runCases, type Operation } from '../support/surfaces.js';
import type { TestUser } from '../support/test-app.js';
import { admin, app, caller, client, manager, managerRoleId, nobody, signInStatus, storedById, tenantUser, TENANT, useUsersApp } from './user-fixtures.js';

/**
 * A password ticket is judged again when it is redeemed, not only when it
 * was made: it sets no password once its creator no longer could have made
 * it (gone, disabled, or without a permission its user now holds), nor once
 * the user's tokens were ended since (a password change, a disable: any raise
 * of tokenVersion). Nobody makes a ticket for themselves. Over both surfaces.
 */

useUsersApp();

const NEW_PASSWORD = 'N3w-Passw0rd!';
const INVALID = 'Invalid or expired password ticket';

const redeem = (ticket: string): Operation => ({
  rest: { method: 'POST', path: '/auth/password-ticket', body: { ticket, newPassword: NEW_PASSWORD } },
  graphql: {
    query: 'mutation($ticket: String!, $newPassword: String!) { redeemPasswordTicket(ticket: $ticket, newPassword: $newPassword) { email } }',
    variables: { ticket, newPassword: NEW_PASSWORD },
  },
});

const create = (id: string): Operation => ({
  rest: { method: 'POST', path: `/access-control/users/${id}/password-ticket`, body: {} },
  graphql: { query: 'mutation($id: ID!) { createPasswordTicket(id: $id) { ticket } }', variables: { id } },
});

/** A ticket `by` makes through the API for a fresh member of TENANT. */
async function memberWithTicketBy(by: { token?: string }) {
  // The refusals below count on this IP's sign-in throttle: each case starts it over, so a refusal is a 401, not a 429.
  await app.db.collection(LOGIN_THROTTLE_COLLECTION).deleteMany({});
  const made = await tenantUser();
  const answer = await app.rest('POST', `/access-control/users/${made.id}/password-ticket`, { token: by.token, body: {} });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return { ...made, ticket: answer.body.ticket as string };
}

/** A fresh helpdesk user of TENANT: the manager role (users:update, not `*`). */
const helpdesk = async () => caller(await app.createUser({ tenantId: TENANT, roles: [managerRoleId] }));

async function asAdmin(method: string, path: string, body?: Record<string, unknown>) {
  const answer = await app.rest(method, path, { token: admin.token, body });
  expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBeLessThan(300);
}

/** The refusal every stale ticket gets: the one 401, the password unchanged. */
const refusedTicket = {
  status: 401,
  code: 'UNAUTHENTICATED',
  db: async ({ user }: { user: TestUser }, outcome: { message?: string }) => {
    expect(outcome.message).toBe(INVALID);
    expect(await signInStatus(user.email, NEW_PASSWORD)).toBe(401);
  },
};

runCases('redeeming a ticket its creator could no longer make', client, [
  apiCase({
    name: 'is 401 once its user holds a permission the creator lacks (made admin since)',
    arrange: async () => {
      const made = await memberWithTicketBy(manager);
      await asAdmin('PATCH', `/access-control/users/${made.id}`, { roles: ['admin'], updatedBy: admin.id });
      return made;
    },
    caller: () => nobody,
    operation: ({ ticket }) => redeem(ticket),
    expect: refusedTicket,
  }),
  apiCase({
    name: 'is 401 once its creator no longer holds users:update (made member since)',
    arrange: async () => {
      const creator = await helpdesk();
      const made = await memberWithTicketBy(creator);
      await asAdmin('PATCH', `/access-control/users/${creator.id}`, { roles: ['member'], updatedBy: admin.id });
      return made;
    },
    caller: () => nobody,
    operation: ({ ticket }) => redeem(ticket),
    expect: refusedTicket,
  }),
  apiCase({
    name: 'is 401 once its creator is disabled',
    arrange: async () => {
      const creator = await helpdesk();
      const made = await memberWithTicketBy(creator);
      await asAdmin('PATCH', `/access-control/users/${creator.id}/disable`, { reason: 'left the helpdesk' });
      return made;
    },
    caller: () => nobody,
    operation: ({ ticket }) => redeem(ticket),
    expect: refusedTicket,
  }),
  apiCase({
    name: 'is 401 once its creator is deleted',
    arrange: async () => {
      const creator = await helpdesk();
      const made = await memberWithTicketBy(creator);
      await asAdmin('DELETE', `/access-control/users/${creator.id}`);
      return made;
    },
    caller: () => nobody,
    operation: ({ ticket }) => redeem(ticket),
    expect: refusedTicket,
  }),
  apiCase({
    name: 'works while the creator still may (the same helpdesk user, unchanged)',
    arrange: async () => memberWithTicketBy(await helpdesk()),
    caller: () => nobody,
    operation: ({ ticket }) => redeem(ticket),
    expect: { status: 200, db: async ({ user }) => expect(await signInStatus(user.email, NEW_PASSWORD)).toBe(200) },
  }),
]);

runCases("redeeming a ticket after the user's tokens were ended", client, [
  apiCase({
    name: 'is 401 after an administrator set their password',
    arrange: async () => {
      const made = await memberWithTicketBy(admin);
      await asAdmin('PATCH', `/access-control/users/${made.id}`, { password: 'Adm1n-Set-It!', updatedBy: admin.id });
      return { ...made, user: { ...made.user, password: 'Adm1n-Set-It!' } };
    },
    caller: () => nobody,
    operation: ({ ticket }) => redeem(ticket),
    expect: {
      ...refusedTicket,
      db: async (fixture, outcome) => {
        await refusedTicket.db(fixture, outcome);
        expect(await signInStatus(fixture.user.email, 'Adm1n-Set-It!')).toBe(200);
      },
    },
  }),
  apiCase({
    name: 'is 401 after they were disabled and enabled again',
    arrange: async () => {
      const made = await memberWithTicketBy(admin);
      await asAdmin('PATCH', `/access-control/users/${made.id}/disable`, { reason: 'on leave' });
      await asAdmin('PATCH', `/access-control/users/${made.id}/enable`);
      return made;
    },
    caller: () => nobody,
    operation: ({ ticket }) => redeem(ticket),
    expect: refusedTicket,
  }),
]);

runCases('making a password ticket for yourself', client, [
  apiCase({
    name: 'is 403 in person: your own password is changed with changePassword; no ticket is stored',
    arrange: async () => ({ who: await helpdesk() }),
    caller: ({ who }) => who,
    operation: ({ who }) => create(who.id),
    expect: {
      status: 403,
      code: 'FORBIDDEN',
      db: async ({ who }, outcome) => {
        expect(outcome.message).toMatch(/changePassword \(POST \/auth\/password\)/);
        expect(await app.db.collection(PASSWORD_TICKET_COLLECTION).countDocuments({ userId: who.id })).toBe(0);
        expect(await storedById(who.id)).toBeTruthy();
      },
    },
  }),
]);
