import { ObjectId } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserModel, UserRecords } from '../../src/users/index.js';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

/**
 * The undo of a disable that left no platform administrator
 * (UserRecords.restoreStatus) reports whether it matched: when the record
 * moved meanwhile it changed nothing, and the caller must not be told
 * "nothing changed".
 */

let app: TestApp;
let admin: TestUser;

beforeAll(async () => {
  app = await startTestApp();
  admin = await app.createUser({ tenantId: null, roles: ['admin'] });
});
afterAll(() => app?.close());

/** A user disabled through the API: the record before and after, as the service sees them. */
async function disabledUser() {
  const user = await app.createUser({ tenantId: 'tenant-restore', roles: [] });
  const before = await UserModel.findById(user.id).lean();
  const answer = await app.rest('PATCH', `/access-control/users/${user.id}/disable`, { token: admin.token, body: {} });
  expect(answer.status).toBe(200);
  const changed = await UserModel.findById(user.id);
  return { id: user.id, before: before!, changed: changed! };
}

describe('restoreStatus', () => {
  it('undoes the disable and answers true while the record is as the disable left it', async () => {
    const { id, before, changed } = await disabledUser();
    expect(await new UserRecords().restoreStatus(before, changed)).toBe(true);
    expect(await app.db.collection('users').findOne({ _id: new ObjectId(id) })).toMatchObject({ status: 'active', disabledAt: null, tokenVersion: before.tokenVersion ?? 0 });
  });

  it('answers false and changes nothing when the record moved meanwhile', async () => {
    const { id, before, changed } = await disabledUser();
    await app.db.collection('users').updateOne({ _id: new ObjectId(id) }, { $inc: { tokenVersion: 1 } });
    const moved = await app.db.collection('users').findOne({ _id: new ObjectId(id) });
    expect(await new UserRecords().restoreStatus(before, changed)).toBe(false);
    expect(await app.db.collection('users').findOne({ _id: new ObjectId(id) })).toEqual(moved);
  });
});
