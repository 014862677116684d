import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { ObjectId } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyExpirySweeper, ApiKeyModel, EXPIRY_PAGE } from '../../src/api-keys/index.js';
import { EventLog, EventModel, OnceEvents, type OnceEvent } from '../../src/events/index.js';
import { createLogger } from '../../src/logger.js';
import { buildServiceSchema, createService, createServices } from '../../src/service.js';
import { servedSchema, startTestApp, type TestApp, type TestUser } from '../support/test-app.js';
import { callOperation, SURFACES, type Operation, type Surface } from '../support/surfaces.js';

/**
 * The events the service raises by itself (docs/events.md "System events"):
 * `api-keys.rate-limited` on a key's first 429 in its hour, `users.sign-in-locked`
 * when a failed sign-in starts an account's throttling (both surfaces), and
 * `api-keys.expiring` 7 days and 1 day before a key's expiry. Each happens
 * once, also when several writers (instances) race: read back from the events
 * collection. None carries a secret.
 */

let app: TestApp;
const TENANT = 'tenant-system-events';
const OTHER_TENANT = 'tenant-system-events-other';
let admin: TestUser;
/** Every log line of the app (debug and up). */
const logLines: string[] = [];
const sink = new Writable({
  write(chunk, _encoding, done) {
    logLines.push(String(chunk));
    done();
  },
});

beforeAll(async () => {
  // Every sign-in here comes from 127.0.0.1: the IP's own throttle must not be what refuses them.
  app = await startTestApp({ env: { LOGIN_IP_FAILURES: '1000' }, logger: createLogger({ logLevel: 'debug' }, sink) });
  admin = await app.createUser({ tenantId: TENANT });
});

afterAll(() => app?.close());

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

async function makeKey(body: Record<string, unknown>): Promise<{ id: string; secret: string }> {
  const response = await app.rest('POST', '/api-keys', {
    token: admin.token,
    body: { name: `key ${new ObjectId().toHexString().slice(-6)}`, scopes: ['menus:read'], ...body },
  });
  if (response.status !== 201) throw new Error(`createApiKey answered ${response.status}: ${JSON.stringify(response.body)}`);
  return { id: response.body._id, secret: response.body.key };
}

/** The stored events of a type about a record, oldest first (GET /events is part E's; until it is merged, the collection). */
async function eventsOf(type: string, targetId: string) {
  const found = await EventModel.collection.find({ type, 'target.id': targetId }).sort({ _id: 1 }).toArray();
  return found.map(({ _id, type: t, tenant_id, actor, target, data, state, dedupeKey }) => ({ id: String(_id), type: t, tenant_id, actor, target, data, state, dedupeKey }));
}

/** Polls until `read` gives `count` items (background writes), up to 10 s. */
async function eventually<T>(read: () => Promise<T[]>, count: number): Promise<T[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const items = await read();
    if (items.length >= count || Date.now() > deadline) return items;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A fixed pause, only to show that nothing MORE comes after what was awaited. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

const listMenus: Operation = {
  rest: { method: 'GET', path: '/restaurant/meal-menus' },
  graphql: { query: 'query { mealMenus { items { id } nextCursor } }' },
};

function login(email: string, password: string, tenantId: string): Operation {
  const body = { email, password, tenantId };
  return {
    rest: { method: 'POST', path: '/auth/login', body },
    graphql: {
      query: 'mutation($email: String!, $password: String!, $tenantId: String) { login(email: $email, password: $password, tenantId: $tenantId) { accessToken } }',
      variables: body,
    },
  };
}

describe('api-keys.rate-limited', () => {
  it.each(SURFACES)("is raised once for a key's 429s in its hour, however many (%s)", async (surface: Surface) => {
    const key = await makeKey({ rateLimit: 2 });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await callOperation(app, surface, listMenus, { token: key.secret })).status);
    // A burst of 429s at once: still one event.
    const burst = await Promise.all(Array.from({ length: 10 }, () => callOperation(app, surface, listMenus, { token: key.secret })));
    expect([...statuses, ...burst.map((o) => o.status)]).toEqual([200, 200, ...Array<number>(11).fill(429)]);

    const events = await eventually(() => eventsOf('api-keys.rate-limited', key.id), 1);
    await settle();
    expect(await eventsOf('api-keys.rate-limited', key.id)).toHaveLength(1);
    const windowStart = new Date(Math.floor(Date.now() / HOUR) * HOUR).toISOString();
    expect(events[0]).toMatchObject({
      type: 'api-keys.rate-limited',
      tenant_id: TENANT,
      actor: { type: 'system', id: null },
      target: { type: 'ApiKey', id: key.id },
      data: { limit: 2, window: 3600, windowStart },
      state: 'committed',
    });
    expect(JSON.stringify(events)).not.toContain(key.secret);
  });

  it('is raised once when two instances refuse the same key at once', async () => {
    // A second instance of the service on the same database, with its own memory of written occasions.
    const second = await createService(app.config, await servedSchema(), { logger: createLogger({ logLevel: 'silent' }, sink) });
    const server = createServer(second.app).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const bases = [app.baseUrl, `http://127.0.0.1:${(server.address() as AddressInfo).port}`];
      const key = await makeKey({ rateLimit: 2 });
      const statuses = await Promise.all(
        Array.from({ length: 16 }, async (_, i) => {
          const response = await fetch(`${bases[i % 2]}/api/v1/restaurant/meal-menus`, { headers: { 'x-api-key': key.secret } });
          await response.arrayBuffer();
          return response.status;
        }),
      );
      expect(statuses.filter((status) => status === 429)).toHaveLength(14);
      await eventually(() => eventsOf('api-keys.rate-limited', key.id), 1);
      await settle();
      expect(await eventsOf('api-keys.rate-limited', key.id)).toHaveLength(1);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await second.stop();
    }
  });

  it('is not raised for a key that was never refused', async () => {
    const key = await makeKey({ rateLimit: 5 });
    expect((await callOperation(app, 'rest', listMenus, { token: key.secret })).status).toBe(200);
    await settle();
    expect(await eventsOf('api-keys.rate-limited', key.id)).toEqual([]);
  });
});

