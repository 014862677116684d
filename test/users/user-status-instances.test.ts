import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_MAX_AGE_MS } from '../../src/users/account-cache.js';
import { callService as call, startInstancesOnEngine, type InstancesOnEngine, type ServiceProcess } from '../support/service-process.js';

/**
 * A user disabled through one instance is refused by the other within a
 * second (contract "Users: disabling, deleting, sessions"): two service
 * processes on one engine, a member's access token and API key used on both
 * (so both hold the account), then disableUser through the first. The first
 * refuses both credentials on the next request; the second once its cached
 * account (ACCOUNT_MAX_AGE_MS) has run out, whatever it held.
 */

const TENANT = 'acme';
const ADMIN = { email: 'status-admin@example.com', password: `St4tus-${randomBytes(6).toString('hex')}!` };
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

const readMenus = async (service: ServiceProcess, credential: string) => {
  const response = await call(service, 'GET', '/api/v1/restaurant/meal-menus', { token: credential });
  return [response.status, response.status === 200 ? null : response.body.detail];
};

beforeAll(async () => {
  instances = await startInstancesOnEngine({ name: 'user-status-instances', database: 'status_db', admin: ADMIN, jwtSecret: JWT_SECRET, oneAfterAnother: true });
  [first, second] = instances.services as [ServiceProcess, ServiceProcess];
  adminToken = await signIn(ADMIN.email, ADMIN.password);
  adminId = (await call(first, 'GET', '/api/v1/auth/me', { token: adminToken })).body.id;
}, 180_000);

afterAll(() => instances?.close());

describe('a user disabled through one instance', () => {
  it('has their token and API key refused by that instance at once and by the other within a second', async () => {
    const password = `C00k-${randomBytes(4).toString('hex')}!`;
    const email = `cook-${randomBytes(4).toString('hex')}@acme.test`;
    const created = await call(first, 'POST', '/api/v1/access-control/users', {
      token: adminToken,
      body: { email, password, firstName: 'Grace', roles: ['member'], tenant_id: TENANT, createdBy: adminId, updatedBy: adminId },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const token = await signIn(email, password);
    const made = await call(first, 'POST', '/api/v1/api-keys', { token, body: { name: 'cook key', scopes: ['menus:read'] } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const key = made.body.key as string;
    for (const service of [first, second]) {
      expect([await readMenus(service, token), await readMenus(service, key)]).toEqual([[200, null], [200, null]]);
    }

    const disabled = await call(first, 'PATCH', `/api/v1/access-control/users/${created.body.id}/disable`, { token: adminToken, body: { reason: 'left' } });
    expect(disabled.status, JSON.stringify(disabled.body)).toBe(200);
    const refused = [[401, 'Account disabled'], [401, 'API key creator is disabled']];
    expect([await readMenus(first, token), await readMenus(first, key)]).toEqual(refused);
    await sleep(ACCOUNT_MAX_AGE_MS + 50);
    expect([await readMenus(second, token), await readMenus(second, key)]).toEqual(refused);
  });
});
