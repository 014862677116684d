import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_MAX_AGE_MS } from '../../src/users/account-cache.js';
import { callService as call, startInstancesOnEngine, type InstancesOnEngine, type ServiceProcess } from '../support/service-process.js';

/**
 * Each instance reuses a credential's account for up to ACCOUNT_MAX_AGE_MS
 * (a second). Two instances on one engine: a user's credential is used on
 * both (so both hold the account), then the user is changed through the
 * first. The first answers by the change at once; the second once that
 * period has passed since the change, whatever it held.
 */

const TENANT = 'acme';
const ADMIN = { email: 'cache-admin@example.com', password: `C4che-${randomBytes(6).toString('hex')}!` };
const JWT_SECRET = randomBytes(32).toString('hex');

let instances: InstancesOnEngine;
let first: ServiceProcess;
let second: ServiceProcess;
let adminToken: string;
let adminId: string;

async function signIn(email: string, password: string): Promise<string> {
  const response = await call(first, 'POST', '/api/v1/auth/login', { body: { email, password } });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.accessToken;
}

const readMenus = (service: ServiceProcess, token: string) => call(service, 'GET', '/api/v1/restaurant/meal-menus', { token });

/** A tenant member with a token that works on both instances (so both hold its account). */
async function cookUsedOnBoth(): Promise<{ id: string; password: string; token: string }> {
  const password = `C00k-${randomBytes(4).toString('hex')}!`;
  const email = `cook-${randomBytes(4).toString('hex')}@acme.test`;
  const created = await call(first, 'POST', '/api/v1/access-control/users', {
    token: adminToken,
    body: { email, password, firstName: 'Grace', roles: ['member'], tenant_id: TENANT, createdBy: adminId, updatedBy: adminId },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const token = await signIn(email, password);
  expect([(await readMenus(first, token)).status, (await readMenus(second, token)).status]).toEqual([200, 200]);
  return { id: created.body.id, password, token };
}

async function updateOnFirst(token: string, id: string, fields: Record<string, unknown>, updatedBy: string): Promise<void> {
  const response = await call(first, 'PATCH', `/api/v1/access-control/users/${id}`, { token, body: { ...fields, updatedBy } });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
}

beforeAll(async () => {
  // One after the other: the first creates the administrator.
  instances = await startInstancesOnEngine({
    name: 'account-cache-instances',
    database: 'cache_db',
    admin: ADMIN,
    jwtSecret: JWT_SECRET,
    oneAfterAnother: true,
  });
  [first, second] = instances.services as [ServiceProcess, ServiceProcess];
  adminToken = await signIn(ADMIN.email, ADMIN.password);
  adminId = (await call(first, 'GET', '/api/v1/auth/me', { token: adminToken })).body.id;
}, 180_000);

afterAll(() => instances?.close());

describe('a change to a user, seen by two instances', () => {
  it('a role taken away: 403 on the instance that changed it at once, on the other within a second', async () => {
    const cook = await cookUsedOnBoth();
    await updateOnFirst(adminToken, cook.id, { roles: [] }, adminId);
    expect((await readMenus(first, cook.token)).status).toBe(403);
    await sleep(ACCOUNT_MAX_AGE_MS + 50);
    expect((await readMenus(second, cook.token)).status).toBe(403);
  });

  it('a password change: older tokens get 401 on the instance that changed it at once, on the other within a second', async () => {
    const cook = await cookUsedOnBoth();
    await updateOnFirst(cook.token, cook.id, { password: 'N3w-Passw0rd!', currentPassword: cook.password }, cook.id);
    expect((await readMenus(first, cook.token)).status).toBe(401);
    await sleep(ACCOUNT_MAX_AGE_MS + 50);
    const onSecond = await readMenus(second, cook.token);
    expect([onSecond.status, onSecond.body.detail]).toEqual([401, "Access token revoked: the password changed or the user's sessions were ended"]);
  });
});
