import { randomBytes } from 'node:crypto';
import { MongoClient, ObjectId, type Db } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEngine } from '../../src/engine/index.js';
import { FIRST_WAIT_SECONDS } from '../../src/auth/index.js';
import {
  callService as call,
  skewedClockEnv,
  startInstancesOnEngine,
  stopService,
  type InstancesOnEngine,
  type ServiceProcess,
} from '../support/service-process.js';

/**
 * An API key's hourly limit holds across service instances: two instances on
 * one standalone engine, a key with a limit of N, N + 50 requests at once
 * spread over both: exactly N succeed. Its uses are counted once each, also
 * when both instances are stopped (SIGTERM) right after the burst: the queued
 * usage is written on shutdown, nothing is lost. A busy key (a limit large
 * enough for its uses to be counted in grants) keeps its limit exactly over
 * both, and uses granted and not used are given back, also on shutdown.
 * Sign-in throttling holds across instances too, also one whose clock is an hour ahead: concurrent
 * failed sign-ins for one email over both get exactly the free failures'
 * worth of password checks, and the wait is set by the database's clock.
 */

const LIMIT = 30;
const ADMIN = { email: 'keys-admin@example.com', password: `K3ys-${randomBytes(6).toString('hex')}!` };
const JWT_SECRET = randomBytes(32).toString('hex');

let instances: InstancesOnEngine;
let mongo: RunningEngine;
let services: ServiceProcess[] = [];

beforeAll(async () => {
  instances = await startInstancesOnEngine({ name: 'api-key-instances', database: 'keys_db', admin: ADMIN, jwtSecret: JWT_SECRET });
  ({ engine: mongo, services } = instances);
}, 180_000);

afterAll(() => instances?.close());

/** Signs in as the administrator on `service` and creates a key reading menus, limited to `rateLimit` an hour. */
async function createKey(service: ServiceProcess, name: string, rateLimit: number) {
  const { body: session } = await call(service, 'POST', '/api/v1/auth/login', { body: ADMIN });
  const created = await call(service, 'POST', '/api/v1/api-keys', {
    token: session.accessToken,
    body: { name, scopes: ['menus:read'], rateLimit },
  });
  expect(created.status).toBe(201);
  return { created };
}

/** One use of an API key on `service`: the answer's status (its body read, so the connection is free again). */
async function useKey(service: ServiceProcess, key: string, path = '/api/v1/restaurant/meal-menus'): Promise<number> {
  const response = await fetch(`${service.baseUrl}${path}`, { headers: { 'x-api-key': key } });
  await response.arrayBuffer();
  return response.status;
}

/** Reads the test database through the driver (the services' own view, not theirs). */
async function inKeysDb<T>(read: (db: Db) => Promise<T>): Promise<T> {
  const client = new MongoClient(mongo.uri);
  try {
    return await read(client.db('keys_db'));
  } finally {
    await client.close();
  }
}

// Before the API key case, which stops both instances.
describe('sign-in throttling over two instances, one with its clock an hour ahead', () => {
  const FREE_FAILURES = 5; // the default LOGIN_ACCOUNT_FAILURES
  const ATTEMPTS = 20;
  const SKEW_MS = 60 * 60_000;
  let skewed: ServiceProcess;

  // Stopped with the others (instances.close).
  beforeAll(async () => {
    skewed = await instances.start(skewedClockEnv(SKEW_MS));
  }, 60_000);

  it(`answers 401 to exactly ${FREE_FAILURES} of ${ATTEMPTS} concurrent failed sign-ins for one email, then 429 on either`, async () => {
    const pair = [services[0]!, skewed];
    const credentials = { email: 'guessed@example.com', password: 'Wr0ng-passw0rd' };
    const signIn = (service: ServiceProcess) =>
      fetch(`${service.baseUrl}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(credentials) });
    const statuses = await Promise.all(Array.from({ length: ATTEMPTS }, async (_, i) => (await signIn(pair[i % 2]!)).status));
    expect([statuses.filter((s) => s === 401).length, statuses.filter((s) => s === 429).length]).toEqual([FREE_FAILURES, ATTEMPTS - FREE_FAILURES]);

    // Both tell the same wait: the one the database's clock gives, whatever their own says.
    const afterwards = await Promise.all(pair.map(signIn));
    expect(afterwards.map((response) => [response.status, Number(response.headers.get('retry-after')) <= FIRST_WAIT_SECONDS])).toEqual([
      [429, true],
      [429, true],
    ]);
    const client = new MongoClient(mongo.uri);
    try {
      const counter = await client
        .db('keys_db')
        .collection<{ _id: string; failures: number; lockedUntil: Date }>('loginthrottles')
        .findOne({ _id: 'account:guessed@example.com' });
      expect(counter?.failures).toBe(FREE_FAILURES);
      // The deadline is in the database's time: within the first wait of the server's clock, not an hour off.
      const { localTime } = await client.db('admin').command({ hello: 1 });
      const untilDeadline = counter!.lockedUntil.getTime() - (localTime as Date).getTime();
      expect(Math.abs(untilDeadline) < SKEW_MS / 2, `deadline ${untilDeadline} ms from the server's time`).toBe(true);
    } finally {
      await client.close();
    }
  });
});

