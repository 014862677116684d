import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { GRANT_MAX_AGE_MS } from '../../src/api-keys/index.js';
import { callService as call, startInstancesOnEngine, type InstancesOnEngine, type ServiceProcess } from '../support/service-process.js';

/**
 * An update of an API key made on one instance reaches another instance's
 * next uses within a second (GRANT_MAX_AGE_MS), for a busy key whose uses the
 * other instance serves from a grant taken before the change.
 */

const ADMIN = { email: 'update-keys-admin@example.com', password: `U9d-${randomBytes(6).toString('hex')}!` };

let instances: InstancesOnEngine;
let services: ServiceProcess[] = [];

beforeAll(async () => {
  instances = await startInstancesOnEngine({ name: 'update-api-key-instances', database: 'update_keys_db', admin: ADMIN, jwtSecret: randomBytes(32).toString('hex') });
  services = instances.services;
}, 180_000);

afterAll(() => instances?.close());

async function useKey(service: ServiceProcess, key: string): Promise<number> {
  const response = await fetch(`${service.baseUrl}/api/v1/restaurant/meal-menus?limit=1`, { headers: { 'x-api-key': key } });
  await response.arrayBuffer();
  return response.status;
}

it('narrowed scopes stored by one instance are refused by the other within the grant lifetime', async () => {
  const [first, second] = services as [ServiceProcess, ServiceProcess];
  const { body: session } = await call(first, 'POST', '/api/v1/auth/login', { body: ADMIN });
  // 100,000 an hour: the second instance serves its uses from grants (api-key-grants.ts).
  const created = await call(first, 'POST', '/api/v1/api-keys', { token: session.accessToken, body: { name: 'busy', scopes: ['menus:read'], rateLimit: 100_000 } });
  expect(created.status).toBe(201);
  for (let i = 0; i < 5; i += 1) expect(await useKey(second, created.body.key)).toBe(200);

  const updated = await call(first, 'PATCH', `/api/v1/api-keys/${created.body._id}`, { token: session.accessToken, body: { scopes: ['users:read'] } });
  expect(updated.status).toBe(200);
  const changedAt = Date.now();
  // Uses on the second instance until it answers by the change; the grant it holds ends within GRANT_MAX_AGE_MS.
  let status = await useKey(second, created.body.key);
  while (status === 200 && Date.now() - changedAt < 10 * GRANT_MAX_AGE_MS) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    status = await useKey(second, created.body.key);
  }
  expect(status).toBe(403);
  // A generous margin over the bound (a shared, noisy machine): the point is that the grant does not outlive it by much.
  expect(Date.now() - changedAt).toBeLessThan(3 * GRANT_MAX_AGE_MS);
}, 60_000);