describe('users.sign-in-locked', () => {
  const freeFailures = () => app.config.loginThrottle.accountFailures;

  it.each(SURFACES)('is raised once when failed sign-ins start the throttling of an account (%s)', async (surface: Surface) => {
    const user = await app.createUser({ tenantId: TENANT });
    const statuses: number[] = [];
    for (let i = 0; i < freeFailures() + 2; i += 1) statuses.push((await callOperation(app, surface, login(user.email, 'wrong-Passw0rd!', TENANT))).status);
    expect(statuses).toEqual([...Array<number>(freeFailures()).fill(401), 429, 429]);

    const events = await eventually(() => eventsOf('users.sign-in-locked', user.id), 1);
    await settle();
    expect(await eventsOf('users.sign-in-locked', user.id)).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'users.sign-in-locked',
      tenant_id: TENANT,
      actor: { type: 'system', id: null },
      target: { type: 'User', id: user.id },
      data: { email: user.email },
      state: 'committed',
    });
    expect(Date.parse(events[0].data.lockedUntil as string)).toBeGreaterThan(Date.now());
    // Neither the account's password nor the one tried is in it.
    expect(JSON.stringify(events)).not.toMatch(/wrong-Passw0rd!|Passw0rd!/);
  });

  const wrongProofs: Record<string, (user: TestUser) => Operation> = {
    changePassword: () => ({
      rest: { method: 'POST', path: '/auth/password', body: { currentPassword: 'wrong-Passw0rd!', newPassword: 'N3w-Passw0rd!x' } },
      graphql: {
        query: 'mutation($currentPassword: String!, $newPassword: String!) { changePassword(currentPassword: $currentPassword, newPassword: $newPassword) { accessToken } }',
        variables: { currentPassword: 'wrong-Passw0rd!', newPassword: 'N3w-Passw0rd!x' },
      },
    }),
    'updateUser of its own email': (user) => ({
      rest: { method: 'PATCH', path: `/access-control/users/${user.id}`, body: { email: `new-${user.email}`, currentPassword: 'wrong-Passw0rd!', updatedBy: user.id } },
      graphql: {
        query: 'mutation($id: ID!, $email: String, $currentPassword: String, $updatedBy: String!) { updateUser(id: $id, email: $email, currentPassword: $currentPassword, updatedBy: $updatedBy) { id } }',
        variables: { id: user.id, email: `new-${user.email}`, currentPassword: 'wrong-Passw0rd!', updatedBy: user.id },
      },
    }),
  };

  describe.each(SURFACES)('over %s', (surface) => {
    it.each(Object.keys(wrongProofs))('is raised once when wrong current passwords (%s) start the throttling of an account', async (name) => {
      const user = await app.createUser({ tenantId: TENANT });
      const statuses: number[] = [];
      for (let i = 0; i < freeFailures() + 1; i += 1) statuses.push((await callOperation(app, surface, wrongProofs[name]!(user), { token: user.token })).status);
      expect(statuses).toEqual([...Array<number>(freeFailures()).fill(403), 429]);
      const events = await eventually(() => eventsOf('users.sign-in-locked', user.id), 1);
      await settle();
      expect(await eventsOf('users.sign-in-locked', user.id)).toHaveLength(1);
      expect(events[0]).toMatchObject({ tenant_id: TENANT, actor: { type: 'system', id: null }, target: { type: 'User', id: user.id }, data: { email: user.email } });
    });
  });

  it('is raised once when many failed sign-ins race over both surfaces', async () => {
    const user = await app.createUser({ tenantId: TENANT });
    const statuses = await Promise.all(
      Array.from({ length: freeFailures() + 6 }, (_, i) => callOperation(app, SURFACES[i % 2], login(user.email, 'wrong-Passw0rd!', TENANT)).then((o) => o.status)),
    );
    expect(statuses.filter((status) => status === 401)).toHaveLength(freeFailures());
    await eventually(() => eventsOf('users.sign-in-locked', user.id), 1);
    await settle();
    expect(await eventsOf('users.sign-in-locked', user.id)).toHaveLength(1);
  });

  it('is not raised for an email no account of that tenant has (nor tells another tenant of it)', async () => {
    const elsewhere = await app.createUser({ tenantId: OTHER_TENANT });
    const statuses: number[] = [];
    for (let i = 0; i < freeFailures() + 1; i += 1) statuses.push((await callOperation(app, 'rest', login(elsewhere.email, 'wrong-Passw0rd!', TENANT))).status);
    expect(statuses).toEqual([...Array<number>(freeFailures()).fill(401), 429]);
    await settle();
    expect(await EventModel.collection.countDocuments({ type: 'users.sign-in-locked', 'data.email': elsewhere.email })).toBe(0);
  });

  it('is not raised by failures under the free ones', async () => {
    const user = await app.createUser({ tenantId: TENANT });
    const statuses: number[] = [];
    for (let i = 0; i < freeFailures() - 1; i += 1) statuses.push((await callOperation(app, 'graphql', login(user.email, 'wrong-Passw0rd!', TENANT))).status);
    expect(statuses).toEqual(Array<number>(freeFailures() - 1).fill(401));
    await settle();
    expect(await eventsOf('users.sign-in-locked', user.id)).toEqual([]);
  });
});

