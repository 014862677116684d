import { Writable } from 'node:stream';
import { ObjectId } from 'mongodb';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventLog } from '../../src/events/index.js';
import { WebhookDeliveryModel } from '../../src/webhooks/webhook.model.js';
import { apiCase, runCases, type Operation } from '../support/surfaces.js';
import { eventually, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { DELIVERY_FIELDS, makeWebhook, useWebhookApp } from './webhook-fixtures.js';

/**
 * Delivery (contract "Events and webhooks", Standard Webhooks): committed
 * events reach the matching endpoints of their tenant (and platform
 * endpoints), signed; failures are retried on the schedule, then failed;
 * an endpoint failing for the disable period is disabled with a
 * webhooks.disabled event; a hanging receiver is cut at the timeout and
 * holds no API request. Events are appended with the driver-level EventLog
 * (the pipeline's contract: committed events in the collection are delivered).
 */
const logLines: string[] = [];
const logStream = new Writable({ write: (chunk, _enc, done) => void (logLines.push(String(chunk)), done()) });
let skewMs = 0;
const world = useWebhookApp({
  logger: pino({ level: 'debug' }, logStream),
  webhooks: { retryScheduleMs: [100, 100], timeoutMs: 1000, pollMs: 50, now: () => Date.now() + skewMs },
});
const log = new EventLog({ retentionSeconds: 3600 });
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(() => receiver?.close());

const deliveriesOf = async (id: string) =>
  (await world.app.rest('GET', `/webhooks/${id}/deliveries?limit=100`, { token: world.admin.token })).body.items as any[];
const menuEvent = (tenant: string | null, type = 'menus.create') =>
  log.append({ type, tenant_id: tenant, actor: { type: 'user', id: world.admin.id }, target: { type: 'MealMenu', id: new ObjectId().toHexString() }, data: { changes: ['name'] } });

/**
 * A fresh receiver answering by `plan`, with an endpoint of the tenant administrator pointing at it.
 * It listens for menus.create (the events these tests append) unless told: with `*` it would also
 * get the webhooks.create events of the endpoints made after it.
 */
async function endpoint(plan: (n: number) => number | 'hang', events: string[] = ['menus.create'], user = world.admin) {
  const own = await startWebhookReceiver(plan);
  const hook = await makeWebhook(world.app, user, { url: own.url, events });
  own.setSecret(hook.secret);
  return { hook, receiver: own };
}

describe('fan-out and signing', () => {
  it("delivers a committed event to its tenant's matching endpoints and platform endpoints, signed, and to no other", async () => {
    const mine = await endpoint(() => 200, ['menus.create']);
    const otherType = await endpoint(() => 200, ['api-keys.revoke']);
    const otherTenant = await endpoint(() => 200, ['*'], world.otherAdmin);
    const platform = await endpoint(() => 200, ['menus.create'], world.platform);
    const event = await menuEvent('acme');
    const [got] = await mine.receiver.waitFor(1);
    const [platformGot] = await platform.receiver.waitFor(1);
    expect(got!.signatureValid).toBe(true);
    expect(platformGot!.signatureValid).toBe(true);
    expect(got!.id).toBe(event!.id);
    expect(Math.abs(Number(got!.timestamp) - Date.now() / 1000)).toBeLessThan(60);
    expect(got!.headers['content-type']).toBe('application/json');
    expect(got!.headers['user-agent']).toMatch(/admin-gateway/);
    expect(got!.event).toEqual({
      id: event!.id,
      type: 'menus.create',
      tenant_id: 'acme',
      occurredAt: expect.any(String),
      actor: { type: 'user', id: world.admin.id },
      target: { type: 'MealMenu', id: expect.any(String) },
      data: { changes: ['name'] },
    });
    const [delivery] = await eventually(async () => {
      const list = await deliveriesOf(mine.hook.id);
      return list[0]?.status === 'delivered' && list;
    });
    expect(delivery).toMatchObject({ eventId: event!.id, type: 'menus.create', attempts: 1, status: 'delivered', responseStatus: 200, nextAttemptAt: null, error: null });
    // The fan-out inserts without mongoose documents: the stored record still has every field of the model.
    const stored = await world.app.db.collection('webhookdeliveries').findOne({ eventId: event!.id, webhookId: mine.hook.id });
    expect(Object.keys(stored!).sort()).toEqual(Object.keys(WebhookDeliveryModel.schema.paths).sort());
    expect(stored!.createdAt).toBeInstanceOf(Date);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(otherType.receiver.received).toHaveLength(0);
    // Its own tenant's events (its own webhooks.create) it may get; acme's never.
    expect(otherTenant.receiver.received.filter((r) => r.event.tenant_id !== 'globex')).toEqual([]);
    for (const r of [mine, otherType, otherTenant, platform]) await r.receiver.close();
  });
});

describe('retries', () => {
  it('a receiver failing twice then answering 200: attempts 3, delivered', async () => {
    const { hook, receiver: own } = await endpoint((n) => (n < 2 ? 503 : 200));
    await menuEvent('acme');
    const received = await own.waitFor(3);
    expect(received.every((r) => r.signatureValid)).toBe(true);
    expect(new Set(received.map((r) => r.id)).size).toBe(1);
    const delivery = await eventually(async () => (await deliveriesOf(hook.id)).find((d) => d.status === 'delivered'));
    expect(delivery).toMatchObject({ attempts: 3, responseStatus: 200 });
    // The success ends the endpoint's failing run.
    const endpointNow = await world.app.rest('GET', `/webhooks/${hook.id}`, { token: world.admin.token });
    expect(endpointNow.body).toMatchObject({ enabled: true, failingSince: null });
    await own.close();
  });

  it('a redirect is a failure (not followed); always failing ends failed after the schedule; a manual retry gives one more attempt', async () => {
    const { hook, receiver: own } = await endpoint(() => 302);
    await menuEvent('acme');
    const failed = await eventually(async () => (await deliveriesOf(hook.id)).find((d) => d.status === 'failed'));
    expect(failed).toMatchObject({ attempts: 3, responseStatus: 302, nextAttemptAt: null, error: 'the endpoint answered 302' });
    expect(own.received).toHaveLength(3);
    own.answer(() => 204);
    const retried = await world.app.rest('POST', `/webhooks/${hook.id}/deliveries/${failed.id}/retry`, { token: world.admin.token });
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({ id: failed.id, status: 'pending' });
    const delivered = await eventually(async () => (await deliveriesOf(hook.id)).find((d) => d.id === failed.id && d.status === 'delivered'));
    expect(delivered).toMatchObject({ attempts: 4, responseStatus: 204 });
    await own.close();
  });
});

describe('the disable rule', () => {
  it('an endpoint whose deliveries failed with no success for the period is disabled, with a webhooks.disabled event', async () => {
    const { hook, receiver: own } = await endpoint(() => 500);
    await world.app.rest('POST', `/webhooks/${hook.id}/test`, { token: world.admin.token });
    await eventually(async () => (await deliveriesOf(hook.id))[0]?.attempts >= 1);
    const failing = await world.app.rest('GET', `/webhooks/${hook.id}`, { token: world.admin.token });
    expect(failing.body).toMatchObject({ enabled: true, failingSince: expect.any(String) });
    skewMs += 6 * 24 * 3600 * 1000;
    try {
      await world.app.rest('POST', `/webhooks/${hook.id}/test`, { token: world.admin.token });
      const disabled = await eventually(async () => {
        const answer = await world.app.rest('GET', `/webhooks/${hook.id}`, { token: world.admin.token });
        return answer.body.enabled === false && answer.body;
      });
      expect(disabled.disabledReason).toMatch(/failed/);
      const events = await world.app.db.collection('events').find({ type: 'webhooks.disabled', 'target.id': hook.id }).toArray();
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ tenant_id: 'acme', actor: { type: 'system', id: null }, state: 'committed' });
    } finally {
      skewMs = 0;
      await own.close();
    }
  });
});

