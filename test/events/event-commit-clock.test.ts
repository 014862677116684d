import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { callService as call, skewedClockEnv, startInstancesOnEngine, type InstancesOnEngine, type ServiceProcess } from '../support/service-process.js';
import { sseTransport, until, type Stream } from '../subscriptions/stream-clients.js';

/**
 * Events are ordered by the database's clock: three instances on one engine,
 * one on time, one whose clock runs 30 s ahead and one 30 s behind. A
 * subscriber on the first gets every menus.create written through all three
 * (a writer's clock used to order the tail: the one ahead pushed it past the
 * others' events, and the one behind wrote below it), and every stored
 * event's committedAt is the database's time, whatever its writer's clock.
 */
const ADMIN = { email: 'clock-admin@example.com', password: `Cl0ck-${randomBytes(6).toString('hex')}!` };
const SKEW_MS = 30_000;
let instances: InstancesOnEngine;
let ahead: ServiceProcess;
let behind: ServiceProcess;
let client: MongoClient;
let stream: Stream | undefined;

beforeAll(async () => {
  instances = await startInstancesOnEngine({ name: 'event-clock', database: 'clock_db', admin: ADMIN, jwtSecret: randomBytes(32).toString('hex'), count: 1 });
  ahead = await instances.start(skewedClockEnv(SKEW_MS));
  behind = await instances.start(skewedClockEnv(-SKEW_MS));
  client = await MongoClient.connect(`${instances.engine.uri}clock_db`);
}, 120_000);
afterAll(async () => {
  stream?.dispose();
  await client?.close();
  await instances?.close();
});

it("a subscriber sees the events of instances whose clocks are off, and committedAt is the database's clock", async () => {
  const [onTime] = instances.services as [ServiceProcess];
  const login = await call(onTime, 'POST', '/api/v1/auth/login', { body: ADMIN });
  expect(login.status).toBe(200);
  const token = login.body.accessToken as string;
  stream = sseTransport.open(onTime.baseUrl, `Bearer ${token}`, 'subscription { events(types: ["menus.create"]) { id type target { id } } }');
  const createMenu = async (via: ServiceProcess, name: string) => {
    const made = await call(via, 'POST', '/api/v1/restaurant/meal-menus', { token, body: { name, date: '2026-12-01', mealType: 'lunch', tenant_id: 'acme' } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    return made.body.id as string;
  };
  // The stream is live once a probe written on time arrives (the tail starts at its first listener).
  const probe = await createMenu(onTime, 'Probe');
  await until(() => stream!.events.some((event) => event.target.id === probe) || stream!.isEnded(), 'the probe event');
  expect(stream.errors).toEqual([]);

  const written = [await createMenu(ahead, 'Ahead'), await createMenu(onTime, 'On time'), await createMenu(behind, 'Behind'), await createMenu(onTime, 'On time again')];
  await until(() => written.every((id) => stream!.events.some((event) => event.target.id === id)) || stream!.isEnded(), 'every written event', 15_000);
  expect(stream.errors).toEqual([]);

  const events = await client.db().collection('events').find({ type: 'menus.create' }).toArray();
  expect(events).toHaveLength(5);
  for (const event of events) {
    expect(event['state']).toBe('committed');
    // This process's clock and the engine's are one; the writers' were 30 s off.
    expect(Math.abs((event['committedAt'] as Date).getTime() - Date.now())).toBeLessThan(SKEW_MS / 2);
  }
}, 60_000);