describe('a busy API key served by two instances (uses counted in grants)', () => {
  // A limit that allows grants of 2 (a thousandth of it): both instances take uses ahead.
  const BUSY_LIMIT = 2000;
  const REQUESTS = BUSY_LIMIT + 100;
  const AT_ONCE = 40;

  it(`lets exactly ${BUSY_LIMIT} of ${REQUESTS} requests through, and counts each of them once`, async () => {
    const [first, second] = services;
    const { created } = await createKey(first!, 'busy shared limit', BUSY_LIMIT);
    const useOn = (service: ServiceProcess) => useKey(service, created.body.key, '/api/v1/restaurant/meal-menus?limit=1');

    // AT_ONCE requests in flight at all times, alternating between the instances.
    const statuses: number[] = [];
    let sent = 0;
    await Promise.all(
      Array.from({ length: AT_ONCE }, async () => {
        while (sent < REQUESTS) statuses.push(await useOn((sent++ % 2 ? second : first)!));
      }),
    );
    expect([statuses.filter((s) => s === 200).length, statuses.filter((s) => s === 429).length]).toEqual([BUSY_LIMIT, REQUESTS - BUSY_LIMIT]);

    // Every request is in the window's count once (a refused one too, as for any key) once the
    // uses granted and not used are given back (within a second); every accepted one in usageCount.
    await inKeysDb(async (db) => {
      const stored = () => db.collection('apikeys').findOne({ _id: new ObjectId(String(created.body._id)) });
      let key = await stored();
      for (let attempt = 0; attempt < 40 && (key?.rateWindow?.count !== REQUESTS || key?.usageCount !== BUSY_LIMIT); attempt += 1) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        key = await stored();
      }
      expect([key?.rateWindow?.count, key?.usageCount]).toEqual([REQUESTS, BUSY_LIMIT]);
    });
  }, 60_000);
});

describe('an API key served by two instances', () => {
  it(`lets exactly ${LIMIT} of ${LIMIT + 50} concurrent requests through, and counts each of them once`, async () => {
    const [first, second] = services;
    const { created } = await createKey(first!, 'shared limit', LIMIT);

    const statuses = await Promise.all(Array.from({ length: LIMIT + 50 }, (_, i) => useKey((i % 2 ? second : first)!, created.body.key)));
    // A platform administrator's key lists every tenant's menus: 200 while within the limit.
    expect([statuses.filter((s) => s === 200).length, statuses.filter((s) => s === 429).length]).toEqual([LIMIT, 50]);

    // A busy key used four times just before the stop: its last use took a grant of four, three unused, given back on the way out.
    const { created: busy } = await createKey(first!, 'busy at shutdown', 1_000_000);
    for (let i = 0; i < 4; i += 1) expect((await call(first!, 'GET', '/api/v1/restaurant/meal-menus?limit=1', { token: busy.body.key })).status).toBe(200);

    // Stop both at once: what is still queued is written on the way out.
    expect(await Promise.all(services.map((service) => stopService(service)))).toEqual([0, 0]);
    await inKeysDb(async (db) => {
      const key = await db.collection('apikeys').findOne({ _id: new ObjectId(String(created.body._id)) });
      expect(key?.usageCount).toBe(LIMIT);
      expect(await db.collection('apikeyusages').countDocuments({ apiKeyId: String(created.body._id) })).toBe(LIMIT);
      const busyKey = await db.collection('apikeys').findOne({ _id: new ObjectId(String(busy.body._id)) });
      expect([busyKey?.usageCount, busyKey?.rateWindow?.count]).toEqual([4, 4]);
    });
  });
});
