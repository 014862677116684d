import { ObjectId } from 'mongodb';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateUserEmailIndex } from '../../src/users/index.js';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

/**
 * A database made before deleteUser holds the unique (tenant_id, email)
 * index without deletedAt, which keeps a deleted user's email taken. Every
 * start runs migrateUserEmailIndex after the models' indexes exist: it drops
 * that index, so the email is free again, and the new index keeps live
 * emails unique throughout.
 */

const TENANT = 'tenant-email-index';
let app: TestApp;
let admin: TestUser;
const silent = pino({ level: 'silent' });

beforeAll(async () => {
  app = await startTestApp();
  admin = await app.createUser({ tenantId: TENANT, roles: ['admin'] });
});
afterAll(() => app?.close());

const users = () => app.db.collection('users');
const indexNames = async () => (await users().indexes()).map((index) => index.name);
const create = (email: string) =>
  app.rest('POST', '/access-control/users', { token: admin.token, body: { email, password: 'Str0ng-Pass', firstName: 'Ada', createdBy: admin.id, updatedBy: admin.id } });

describe('the email index of a database made before deleteUser', () => {
  it('is dropped at start; a deleted email is taken again; a live one stays unique; a second start changes nothing', async () => {
    // The index as older versions made it (user.model.ts before deletedAt joined its key).
    await users().createIndex({ tenant_id: 1, email: 1 }, { name: 'tenant_id_1_email_1', unique: true, collation: { locale: 'en', strength: 2 } });
    const gone = await app.createUser({ tenantId: TENANT, roles: ['member'] });
    expect((await app.rest('DELETE', `/access-control/users/${gone.id}`, { token: admin.token })).status).toBe(200);
    // The old index still counts the deleted record.
    expect((await create(gone.email)).status).toBe(409);

    expect(await migrateUserEmailIndex(silent)).toBe(true);
    expect(await indexNames()).not.toContain('tenant_id_1_email_1');
    expect(await indexNames()).toContain('tenant_id_1_email_1_deletedAt_1');
    expect((await create(gone.email)).status).toBe(201);
    expect((await create(gone.email.toUpperCase())).status).toBe(409);
    expect(await users().countDocuments({ _id: new ObjectId(gone.id), status: 'deleted' })).toBe(1);

    expect(await migrateUserEmailIndex(silent)).toBe(false);
  });
});
