import { ObjectId } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshotDatabase, unexpectedChanges } from '../support/hostile.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * The check behind "a refused request changes nothing" (test/support/hostile.ts):
 * it sees any insert, update or removal in any collection, and lets through
 * only what a refusal writes by design.
 */

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
  await app.createUser({ tenantId: 't-snapshot' });
  await app.db.collection('apikeys').insertOne({ _id: new ObjectId(), name: 'k', usageCount: 0, lastUsedAt: null });
});
afterAll(() => app?.close());

async function changesOf(write: () => Promise<unknown>): Promise<string[]> {
  const before = await snapshotDatabase(app.db);
  await write();
  return unexpectedChanges(before, await snapshotDatabase(app.db));
}

describe('the database snapshot of the hostile-input proofs', () => {
  it('sees an insert, in any collection', async () => {
    expect(await changesOf(() => app.db.collection('anything').insertOne({ x: 1 }))).not.toEqual([]);
  });

  it('sees an update of one field', async () => {
    expect(await changesOf(() => app.db.collection('users').updateOne({}, { $set: { bio: 'changed' } }))).not.toEqual([]);
  });

  it('sees a removal', async () => {
    expect(await changesOf(() => app.db.collection('anything').deleteOne({}))).not.toEqual([]);
  });

  it('sees a success record of the audit trail', async () => {
    expect(await changesOf(() => app.db.collection('auditevents').insertOne({ action: 'x', outcome: 'success' }))).not.toEqual([]);
  });

  it('lets through a failure record of the audit trail (a refusal that reached its resolver writes one)', async () => {
    expect(await changesOf(() => app.db.collection('auditevents').insertOne({ action: 'x', outcome: 'failure' }))).toEqual([]);
  });

  it("lets through an API key's use count and usage log (every accepted key use writes them)", async () => {
    const counted = async () => {
      await app.db.collection('apikeys').updateOne({ name: 'k' }, { $inc: { usageCount: 1 }, $set: { lastUsedAt: new Date() } });
      await app.db.collection('apikeyusages').insertOne({ at: new Date() });
    };
    expect(await changesOf(counted)).toEqual([]);
    expect(await changesOf(() => app.db.collection('apikeys').updateOne({ name: 'k' }, { $set: { name: 'renamed' } }))).not.toEqual([]);
  });
});