describe('a receiver that never answers', () => {
  it('is cut at the timeout, and an API call meanwhile answers normally', async () => {
    const { hook, receiver: own } = await endpoint(() => 'hang');
    await menuEvent('acme');
    await own.waitFor(1);
    const during = await world.app.rest('GET', '/webhooks', { token: world.admin.token });
    expect(during.status).toBe(200);
    const cut = await eventually(async () => (await deliveriesOf(hook.id)).find((d) => d.attempts >= 1));
    expect(cut).toMatchObject({ responseStatus: null, error: 'no answer within 1000 ms' });
    await own.close();
  });
});

const sendTest = (id: string): Operation => ({
  rest: { method: 'POST', path: `/webhooks/${id}/test` },
  graphql: { query: `mutation($id: ID!) { testWebhook(id: $id) { id eventId delivery { ${DELIVERY_FIELDS} } } }`, variables: { id } },
});
const listDeliveries = (id: string): Operation => ({
  rest: { method: 'GET', path: `/webhooks/${id}/deliveries` },
  graphql: { query: `query($id: ID!) { webhookDeliveries(id: $id) { items { ${DELIVERY_FIELDS} } nextCursor } }`, variables: { id } },
});
const retry = (id: string, deliveryId: string): Operation => ({
  rest: { method: 'POST', path: `/webhooks/${id}/deliveries/${deliveryId}/retry` },
  graphql: { query: `mutation($id: ID!, $d: ID!) { retryWebhookDelivery(id: $id, deliveryId: $d) { ${DELIVERY_FIELDS} } }`, variables: { id, d: deliveryId } },
});
let retriedHook: { id: string } | undefined;
const hookOf = (user: () => typeof world.admin) => async () => makeWebhook(world.app, user(), { url: receiver.url, events: ['users.create'] });

