import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyModel, ApiKeyStatus, statusFilter } from '../../src/api-keys/api-key.model.js';
import { findPage } from '../../src/shared/pagination.js';
import { UserModel } from '../../src/users/index.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * mongoose runs with `sanitizeFilter`: an object value with `$` keys that
 * reaches a filter (a request field that was an object, not a string) is
 * matched as a literal value, never run as an operator. The filters our own
 * code builds mark their operators with `mongoose.trusted` and keep working.
 * (mongoose 9.7 skips the sanitizing in `countDocuments`: the service does not use it.)
 */

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
  await app.createUser({ tenantId: 'tenant-s', email: 'someone@example.test' });
  await app.createUser({ tenantId: 'tenant-s', email: 'other@example.test' });
});
afterAll(() => app?.close());

const OPERATOR_VALUES = [
  ['$ne', { $ne: null }],
  ['$gt', { $gt: '' }],
  ['$regex', { $regex: '.*' }],
  ['$in', { $in: ['someone@example.test'] }],
] as const;

describe('a user-supplied operator object in a filter', () => {
  it.each(OPERATOR_VALUES)('on a typed path (%s) is refused as a value of the wrong type (a 400), never run', async (_name, value) => {
    await expect(UserModel.find({ email: value as never })).rejects.toThrow(/Cast to string failed/);
    await expect(UserModel.updateMany({ email: value as never }, { $set: { bio: 'pwned' } })).rejects.toThrow(/Cast to string failed/);
    expect(await UserModel.find({ bio: 'pwned' })).toEqual([]);
  });

  it.each(OPERATOR_VALUES)('on a free-form path (%s) is matched as a literal value: nothing matches', async (_name, value) => {
    await ApiKeyModel.collection.insertOne({ keyId: `k-${_name}`, metadata: { team: 'x' }, tenant_id: 'tenant-s' });
    expect(await ApiKeyModel.find({ metadata: { team: 'x' } })).not.toEqual([]);
    expect(await ApiKeyModel.find({ metadata: value as never })).toEqual([]);
  });

  it('refuses $where outright', async () => {
    await expect(UserModel.find({ $where: 'true' } as never)).rejects.toThrow(/\$where is not allowed/);
  });
});

describe('the filters the service builds', () => {
  it('still run their trusted operators (a page after a cursor)', async () => {
    const first = await findPage(UserModel, { tenant_id: 'tenant-s' }, { limit: 1 });
    const second = await findPage(UserModel, { tenant_id: 'tenant-s' }, { limit: 1, cursor: first.nextCursor });
    expect([first.items[0]?.email, second.items[0]?.email]).toEqual(['someone@example.test', 'other@example.test']);
  });

  it('still run a status filter ($ne)', async () => {
    const filter = statusFilter(ApiKeyStatus.revoked, new Date());
    await ApiKeyModel.collection.insertOne({ keyId: 'k-revoked', revokedAt: new Date(), tenant_id: 'tenant-s' });
    expect((await ApiKeyModel.find(filter)).map((key) => key.keyId)).toEqual(['k-revoked']);
  });
});
