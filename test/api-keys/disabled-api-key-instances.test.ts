import { randomBytes } from 'node:crypto';
import { MongoClient, ObjectId } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRANT_MAX_AGE_MS } from '../../src/api-keys/index.js';
import type { RunningEngine } from '../../src/engine/index.js';
import { callService as call, startInstancesOnEngine, type InstancesOnEngine, type ServiceProcess } from '../support/service-process.js';

/**
 * A disabled key on every instance within a second (contract: disableApiKey):
 * two service processes on one standalone engine serve a busy key (its uses
 * counted in grants on both), the key is disabled in the database (as a third
 * instance's disableApiKey would store it: neither process sees the write),
 * and both refuse it 401 "API key disabled" within a second; verifyApiKey on
 * either answers DISABLED. Enabled again, both accept it.
 */

const ADMIN = { email: 'disabled-keys-admin@example.com', password: `D1s-${randomBytes(6).toString('hex')}!` };
const JWT_SECRET = randomBytes(32).toString('hex');
/** Large enough for grants of up to 100 uses. */
const BUSY_LIMIT = 1_000_000;

let instances: InstancesOnEngine;
let mongo: RunningEngine;
let services: ServiceProcess[] = [];

beforeAll(async () => {
  instances = await startInstancesOnEngine({ name: 'disabled-key-instances', database: 'disabled_keys_db', admin: ADMIN, jwtSecret: JWT_SECRET });
  ({ engine: mongo, services } = instances);
}, 180_000);

afterAll(() => instances?.close());

async function useKey(service: ServiceProcess, key: string): Promise<{ status: number; message?: string }> {
  const response = await fetch(`${service.baseUrl}/api/v1/restaurant/meal-menus`, { headers: { 'x-api-key': key } });
  const body = (await response.json()) as { detail?: string };
  return { status: response.status, message: body.detail };
}

async function setDisabledAt(id: string, disabledAt: Date | null): Promise<void> {
  const client = new MongoClient(mongo.uri);
  try {
    await client.db('disabled_keys_db').collection('apikeys').updateOne({ _id: new ObjectId(id) }, { $set: { disabledAt } });
  } finally {
    await client.close();
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a busy key disabled while two instances serve it from grants', () => {
  it('is refused 401 "API key disabled" by both within a second, verified DISABLED on both, and accepted again once enabled', async () => {
    const [a, b] = services as [ServiceProcess, ServiceProcess];
    const { body: session } = await call(a, 'POST', '/api/v1/auth/login', { body: ADMIN });
    const created = await call(a, 'POST', '/api/v1/api-keys', { token: session.accessToken, body: { name: 'busy', scopes: ['menus:read'], rateLimit: BUSY_LIMIT } });
    expect(created.status).toBe(201);
    const { _id: id, key } = created.body as { _id: string; key: string };
    // Enough uses on each for their grants to grow past one use.
    for (let i = 0; i < 8; i += 1) expect([(await useKey(a, key)).status, (await useKey(b, key)).status]).toEqual([200, 200]);

    await setDisabledAt(id, new Date());
    const disabledAt = Date.now();
    const refusedBy = async (service: ServiceProcess) => {
      let last = await useKey(service, key);
      while (last.status === 200 && Date.now() - disabledAt < GRANT_MAX_AGE_MS * 1.5) {
        await sleep(50);
        last = await useKey(service, key);
      }
      return last;
    };
    expect(await Promise.all([refusedBy(a), refusedBy(b)])).toEqual([
      { status: 401, message: 'API key disabled' },
      { status: 401, message: 'API key disabled' },
    ]);
    for (const service of [a, b]) {
      const verified = await call(service, 'POST', '/api/v1/api-keys/verify', { token: session.accessToken, body: { key } });
      expect([verified.status, verified.body.code, verified.body.valid]).toEqual([200, 'DISABLED', false]);
    }

    await setDisabledAt(id, null);
    expect([(await useKey(a, key)).status, (await useKey(b, key)).status]).toEqual([200, 200]);
  });
});
