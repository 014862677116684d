import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCase, callOperation, runCases, SURFACES, type Operation } from '../support/surfaces.js';
import type { TestApp, TestUser } from '../support/test-app.js';
import { resetAdministrators, startPlatformAdmins, storedUser, type PlatformAdmins } from './platform-admins-fixture.js';

/**
 * The last active platform administrator (no tenant, the built-in admin
 * role) cannot be disabled or deleted (409, contract "Users: disabling,
 * deleting"), also when two calls take away the last two at once. The
 * callers are platform users holding every permission through a custom role
 * (not the admin role), so they never count as an administrator left.
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

const disable = (user: TestUser): Operation => ({
  rest: { method: 'PATCH', path: `/access-control/users/${user.id}/disable` },
  graphql: { query: 'mutation($id: ID!) { disableUser(id: $id) { id status } }', variables: { id: user.id } },
});
const remove = (user: TestUser): Operation => ({
  rest: { method: 'DELETE', path: `/access-control/users/${user.id}` },
  graphql: { query: 'mutation($id: ID!) { deleteUser(id: $id) { id } }', variables: { id: user.id } },
});

const lastAdmin = (becoming: string) => ({
  status: 409,
  code: 'CONFLICT',
  fieldErrors: [{ field: 'id', rule: 'lastPlatformAdmin', message: `The last active platform administrator cannot be ${becoming}: make another one first` }],
  db: async ({ before }: { before: unknown }) => expect(await stored(first)).toEqual(before),
});

runCases('the last active platform administrator', () => app, [
  apiCase({
    name: 'cannot be disabled (409), changing nothing',
    arrange: () => administrators({ disabled: [second] }),
    caller: () => ({ token: rootA.token }),
    operation: () => disable(first),
    expect: lastAdmin('disabled'),
  }),
  apiCase({
    name: 'cannot be deleted (409), changing nothing',
    arrange: () => administrators({ disabled: [second] }),
    caller: () => ({ token: rootA.token }),
    operation: () => remove(first),
    expect: lastAdmin('deleted'),
  }),
  apiCase({
    name: 'may be disabled while another is active',
    arrange: () => administrators(),
    caller: () => ({ token: rootA.token }),
    operation: () => disable(first),
    expect: { status: 200, data: (user) => expect(user.status).toBe('disabled') },
  }),
]);

describe('two calls taking away the last two platform administrators at once', () => {
  it.each(SURFACES)('over %s: at least one stays active; the refused call changed nothing', async (surface) => {
    for (let round = 0; round < 8; round += 1) {
      await administrators();
      const operations = round % 2 === 0 ? [disable(first), disable(second)] : [remove(first), disable(second)];
      const outcomes = await Promise.all([
        callOperation(app, surface, operations[0], { token: rootA.token }),
        callOperation(app, surface, operations[1], { token: rootB.token }),
      ]);
      const statuses = outcomes.map((outcome) => (outcome.code === 'CONFLICT' ? 409 : outcome.status));
      expect(statuses.every((status) => status === 200 || status === 409), JSON.stringify(outcomes.map((o) => o.raw.body))).toBe(true);
      const [a, b] = [await stored(first), await stored(second)];
      const active = [a, b].filter((user) => user?.status === 'active' && !user.deletedAt);
      expect(active.length, `round ${round}: ${JSON.stringify(statuses)}`).toBeGreaterThanOrEqual(1);
      // A refused call left its administrator as it was: active, with the token version it had.
      statuses.forEach((status, index) => {
        if (status === 409) expect([a, b][index]).toMatchObject({ status: 'active', disabledAt: null, deletedAt: null });
      });
    }
  });
});