describe('api-keys.expiring', () => {
  it('announces keys 7 days and 1 day before expiry, once each, however many instances sweep', async () => {
    const now = Date.now();
    const inSixDays = await makeKey({ expiresAt: new Date(now + 6 * DAY).toISOString() });
    const inTwentyHours = await makeKey({ expiresAt: new Date(now + 20 * HOUR).toISOString() });
    const inThirtyDays = await makeKey({ expiresAt: new Date(now + 30 * DAY).toISOString() });
    const revoked = await makeKey({ expiresAt: new Date(now + 3 * DAY).toISOString() });
    expect((await app.rest('PATCH', `/api-keys/${revoked.id}/revoke`, { token: admin.token })).status).toBe(200);

    // Two instances, each its own event log and memory, sweeping at once and again.
    const sweepersAt = (at: number) =>
      [0, 1].map(() => {
        const once = new OnceEvents(new EventLog({ retentionSeconds: 30 * 86400 }));
        return new ApiKeyExpirySweeper({ write: (event) => once.write(event), now: () => new Date(at) });
      });
    const sweepers = sweepersAt(now);
    await Promise.all([...sweepers, ...sweepers].map((sweeper) => sweeper.sweep()));

    const sixDays = await eventsOf('api-keys.expiring', inSixDays.id);
    expect(sixDays).toMatchObject([
      {
        tenant_id: TENANT,
        actor: { type: 'system', id: null },
        target: { type: 'ApiKey', id: inSixDays.id },
        data: { window: '7d', expiresAt: new Date(now + 6 * DAY).toISOString() },
      },
    ]);
    // Created within a day of its expiry: the nearest window only.
    expect((await eventsOf('api-keys.expiring', inTwentyHours.id)).map((e) => e.data.window)).toEqual(['1d']);
    expect(await eventsOf('api-keys.expiring', inThirtyDays.id)).toEqual([]);
    expect(await eventsOf('api-keys.expiring', revoked.id)).toEqual([]);

    // Five and a half days later: the six-day key is within a day of expiry.
    await Promise.all(sweepersAt(now + 5.5 * DAY).map((sweeper) => sweeper.sweep()));
    expect((await eventsOf('api-keys.expiring', inSixDays.id)).map((e) => e.data.window)).toEqual(['7d', '1d']);

    // A new expiry (updateApiKey) is announced for itself.
    const later = new Date(now + 5 * DAY).toISOString();
    const updated = await app.rest('PATCH', `/api-keys/${inTwentyHours.id}`, { token: admin.token, body: { expiresAt: later } });
    expect(updated.status).toBe(200);
    await Promise.all(sweepersAt(now).map((sweeper) => sweeper.sweep()));
    expect((await eventsOf('api-keys.expiring', inTwentyHours.id)).map((e) => [e.data.window, e.data.expiresAt])).toEqual([
      ['1d', new Date(now + 20 * HOUR).toISOString()],
      ['7d', later],
    ]);
  });

  it('sweeps more keys than a page, each announced once, and a restarted instance writes none again (it reads what is written)', async () => {
    const now = Date.now();
    const tenant = 'tenant-many-expiring';
    const count = EXPIRY_PAGE * 2 + 37;
    // One instant for many: the pages split inside equal expiresAt (ordered by id).
    const expiresAt = new Date(now + 3 * DAY);
    await ApiKeyModel.collection.insertMany(
      Array.from({ length: count }, (_, i) => ({
        _id: new ObjectId(), name: `many ${i}`, tenant_id: tenant, keyId: `m${String(i).padStart(11, '0')}`, secretHash: 'x', scopes: [], createdBy: admin.id,
        expiresAt, revokedAt: null, createdAt: new Date(now), updatedAt: new Date(now),
      })),
    );
    const sweeperOf = () => {
      const once = new OnceEvents(new EventLog({ retentionSeconds: 30 * 86400 }));
      const writes: string[] = [];
      const sweeper = new ApiKeyExpirySweeper({
        write: (event) => (writes.push(event.dedupeKey), once.write(event)),
        unwritten: (events) => once.unwritten(events),
        now: () => new Date(now),
      });
      return { sweeper, writes };
    };
    const first = sweeperOf();
    await first.sweeper.sweep();
    expect(await EventModel.collection.countDocuments({ type: 'api-keys.expiring', tenant_id: tenant })).toBe(count);
    expect(new Set(first.writes).size).toBe(first.writes.filter((key) => key.includes(':7d:')).length);
    // Another instance (or this one restarted), its memory empty: nothing to write.
    const restarted = sweeperOf();
    await restarted.sweeper.sweep();
    expect(restarted.writes.filter((key) => key.includes(expiresAt.toISOString()))).toEqual([]);
    expect(await EventModel.collection.countDocuments({ type: 'api-keys.expiring', tenant_id: tenant })).toBe(count);
    await ApiKeyModel.collection.deleteMany({ tenant_id: tenant });
  });

  it('sweeps on its interval until closed', async () => {
    const key = await makeKey({ expiresAt: new Date(Date.now() + 2 * DAY).toISOString() });
    const once = new OnceEvents(new EventLog({ retentionSeconds: 86400 }));
    let sweeps = 0;
    const sweeper = new ApiKeyExpirySweeper({
      write: (event) => once.write(event),
      intervalMs: 20,
      now: () => {
        sweeps += 1;
        return new Date();
      },
    });
    sweeper.start();
    await eventually(async () => (sweeps >= 3 ? [sweeps] : []), 1);
    await sweeper.close();
    const after = sweeps;
    await settle();
    expect(sweeps).toBe(after);
    expect(await eventsOf('api-keys.expiring', key.id)).toHaveLength(1);
  });
});

