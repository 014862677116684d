import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapAdmin } from '../../src/users/bootstrap.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/** First start: the platform administrator from ADMIN_EMAIL / ADMIN_PASSWORD. */

let app: TestApp;
const silent = pino({ level: 'silent' });
const admin = { email: 'root@example.test', password: 'R00t-passw0rd' };

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.close());

const users = () => app.db.collection('users');

describe('bootstrapping the administrator', () => {
  it('does nothing without ADMIN_EMAIL and ADMIN_PASSWORD', async () => {
    expect({ created: await bootstrapAdmin({ admin: null }, silent), users: await users().countDocuments() }).toEqual({
      created: false,
      users: 0,
    });
  });

  it('creates a platform administrator in an empty database', async () => {
    await bootstrapAdmin({ admin }, silent);
    const stored = await users().findOne({ email: admin.email });
    expect({ tenant: stored?.tenant_id, roles: stored?.roles }).toEqual({ tenant: null, roles: ['admin'] });
  });

  it('stores an Argon2id hash, never the password', async () => {
    const stored = await users().findOne({ email: admin.email });
    expect(String(stored?.passwordHash)).toMatch(/^\$argon2id\$/);
  });

  it('is idempotent: a second start creates nobody', async () => {
    expect({ created: await bootstrapAdmin({ admin }, silent), users: await users().countDocuments() }).toEqual({
      created: false,
      users: 1,
    });
  });

  it('lets the administrator sign in', async () => {
    const response = await app.rest('POST', '/auth/login', { body: admin });
    expect(response.status).toBe(200);
  });

  it('creates one administrator when several instances start at once on an empty database', async () => {
    await users().deleteMany({});
    const created = await Promise.all([bootstrapAdmin({ admin }, silent), bootstrapAdmin({ admin }, silent)]);
    expect({ created: created.sort(), users: await users().countDocuments() }).toEqual({ created: [false, true], users: 1 });
  });
});
