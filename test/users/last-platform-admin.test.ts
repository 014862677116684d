import { ObjectId } from 'mongodb';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { UserRecords } from '../../src/users/index.js';
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

describe('a refused call whose undo finds its record changed meanwhile', () => {
  afterEach(() => vi.restoreAllMocks());

  it.each(SURFACES)('over %s: 409 saying the change stands, and its event is committed (the change is in the database)', async (surface) => {
    await administrators();
    const users = app.db.collection('users');
    const { countActivePlatformAdmins, restoreStatus } = UserRecords.prototype;
    // Other calls, landing at these moments: one disables `second` before this call's check after its write; one changes `first` before the undo.
    vi.spyOn(UserRecords.prototype, 'countActivePlatformAdmins').mockImplementation(async function (this: UserRecords, except) {
      if (except === undefined) await users.updateOne({ _id: new ObjectId(second.id) }, { $set: { status: 'disabled', disabledAt: new Date() } });
      return countActivePlatformAdmins.call(this, except);
    });
    vi.spyOn(UserRecords.prototype, 'restoreStatus').mockImplementation(async function (this: UserRecords, before, changed) {
      await users.updateOne({ _id: new ObjectId(first.id) }, { $inc: { tokenVersion: 1 } }); // a sign-out everywhere, say
      return restoreStatus.call(this, before, changed);
    });
    const committed = () => app.db.collection('events').countDocuments({ type: 'users.disable', 'target.id': first.id, state: 'committed' });
    const eventsBefore = await committed();
    const outcome = await callOperation(app, surface, disable(first), { token: rootA.token });
    expect(outcome.code).toBe('CONFLICT');
    expect(JSON.stringify(outcome.raw.body)).toContain('could not be undone');
    expect(await stored(first)).toMatchObject({ status: 'disabled' });
    expect(await committed()).toBe(eventsBefore + 1);
    expect(await app.db.collection('events').countDocuments({ state: 'pending', 'target.id': first.id })).toBe(0);
  });
});
