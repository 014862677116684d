import { randomBytes } from 'node:crypto';
import { MongoClient, ObjectId } from 'mongodb';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { callService as call, startInstancesOnEngine, type InstancesOnEngine } from '../support/service-process.js';
import { eventually, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * Two instances on one standalone engine deliver 500 committed events to one
 * endpoint; one is SIGKILLed in the middle of delivering. Every event
 * arrives, signed; a duplicate comes only of a delivery the killed instance
 * held leased at the kill (retaken when its lease ends). The events are
 * inserted committed with the driver (the pipeline's contract: committed
 * events in the collection are delivered); the lead may switch this to
 * audited mutations once the outbox is merged.
 */
const ADMIN = { email: 'webhooks-admin@example.com', password: `W3bhook-${randomBytes(6).toString('hex')}!` };
const EVENTS = 500;
let instances: InstancesOnEngine;
let receiver: WebhookReceiver;
let client: MongoClient;

beforeAll(async () => {
  instances = await startInstancesOnEngine({ name: 'webhook-instances', database: 'webhooks_db', admin: ADMIN, jwtSecret: randomBytes(32).toString('hex'), oneAfterAnother: true });
  // A receiver that takes a little while: deliveries are in flight when the kill comes.
  receiver = await startWebhookReceiver(() => 200);
  client = await MongoClient.connect(`${instances.engine.uri}webhooks_db`);
}, 120_000);
afterAll(async () => {
  await client?.close();
  await receiver?.close();
  await instances?.close();
});

it('delivers every event once to the endpoint across a SIGKILL of one instance (duplicates only of its leased deliveries), all signed', async () => {
  const [first, second] = instances.services as [typeof instances.services[0], typeof instances.services[0]];
  const login = await call(first, 'POST', '/api/v1/auth/login', { body: ADMIN });
  expect(login.status).toBe(200);
  const made = await call(first, 'POST', '/api/v1/webhooks', { token: login.body.accessToken, body: { url: receiver.url, events: ['menus.create'] } });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  receiver.setSecret(made.body.secret);
  receiver.answer(() => 200);

  const events = client.db().collection('events');
  const ids: string[] = [];
  const insertBatch = async (count: number) => {
    const now = new Date();
    const batch = Array.from({ length: count }, () => {
      const _id = new ObjectId();
      ids.push(_id.toHexString());
      return {
        _id, type: 'menus.create', tenant_id: 'acme', occurredAt: now, actor: { type: 'user', id: null }, target: { type: 'MealMenu', id: new ObjectId().toHexString() },
        data: { changes: ['name'] }, state: 'committed', committedAt: now, expireAt: new Date(now.getTime() + 3_600_000),
      };
    });
    await events.insertMany(batch);
  };
  for (let i = 0; i < EVENTS / 2; i += 50) await insertBatch(50);
  // Both instances are delivering: kill one in the middle, counting what it held leased.
  await receiver.waitFor(100, 30_000);
  const killedPid = second.child.pid!;
  second.child.kill('SIGKILL');
  const leasedByKilled = await client.db().collection('webhookdeliveries').countDocuments({ status: 'pending', leaseOwner: { $regex: `^${killedPid}-` } });
  for (let i = EVENTS / 2; i < EVENTS; i += 50) await insertBatch(50);

  // A killed instance's leases are retaken when they end (timeout + 20 s).
  await eventually(async () => new Set(receiver.received.map((r) => r.id)).size >= EVENTS, 90_000);
  const received = receiver.received;
  const distinct = new Set(received.map((r) => r.id));
  expect([...distinct].sort()).toEqual([...ids].sort());
  expect(received.every((r) => r.signatureValid)).toBe(true);
  expect(received.length - distinct.size).toBeLessThanOrEqual(leasedByKilled);
  // A receiver has a POST a moment before its sender records it delivered (and a send the killed
  // instance made but did not record is sent again once its lease ends).
  const deliveries = client.db().collection('webhookdeliveries');
  await eventually(async () => (await deliveries.countDocuments({ status: 'delivered' })) >= EVENTS, 60_000);
  expect(await deliveries.countDocuments({ status: 'delivered' })).toBe(EVENTS);
  expect(await deliveries.countDocuments({})).toBe(EVENTS);
}, 180_000);
