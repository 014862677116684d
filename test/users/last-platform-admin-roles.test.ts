import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCase, callOperation, runCases, SURFACES, type Operation } from '../support/surfaces.js';
import type { TestApp, TestUser } from '../support/test-app.js';
import { resetAdministrators, startPlatformAdmins, storedUser, type PlatformAdmins } from './platform-admins-fixture.js';

/**
 * The last active platform administrator is not lost through a roles change
 * either: updateUser taking `admin` away from the last one is 409
 * (`roles`, rule `lastPlatformAdmin`), also when it races a disable of the
 * other administrator (each checks again after its write; the one finding
 * none left undoes its change).
 */

let cast: PlatformAdmins;
let app: TestApp;
let first: TestUser;
let second: TestUser;
let rootA: TestUser;
let rootB: TestUser;

beforeAll(async () => {
  cast = await startPlatformAdmins();
  ({ app, first, second, rootA, rootB } = cast);
});
afterAll(() => app?.close());

const stored = (user: TestUser) => storedUser(app, user);
const administrators = ({ disabled = [] as TestUser[] } = {}) => resetAdministrators(cast, disabled);

/** `by` sends the update (updatedBy names the caller). */
const setRoles = (user: TestUser, roles: string[], by: TestUser): Operation => ({
  rest: { method: 'PATCH', path: `/access-control/users/${user.id}`, body: { roles, updatedBy: by.id } },
  graphql: {
    query: 'mutation($id: ID!, $roles: [String!], $updatedBy: String!) { updateUser(id: $id, roles: $roles, updatedBy: $updatedBy) { id roles } }',
    variables: { id: user.id, roles, updatedBy: by.id },
  },
});
const disable = (user: TestUser): Operation => ({
  rest: { method: 'PATCH', path: `/access-control/users/${user.id}/disable` },
  graphql: { query: 'mutation($id: ID!) { disableUser(id: $id) { id status } }', variables: { id: user.id } },
});

runCases('the last active platform administrator and a roles change', () => app, [
  apiCase({
    name: 'cannot lose the admin role (409 naming roles), changing nothing',
    arrange: () => administrators({ disabled: [second] }),
    caller: () => ({ token: rootA.token }),
    operation: () => setRoles(first, [], rootA),
    expect: {
      status: 409,
      code: 'CONFLICT',
      fieldErrors: [{ field: 'roles', rule: 'lastPlatformAdmin', message: 'The last active platform administrator cannot be removed from the admin role: make another one first' }],
      db: async ({ before }) => expect(await stored(first)).toEqual(before),
    },
  }),
  apiCase({
    name: 'may lose it while another is active',
    arrange: () => administrators(),
    caller: () => ({ token: rootA.token }),
    operation: () => setRoles(first, [], rootA),
    expect: { status: 200, data: (user) => expect(user.roles).toEqual([]) },
  }),
]);

describe('a disable and a removal of the admin role taking away the last two at once', () => {
  it.each(SURFACES)('over %s: at least one administrator stays active with the admin role', async (surface) => {
    for (let round = 0; round < 8; round += 1) {
      await administrators();
      const outcomes = await Promise.all([
        callOperation(app, surface, disable(second), { token: rootA.token }),
        callOperation(app, surface, setRoles(first, [], rootB), { token: rootB.token }),
      ]);
      const statuses = outcomes.map((outcome) => (outcome.code === 'CONFLICT' ? 409 : outcome.status));
      expect(statuses.every((status) => status === 200 || status === 409), JSON.stringify(outcomes.map((o) => o.raw.body))).toBe(true);
      const [a, b] = [await stored(first), await stored(second)];
      const admins = [a, b].filter((user) => user?.status === 'active' && (user.roles as string[]).includes('admin'));
      expect(admins.length, `round ${round}: ${JSON.stringify(statuses)}`).toBeGreaterThanOrEqual(1);
    }
  });
});