runCases('sending a test event (POST /webhooks/{id}/test, testWebhook)', () => world.app, [
  apiCase({
    name: 'sends webhooks.test to this endpoint only, signed',
    arrange: async () => {
      const hook = await hookOf(() => world.admin)();
      receiver.setSecret(hook.secret);
      return { ...hook, already: receiver.received.length };
    },
    caller: () => world.admin,
    operation: ({ id }) => sendTest(id),
    expect: {
      status: 200,
      data: async (answer, { id, already }) => {
        expect(answer).toMatchObject({ id, eventId: expect.stringMatching(/^[0-9a-f]{24}$/), delivery: { webhookId: id, type: 'webhooks.test', status: 'pending' } });
        const got = await receiver.waitFor(already + 1);
        const mine = got.find((r) => r.id === answer.eventId)!;
        expect(mine.event).toMatchObject({ type: 'webhooks.test', tenant_id: 'acme', target: { type: 'Webhook', id } });
        expect(mine.signatureValid).toBe(true);
      },
    },
  }),
  apiCase({ name: "another tenant's endpoint is 404", arrange: hookOf(() => world.otherAdmin), caller: () => world.admin, operation: ({ id }) => sendTest(id), expect: { status: 404 } }),
  apiCase({ name: 'is 403 without webhooks:manage', arrange: hookOf(() => world.admin), caller: () => world.member, operation: ({ id }) => sendTest(id), expect: { status: 403 } }),
]);

