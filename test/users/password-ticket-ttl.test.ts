import { expect } from 'vitest';
import { PASSWORD_TICKET_COLLECTION } from '../../src/users/index.js';
import { apiCase, runCases, type Operation } from '../support/surfaces.js';
import { admin, app, client, tenantUser, useUsersApp } from './user-fixtures.js';

/**
 * createPasswordTicket's `ttlSeconds` follows the project's convention for a
 * numeric argument with a default (`limit`, `gracePeriodSeconds`): leave it
 * out for the default; null is no value and is refused, 400 naming it, no
 * ticket made. Over both surfaces.
 */

useUsersApp();

const create = (id: string, body: Record<string, unknown>): Operation => ({
  rest: { method: 'POST', path: `/access-control/users/${id}/password-ticket`, body },
  graphql: { query: 'mutation($id: ID!, $ttlSeconds: Int) { createPasswordTicket(id: $id, ttlSeconds: $ttlSeconds) { ticket } }', variables: { id, ...body } },
});

runCases('createPasswordTicket with ttlSeconds: null', client, [
  apiCase({
    name: 'is 400 naming ttlSeconds, and no ticket is made',
    arrange: () => tenantUser(),
    caller: () => admin,
    operation: ({ id }) => create(id, { ttlSeconds: null }),
    expect: {
      status: 400,
      // The rule a null gets wherever an argument has no null (`limit: null`, `gracePeriodSeconds: null`).
      fieldErrors: [{ field: 'ttlSeconds', rule: 'required' }],
      db: async ({ id }, outcome) => {
        expect(outcome.fieldErrors.map((error) => error.field)).toEqual(['ttlSeconds']);
        expect(await app.db.collection(PASSWORD_TICKET_COLLECTION).countDocuments({ userId: id })).toBe(0);
      },
    },
  }),
]);
