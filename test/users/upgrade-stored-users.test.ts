import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/auth/index.js';
import { normalizeError } from '../../src/errors/index.js';
import { emailCollation, upgradeStoredUsers } from '../../src/users/index.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Users stored before tenantKey: an earlier version kept emails unique per
 * tenant with a `{tenant_id, email}` index under the email collation, which
 * folded tenant ids too. The upgrade gives each such user its tenantKey and
 * drops that index, after which tenants are exact.
 */

let app: TestApp;
const users = () => app.db.collection('users');
const FOLDED = 'tenant_id_1_email_1';

beforeAll(async () => {
  app = await startTestApp();
  const passwordHash = await hashPassword('Passw0rd!');
  // As the earlier version stored them: no tenantKey, and its index.
  await users().insertMany([
    { email: 'Cook@Legacy.test', passwordHash, firstName: 'A', roles: [], tenant_id: 'legacy', tokenVersion: 0 },
    { email: 'cook@legacy.test', passwordHash, firstName: 'B', roles: [], tenant_id: 'other-legacy', tokenVersion: 0 },
    { email: 'cook@legacy.test', passwordHash, firstName: 'C', roles: ['admin'], tenant_id: null, tokenVersion: 0 },
  ]);
  await users().createIndex({ tenant_id: 1, email: 1 }, { name: FOLDED, unique: true, collation: emailCollation });
});
afterAll(() => app?.close());

async function createError(tenantId: string | null, email: string): Promise<unknown> {
  try {
    await app.createUser({ tenantId, email });
    return undefined;
  } catch (err) {
    return err;
  }
}

describe('upgrading users stored before tenantKey', () => {
  it('left alone, the old index still folds tenant ids (the state the upgrade fixes)', async () => {
    expect(normalizeError(await createError('LEGACY', 'cook@legacy.test')).code).toBe('CONFLICT');
  });

  it('gives every stored user its tenantKey and drops the index that folded tenant ids; a second run changes nothing', async () => {
    await upgradeStoredUsers();
    await upgradeStoredUsers();
    const stored = await users().find({ email: /legacy\.test$/i }, { projection: { _id: 0, tenant_id: 1, tenantKey: 1 } }).sort({ firstName: 1 }).toArray();
    expect(stored).toEqual([
      { tenant_id: 'legacy', tenantKey: Buffer.from('legacy').toString('hex') },
      { tenant_id: 'other-legacy', tenantKey: Buffer.from('other-legacy').toString('hex') },
      { tenant_id: null, tenantKey: '' },
    ]);
    expect((await users().indexes()).map((index) => index.name)).not.toContain(FOLDED);
  });

  it('then takes the email in a tenant that differs only in letter case', async () => {
    expect(await createError('LEGACY', 'cook@legacy.test')).toBeUndefined();
  });

  it('still refuses the email in another case within the same tenant, and a second platform account with it (409 naming email)', async () => {
    const errors = [await createError('legacy', 'COOK@legacy.test'), await createError(null, 'Cook@Legacy.TEST')].map(normalizeError);
    expect(errors.map((error) => [error.code, error.fieldErrors?.[0]?.field])).toEqual([
      ['CONFLICT', 'email'],
      ['CONFLICT', 'email'],
    ]);
  });

  it('signs the upgraded users in as before', async () => {
    const status = async (tenantId: string | null) =>
      (await app.rest('POST', '/auth/login', { body: { email: 'cook@legacy.test', password: 'Passw0rd!', tenantId } })).status;
    expect([await status('legacy'), await status('other-legacy'), await status(null)]).toEqual([200, 200, 200]);
  });
});