runCases('listing deliveries and retrying one (GET /webhooks/{id}/deliveries, POST .../retry)', () => world.app, [
  apiCase({
    name: 'lists the deliveries of an endpoint, newest first',
    arrange: async () => {
      const hook = await hookOf(() => world.admin)();
      await world.app.rest('POST', `/webhooks/${hook.id}/test`, { token: world.admin.token });
      return hook;
    },
    caller: () => world.admin,
    operation: ({ id }) => listDeliveries(id),
    expect: { status: 200, data: (page, { id }) => expect(page.items[0]).toMatchObject({ webhookId: id, type: 'webhooks.test' }) },
  }),
  apiCase({ name: "another tenant's endpoint's deliveries are 404", arrange: hookOf(() => world.otherAdmin), caller: () => world.admin, operation: ({ id }) => listDeliveries(id), expect: { status: 404 } }),
  apiCase({
    name: 'retrying a delivery that is not failed is 409 (deliveryId retryFailedOnly)',
    arrange: async () => {
      const hook = await hookOf(() => world.admin)();
      const sent = await world.app.rest('POST', `/webhooks/${hook.id}/test`, { token: world.admin.token });
      return { id: hook.id, deliveryId: sent.body.delivery.id };
    },
    caller: () => world.admin,
    operation: ({ id, deliveryId }) => retry(id, deliveryId),
    expect: { status: 409, fieldErrors: [{ field: 'deliveryId', rule: 'retryFailedOnly' }] },
  }),
  apiCase({
    name: 'an unknown delivery is 404, a malformed one 400',
    arrange: hookOf(() => world.admin),
    caller: () => world.admin,
    operation: ({ id }) => retry(id, new ObjectId().toHexString()),
    expect: { status: 404 },
  }),
  apiCase({
    name: 'retrying a failed delivery is recorded and announced with the delivery as its target (webhooks.delivery-retry)',
    arrange: async () => {
      // One endpoint for both surfaces: the tenant's 20 are nearly used by the cases above.
      const hook = (retriedHook ??= await hookOf(() => world.admin)());
      const { insertedId } = await world.app.db.collection('webhookdeliveries').insertOne({
        webhookId: hook.id, eventId: new ObjectId().toHexString(), type: 'users.create', tenant_id: 'acme', attempts: 7,
        status: 'failed', nextAttemptAt: null, payload: {}, createdAt: new Date(), updatedAt: new Date(),
      });
      return { id: hook.id, deliveryId: insertedId.toHexString() };
    },
    caller: () => world.admin,
    operation: ({ id, deliveryId }) => retry(id, deliveryId),
    expect: {
      status: 200,
      data: async (answer, { id, deliveryId }) => {
        expect(answer).toMatchObject({ id: deliveryId, webhookId: id, status: 'pending' });
        const events = await eventually(async () => {
          const found = await world.app.db.collection('events').find({ type: 'webhooks.delivery-retry', 'target.id': deliveryId, state: 'committed' }).toArray();
          return found.length > 0 && found;
        });
        expect(events.map((event) => event.target)).toEqual([{ type: 'WebhookDelivery', id: deliveryId }]);
      },
    },
  }),
  apiCase({ name: 'a malformed delivery id is 400', arrange: hookOf(() => world.admin), caller: () => world.admin, operation: ({ id }) => retry(id, 'x'), expect: { status: 400, fieldErrors: [{ field: 'deliveryId', rule: 'isMongoId' }] } }),
]);

describe('secrets', () => {
  it('a signing secret is never logged, stored in clear, put in an event or a delivery, or answered again', async () => {
    const { hook, receiver: own } = await endpoint(() => 500);
    await world.app.rest('POST', `/webhooks/${hook.id}/test`, { token: world.admin.token });
    await eventually(async () => (await deliveriesOf(hook.id))[0]?.attempts >= 1);
    const bare = hook.secret.slice('whsec_'.length);
    expect(logLines.join('')).not.toContain(bare);
    for (const name of ['webhooks', 'webhookdeliveries', 'events', 'auditevents']) {
      const all = JSON.stringify(await world.app.db.collection(name).find().toArray());
      expect(all, name).not.toContain(bare);
    }
    const reads = [
      await world.app.rest('GET', `/webhooks/${hook.id}`, { token: world.admin.token }),
      await world.app.rest('GET', '/webhooks?limit=100', { token: world.admin.token }),
      await world.app.rest('GET', `/webhooks/${hook.id}/deliveries`, { token: world.admin.token }),
    ];
    for (const read of reads) expect(JSON.stringify(read.body)).not.toContain(bare);
    await own.close();
  });
});