describe('secrets', () => {
  it("neither a key's secret nor a password tried is in the system events or the logs", async () => {
    const key = await makeKey({ rateLimit: 1 });
    const user = await app.createUser({ tenantId: TENANT });
    const tried = `Guess-${new ObjectId().toHexString()}!`;
    for (let i = 0; i < 3; i += 1) await callOperation(app, 'rest', listMenus, { headers: { 'x-api-key': key.secret } });
    for (let i = 0; i < app.config.loginThrottle.accountFailures + 1; i += 1) await callOperation(app, 'graphql', login(user.email, tried, TENANT));
    const events = [...(await eventually(() => eventsOf('api-keys.rate-limited', key.id), 1)), ...(await eventually(() => eventsOf('users.sign-in-locked', user.id), 1))];
    expect(events).toHaveLength(2);
    const everything = JSON.stringify(events) + logLines.join('\n');
    for (const secret of [key.secret, tried, user.password]) expect(everything).not.toContain(secret);
  });
});

describe('once across instances', () => {
  const occasion = (): OnceEvent => {
    const id = new ObjectId().toHexString();
    return { type: 'api-keys.rate-limited', tenant_id: TENANT, actor: { type: 'system', id: null }, target: { type: 'ApiKey', id }, data: {}, dedupeKey: `test:${id}` };
  };

  it('two writers with their own memory racing on one occasion store one event: the database decides', async () => {
    const event = occasion();
    const writers = [0, 1].map(() => new OnceEvents(new EventLog({ retentionSeconds: 86400 })));
    await Promise.all(Array.from({ length: 20 }, (_, i) => writers[i % 2].write(event)));
    expect(await EventModel.collection.countDocuments({ dedupeKey: event.dedupeKey })).toBe(1);
  });

  it("one writer's burst of the same occasion makes one insert (its memory saves the work)", async () => {
    const log = new EventLog({ retentionSeconds: 86400 });
    let appends = 0;
    const counting = { append: (e: OnceEvent) => ((appends += 1), log.append(e)), storedDedupeKeys: (keys: readonly string[]) => log.storedDedupeKeys(keys) };
    const once = new OnceEvents(counting);
    const event = occasion();
    await Promise.all(Array.from({ length: 20 }, () => once.write(event)));
    await once.write(event);
    expect(appends).toBe(1);
  });

  it('more occasions than it remembers: a recently seen one is still not written again (least recently seen forgotten first)', async () => {
    const log = new EventLog({ retentionSeconds: 86400 });
    const appended: string[] = [];
    const counting = { append: (e: OnceEvent) => (appended.push(e.dedupeKey), log.append(e)), storedDedupeKeys: (keys: readonly string[]) => log.storedDedupeKeys(keys) };
    const once = new OnceEvents(counting, undefined, 10);
    const occasions = Array.from({ length: 25 }, occasion);
    const recent = occasions[0]!;
    for (const event of occasions) {
      await once.write(event);
      await once.write(recent); // seen all along (a key's 429s): it stays remembered
    }
    expect(appended.filter((key) => key === recent.dedupeKey)).toHaveLength(1);
    expect(appended).toHaveLength(25);
  });

  it("the service's system events writer, sign-in locks' too, logs a failed write through the service's logger", async () => {
    // The services as index.ts builds them (createServices before the logger), then the service with its logger.
    const services = createServices();
    const lines: string[] = [];
    const capture = new Writable({ write: (chunk, _enc, done) => void (lines.push(String(chunk)), done()) });
    const handle = await createService(app.config, await buildServiceSchema(services), { services, logger: createLogger({ logLevel: 'error' }, capture) });
    // A write the database refuses: the events collection's validator matches no event.
    await EventModel.db.db!.command({ collMod: 'events', validator: { type: 'never this type' } });
    try {
      await expect(services.onceEvents.write(occasion())).rejects.toThrow();
    } finally {
      await EventModel.db.db!.command({ collMod: 'events', validator: {} });
      await handle.stop();
    }
    // (The expiry sweeper, started with the service, may log its own refused writes through it too.)
    expect(lines.filter((line) => line.includes('system event not written') && line.includes('"eventType":"api-keys.rate-limited"'))).toHaveLength(1);
  });

  it('a failed write is logged and forgotten, so the next occasion tries again', async () => {
    const errors: unknown[] = [];
    let fail = true;
    const log = new EventLog({ retentionSeconds: 86400 });
    const flaky = { append: (e: OnceEvent) => (fail ? Promise.reject(new Error('database down')) : log.append(e)), storedDedupeKeys: (keys: readonly string[]) => log.storedDedupeKeys(keys) };
    const once = new OnceEvents(flaky, { error: (...args: unknown[]) => void errors.push(args) } as never);
    const event = occasion();
    once.raise(event);
    await eventually(async () => errors, 1);
    fail = false;
    await once.write(event);
    expect(await EventModel.collection.countDocuments({ dedupeKey: event.dedupeKey })).toBe(1);
  });
});
