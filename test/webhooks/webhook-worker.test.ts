import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { ObjectId } from 'mongodb';
import { pino } from 'pino';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { EventLog } from '../../src/events/index.js';
import { dueDeliveries } from '../../src/webhooks/webhook-worker.js';
import { WebhookDeliveryModel, WebhookModel } from '../../src/webhooks/webhook.model.js';
import { callOperation, SURFACES, type Operation } from '../support/surfaces.js';
import type { TestApp, TestUser } from '../support/test-app.js';
import { eventually, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { DELIVERY_FIELDS, makeWebhook, useWebhookApp, WEBHOOK_FIELDS } from './webhook-fixtures.js';

/**
 * The delivery worker's rules where instances, tenants and failures meet:
 * a fair share of the send pool per endpoint and per tenant, a fan-out that
 * fails loses nothing, leases judged by the database's clock, deliveries held
 * (not failed) while their endpoint is paused, and kept no longer than the
 * event retention. Events are appended with the driver-level EventLog.
 */
const log = new EventLog({ retentionSeconds: 3600 });
const menuEvent = (user: TestUser) =>
  log.append({ type: 'menus.create', tenant_id: user.tenantId ?? null, actor: { type: 'user', id: user.id }, target: { type: 'MealMenu', id: new ObjectId().toHexString() }, data: { changes: ['name'] } });

/**
 * A delivery document as the fan-out writes it: pending, never attempted, of
 * `tenant` to `webhookId`, due at `due` and leased as `lease` says (to nobody by default).
 */
function rawDelivery(webhookId: string, tenant: string | null, due: Date, lease: { leaseUntil: Date; leaseOwner: string | null } = { leaseUntil: new Date(0), leaseOwner: null }) {
  const eventId = new ObjectId().toHexString();
  return {
    _id: new ObjectId(),
    webhookId,
    eventId,
    type: 'menus.create',
    tenant_id: tenant,
    status: 'pending',
    attempts: 0,
    nextAttemptAt: due,
    ...lease,
    manualRetry: false,
    expireAt: new Date(Date.now() + 3_600_000),
    payload: { id: eventId, type: 'menus.create' },
  };
}

const receivers: WebhookReceiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

async function endpoint(app: TestApp, user: TestUser, plan: (n: number) => number | 'hang') {
  const receiver = await startWebhookReceiver(plan);
  receivers.push(receiver);
  const hook = await makeWebhook(app, user, { url: receiver.url, events: ['menus.create'] });
  receiver.setSecret(hook.secret);
  return { hook, receiver };
}

/**
 * The worker's claims from now on, through the commands they make on the deliveries (the
 * driver's own methods, spied on and called through): a claim is one findOneAndUpdate (room for
 * one) or a read of candidates then one updateMany leasing several.
 */
function watchClaims() {
  const collection = WebhookDeliveryModel.collection;
  const single = vi.spyOn(collection, 'findOneAndUpdate');
  const reads = vi.spyOn(collection, 'find');
  const leases = vi.spyOn(collection, 'updateMany');
  // A claim's read of candidates filters on the status; its read of its own leases (after a race) does not.
  const candidateReads = () => reads.mock.calls.filter(([filter]) => (filter as { status?: unknown } | undefined)?.status !== undefined).length;
  const settled = async (spy: { mock: { results: { value: unknown }[] } }) => Promise.all(spy.mock.results.map((result) => result.value));
  return {
    made: () => single.mock.calls.length + candidateReads(),
    /** Each claim that leased something, with how many it leased. */
    async took(): Promise<number[]> {
      const singles = (await settled(single)).filter((delivery) => delivery !== null).map(() => 1);
      const several = (await settled(leases)).map((result) => (result as { modifiedCount: number }).modifiedCount).filter((n) => n > 0);
      return [...singles, ...several];
    },
    restore() {
      for (const spy of [single, reads, leases]) spy.mockRestore();
    },
  };
}

const deliveriesOf = async (app: TestApp, user: TestUser, id: string) =>
  (await app.rest('GET', `/webhooks/${id}/deliveries?limit=100`, { token: user.token })).body.items as any[];

describe('the send pool is shared fairly (4 sends, 2 per endpoint, 3 per tenant; sends hang 60 s)', () => {
  const world = useWebhookApp({ webhooks: { concurrency: 4, perEndpoint: 2, perTenant: 3, timeoutMs: 60_000, pollMs: 20 } });

  it("another tenant's deliveries go out while one tenant's endpoints hang, which hold no more than their share", async () => {
    const first = await endpoint(world.app, world.admin, () => 'hang');
    for (let i = 0; i < 6; i += 1) await menuEvent(world.admin);
    await first.receiver.waitFor(2);
    // A second hanging endpoint of the same tenant: the events reach both.
    const second = await endpoint(world.app, world.admin, () => 'hang');
    for (let i = 0; i < 6; i += 1) await menuEvent(world.admin);
    await second.receiver.waitFor(1);
    const healthy = await endpoint(world.app, world.otherAdmin, () => 200);
    const sent = [];
    for (let i = 0; i < 5; i += 1) sent.push((await menuEvent(world.otherAdmin))!.id);
    const got = await healthy.receiver.waitFor(5, 15_000);
    expect(got.map((received) => received.id).sort()).toEqual(sent.sort());
    expect(got.every((received) => received.signatureValid)).toBe(true);
    // Still hanging: one endpoint at its share, the tenant at its share.
    expect(first.receiver.received).toHaveLength(2);
    expect(second.receiver.received).toHaveLength(1);
    // Those in flight are due again only when their leases end (claims do not scan past them). The healthy
    // endpoint's outcomes are recorded after its receiver answered: waited for, so that only the hanging ones are in flight.
    const deliveries = world.app.db.collection('webhookdeliveries');
    await eventually(async () => (await deliveries.countDocuments({ webhookId: healthy.hook.id, status: 'delivered' })) === 5);
    const inFlight = await deliveries.find({ leaseOwner: { $ne: null } }).toArray();
    expect(inFlight).toHaveLength(3);
    for (const delivery of inFlight) expect(delivery.nextAttemptAt).toEqual(delivery.leaseUntil);
    await first.receiver.close();
    await second.receiver.close();
  });
});

describe('a fan-out the database refuses', () => {
  const lines: string[] = [];
  const sink = new Writable({ write: (chunk, _enc, done) => void (lines.push(...String(chunk).split('\n').filter(Boolean)), done()) });
  const world = useWebhookApp({ logger: pino({ level: 'debug' }, sink), webhooks: { pollMs: 20 } });
  const messages = () => lines.map((line) => JSON.parse(line) as { level: number; msg: string });

  it('loses no event: it catches up from the watermark, also past 600 events committed in one millisecond, and logs the outage once', async () => {
    const { receiver } = await endpoint(world.app, world.admin, () => 200);
    const before = (await menuEvent(world.admin))!.id;
    await receiver.waitFor(1);
    // Every delivery insert now fails validation (121): a real refusal by the database.
    await world.app.db.command({ collMod: 'webhookdeliveries', validator: { type: 'no event has this type' } });
    const during = [(await menuEvent(world.admin))!.id, (await menuEvent(world.admin))!.id];
    const events = world.app.db.collection('events');
    const model = await events.findOne({ _id: new ObjectId(during[1]) });
    const sameMillisecond = Array.from({ length: 600 }, () => ({ ...model, _id: new ObjectId(), target: { type: 'MealMenu', id: new ObjectId().toHexString() } }));
    await events.insertMany(sameMillisecond);
    // Retried each round while refused, logged as an error once.
    await eventually(async () => messages().filter((m) => m.msg.startsWith('webhook fan-out failed')).length >= 4);
    await world.app.db.command({ collMod: 'webhookdeliveries', validator: {} });
    const after = (await menuEvent(world.admin))!.id;
    const got = await receiver.waitFor(1 + 2 + 600 + 1, 30_000);
    const ids = new Set(got.map((received) => received.id));
    for (const id of [before, ...during, ...sameMillisecond.map((event) => event._id.toHexString()), after]) expect(ids.has(id), id).toBe(true);
    expect(ids.size).toBe(got.length);
    const fanOut = messages().filter((m) => m.msg.startsWith('webhook fan-out failed'));
    expect(fanOut.filter((m) => m.level >= 50)).toHaveLength(1);
    expect(messages().some((m) => m.msg === 'webhook fan-out recovered')).toBe(true);
  });
});

describe("leases by the database's clock", () => {
  // This instance's clock runs two minutes ahead: past any lease another instance holds.
  const world = useWebhookApp({ webhooks: { pollMs: 20, now: () => Date.now() + 120_000 } });

  it("an instance whose clock runs ahead does not take a delivery another instance holds", async () => {
    const { hook, receiver } = await endpoint(world.app, world.admin, () => 200);
    const deliveries = world.app.db.collection('webhookdeliveries');
    const held = rawDelivery(hook.id, 'acme', new Date(Date.now() - 1000), { leaseUntil: new Date(Date.now() + 60_000), leaseOwner: 'another-instance' });
    const free = rawDelivery(hook.id, 'acme', new Date());
    await deliveries.insertMany([held, free]);
    await receiver.waitFor(1);
    await eventually(async () => (await deliveries.findOne({ _id: free._id }))?.status === 'delivered');
    expect(receiver.received.map((received) => received.id)).toEqual([free.eventId]);
    expect(await deliveries.findOne({ _id: held._id })).toMatchObject({ status: 'pending', attempts: 0, leaseOwner: 'another-instance' });
  });
});

const pause = (id: string, enabled: boolean): Operation => ({
  rest: { method: 'PATCH', path: `/webhooks/${id}`, body: { enabled } },
  graphql: { query: `mutation($id: ID!, $enabled: Boolean) { updateWebhook(id: $id, enabled: $enabled) { ${WEBHOOK_FIELDS} } }`, variables: { id, enabled } },
});
const deliveries = (id: string): Operation => ({
  rest: { method: 'GET', path: `/webhooks/${id}/deliveries` },
  graphql: { query: `query($id: ID!) { webhookDeliveries(id: $id) { items { ${DELIVERY_FIELDS} } nextCursor } }`, variables: { id } },
});

describe('a paused endpoint (updateWebhook enabled: false) and the event retention (EVENT_RETENTION=2h)', () => {
  const world = useWebhookApp({ env: { EVENT_RETENTION: '2h' }, webhooks: { retryScheduleMs: [300, 300], pollMs: 20 } });

  describe.each(SURFACES)('over %s', (surface) => {
    it('holds its pending deliveries (pending, not due) and sends them once enabled again', async () => {
      let failing = true;
      const { hook, receiver } = await endpoint(world.app, world.admin, () => (failing ? 503 : 200));
      const event = (await menuEvent(world.admin))!;
      await receiver.waitFor(1);
      const paused = await callOperation(world.app, surface, pause(hook.id, false), { token: world.admin.token });
      expect(paused.data).toMatchObject({ enabled: false });
      failing = false;
      // The retry comes due while paused: held, with why.
      const held = await eventually(async () => {
        const listed = await callOperation(world.app, surface, deliveries(hook.id), { token: world.admin.token });
        const [only] = (listed.data as { items: any[] }).items;
        return only?.nextAttemptAt === null && only;
      });
      expect(held).toMatchObject({ eventId: event.id, status: 'pending', attempts: 1, nextAttemptAt: null, error: expect.stringMatching(/^held: the endpoint is disabled/) });
      expect(receiver.received).toHaveLength(1);
      const resumed = await callOperation(world.app, surface, pause(hook.id, true), { token: world.admin.token });
      expect(resumed.data).toMatchObject({ enabled: true });
      const [, second] = await receiver.waitFor(2);
      expect(second).toMatchObject({ id: event.id, signatureValid: true });
      const delivered = await eventually(async () => {
        const [only] = await deliveriesOf(world.app, world.admin, hook.id);
        return only?.status === 'delivered' && only;
      });
      expect(delivered).toMatchObject({ attempts: 2, responseStatus: 200, error: null });
    });
  });

  it('keeps a delivery EVENT_RETENTION after its next attempt is due, or after its last one: a TTL index on expireAt', async () => {
    const { hook, receiver } = await endpoint(world.app, world.admin, (n) => (n === 0 ? 503 : 200));
    await menuEvent(world.admin);
    const collection = world.app.db.collection('webhookdeliveries');
    const retrying = await eventually(async () => {
      const found = await collection.findOne({ webhookId: hook.id });
      return found?.attempts === 1 && found;
    });
    // Both written in one update by the database's clock: exactly the retention apart.
    expect((retrying.expireAt as Date).getTime() - (retrying.nextAttemptAt as Date).getTime()).toBe(2 * 3600 * 1000);
    await receiver.waitFor(2);
    const delivered = await eventually(async () => {
      const found = await collection.findOne({ webhookId: hook.id });
      return found?.status === 'delivered' && found;
    });
    const kept = (delivered.expireAt as Date).getTime() - (delivered.lastAttemptAt as Date).getTime();
    expect(Math.abs(kept - 2 * 3600 * 1000)).toBeLessThan(1000);
    const indexes = await collection.indexes();
    expect(indexes.find((index) => index.key.expireAt === 1)).toMatchObject({ expireAfterSeconds: 0 });
  });
});

describe('connections to an endpoint', () => {
  const world = useWebhookApp({ webhooks: { perEndpoint: 2, pollMs: 20 } });

  it('are kept alive between deliveries: 12 events one after another open at most the endpoint\'s share of connections', async () => {
    const { receiver } = await endpoint(world.app, world.admin, () => 200);
    for (let i = 0; i < 12; i += 1) {
      await menuEvent(world.admin);
      await receiver.waitFor(i + 1);
    }
    expect(receiver.received.every((received) => received.signatureValid)).toBe(true);
    expect(receiver.connections()).toBeLessThanOrEqual(2);
  });
});

describe("a tenant's backlog behind endpoints that hang (2 sends per tenant)", () => {
  const world = useWebhookApp({ webhooks: { concurrency: 4, perEndpoint: 2, perTenant: 2, timeoutMs: 60_000, pollMs: 20 } });

  it("is not scanned again at each fan-out and poll while the tenant's share is taken: at most one claim a second then, and another tenant's event still goes out at once", async () => {
    const hanging = await endpoint(world.app, world.admin, () => 'hang');
    for (let i = 0; i < 10; i += 1) await menuEvent(world.admin);
    await hanging.receiver.waitFor(2);
    const claims = watchClaims();
    try {
      // 20 more events of the full tenant over about 1.5 s: 20 fan-outs and some 75 polls.
      for (let i = 0; i < 20; i += 1) {
        await menuEvent(world.admin);
        await new Promise((resolve) => setTimeout(resolve, 75));
      }
      expect(claims.made()).toBeLessThanOrEqual(3);
      // Another tenant's delivery has room: its fan-out sends it at once, leased as it is written, with no claim
      // to wait for behind the full tenant's empty ones (each of three in a row).
      const healthy = await endpoint(world.app, world.otherAdmin, () => 200);
      for (let i = 1; i <= 3; i += 1) {
        await menuEvent(world.otherAdmin);
        await healthy.receiver.waitFor(i);
      }
      expect(await claims.took()).toEqual([]);
    } finally {
      claims.restore();
      await hanging.receiver.close();
    }
  });
});

describe("a backlog behind endpoints at their share (1 send each, answering after 50 ms)", () => {
  const world = useWebhookApp({ webhooks: { concurrency: 4, perEndpoint: 1, pollMs: 20 } });

  it('is claimed without a scan of the backlog per delivery: a claim that took some does not make every share full claim scan it again', async () => {
    // The receiver holds every request until the backlog is written, then answers each 50 ms after it came (or after the gate opened).
    let open = false;
    const held: ServerResponse[] = [];
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => (open ? setTimeout(() => res.writeHead(204).end(), 50) : held.push(res)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const hooks = [await makeWebhook(world.app, world.admin, { url, events: ['menus.create'] }), await makeWebhook(world.app, world.admin, { url, events: ['menus.create'] })];
    let claims: ReturnType<typeof watchClaims> | undefined;
    try {
      const events: string[] = [];
      for (let i = 0; i < 12; i += 1) events.push((await menuEvent(world.admin))!.id);
      const deliveries = world.app.db.collection('webhookdeliveries');
      // The first event's two deliveries are sent (held); the other 22 wait, every share full.
      await eventually(async () => held.length === 2 && (await deliveries.countDocuments({ eventId: { $in: events } })) === 24);
      claims = watchClaims();
      open = true;
      for (const res of held.splice(0)) setTimeout(() => res.writeHead(204).end(), 50);
      await eventually(async () => (await deliveries.countDocuments({ eventId: { $in: events }, status: 'delivered' })) === 24, 20_000);
      const took = await claims.took();
      expect(took.reduce((sum, n) => sum + n, 0)).toBe(22);
      // Claims that found nothing: once a second with every share full (and at a new share or news), not once per delivery.
      expect(claims.made() - took.length).toBeLessThanOrEqual(6);
    } finally {
      claims?.restore();
      open = true;
      for (const res of held.splice(0)) res.writeHead(204).end();
      for (const hook of hooks) await world.app.rest('DELETE', `/webhooks/${hook.id}`, { token: world.admin.token });
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('a delivery of an event just committed', () => {
  const world = useWebhookApp({ webhooks: { pollMs: 20 } });

  it('goes out leased by the fan-out that wrote it, with the endpoint it read: no claim and no endpoint read of its own', async () => {
    const { hook, receiver } = await endpoint(world.app, world.admin, () => 200);
    const claims = watchClaims();
    const endpointReads = vi.spyOn(WebhookModel, 'findById');
    try {
      // One after another: each has room in the endpoint's share (4 sends) when it is fanned out.
      const sent = [];
      for (let i = 1; i <= 5; i += 1) {
        sent.push((await menuEvent(world.admin))!.id);
        await receiver.waitFor(i);
      }
      const got = receiver.received;
      expect(got.map((received) => received.id).sort()).toEqual(sent.sort());
      expect(got.every((received) => received.signatureValid)).toBe(true);
      const deliveries = world.app.db.collection('webhookdeliveries');
      await eventually(async () => (await deliveries.countDocuments({ webhookId: hook.id, status: 'delivered' })) === 5);
      // The worker still looks for due deliveries (retries, other instances'): none of its claims took one.
      expect(await claims.took()).toEqual([]);
      expect(endpointReads).not.toHaveBeenCalled();
      // Recorded as a claimed one is: one attempt, its lease given back.
      expect(await deliveries.find({ webhookId: hook.id }).toArray()).toEqual(
        Array.from({ length: 5 }, () => expect.objectContaining({ attempts: 1, responseStatus: 200, leaseOwner: null, leaseUntil: new Date(0), error: null })),
      );
    } finally {
      claims.restore();
      endpointReads.mockRestore();
    }
  });

  /** `count` deliveries of the admin's tenant to `webhookId`, due now and leased to nobody, as the fan-out writes them. */
  const dueNow = (webhookId: string, count: number) => Array.from({ length: count }, () => rawDelivery(webhookId, world.admin.tenantId ?? null, new Date()));

  it("due together, are leased together: one claim takes the endpoint's share (4 of 6) and reads the endpoint once; the share holds the rest back", async () => {
    const { hook, receiver } = await endpoint(world.app, world.admin, () => 'hang');
    const deliveries = world.app.db.collection('webhookdeliveries');
    const claims = watchClaims();
    const endpointReads = vi.spyOn(WebhookModel, 'find');
    const singleEndpointReads = vi.spyOn(WebhookModel, 'findById');
    try {
      const backlog = dueNow(hook.id, 6);
      await deliveries.insertMany(backlog);
      const sent = await receiver.waitFor(4);
      expect(await claims.took()).toEqual([4]);
      // One read of the endpoint for the claim (the fan-out's reads filter on `enabled`), none per delivery.
      expect(endpointReads.mock.calls.filter(([filter]) => (filter as { enabled?: unknown }).enabled === undefined)).toHaveLength(1);
      expect(singleEndpointReads).not.toHaveBeenCalled();
      // The endpoint's share holds the other two back while the four hang.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(receiver.received).toHaveLength(4);
      expect(sent.every((received) => received.signatureValid)).toBe(true);
      const leased = await deliveries.find({ _id: { $in: backlog.map(({ _id }) => _id) }, leaseOwner: { $ne: null } }).toArray();
      expect(leased).toHaveLength(4);
      expect(new Set(leased.map(({ leaseOwner }) => leaseOwner)).size).toBe(1);
    } finally {
      claims.restore();
      endpointReads.mockRestore();
      singleEndpointReads.mockRestore();
      await receiver.close();
      await world.app.rest('DELETE', `/webhooks/${hook.id}`, { token: world.admin.token });
    }
  });

  it("taken by another instance between a claim's read and its lease: that one is left to it, the others are sent, and the pool counts only those", async () => {
    const { hook, receiver } = await endpoint(world.app, world.admin, () => 'hang');
    const deliveries = world.app.db.collection('webhookdeliveries');
    const backlog = dueNow(hook.id, 3);
    const taken = backlog[1]!;
    // Another instance leases one of them just before this instance's lease (the update) is made.
    const collection = WebhookDeliveryModel.collection;
    const lease = collection.updateMany.bind(collection);
    const race = vi.spyOn(collection, 'updateMany').mockImplementationOnce((async (...args: Parameters<typeof lease>) => {
      await deliveries.updateOne({ _id: taken._id }, { $set: { leaseOwner: 'another instance', leaseUntil: new Date(Date.now() + 60_000), nextAttemptAt: new Date(Date.now() + 60_000) } });
      return lease(...args);
    }) as never);
    try {
      await deliveries.insertMany(backlog);
      await receiver.waitFor(2);
      expect(race).toHaveBeenCalled();
      expect(receiver.received.map(({ id }) => id).sort()).toEqual([backlog[0]!.eventId, backlog[2]!.eventId].sort());
      expect(await deliveries.findOne({ _id: taken._id })).toMatchObject({ status: 'pending', attempts: 0, leaseOwner: 'another instance' });
      // The endpoint's share (4) counts the two sends only: two more go out while they hang, and no third.
      await deliveries.insertMany(dueNow(hook.id, 3));
      await receiver.waitFor(4);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(receiver.received).toHaveLength(4);
    } finally {
      race.mockRestore();
      await receiver.close();
      await deliveries.deleteMany({ leaseOwner: 'another instance' });
      await world.app.rest('DELETE', `/webhooks/${hook.id}`, { token: world.admin.token });
    }
  });

  it('the outcomes of sends that end together are written together: fewer commands than deliveries, each recorded', async () => {
    // A receiver that holds every request until all 8 came, then answers them in the same turn.
    const held: ServerResponse[] = [];
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        held.push(res);
        if (held.length === 8) for (const r of held.splice(0)) r.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    // The tenant's earlier endpoints removed: the 8 sends must be the tenant's whole share (8) at once.
    const earlier = (await world.app.rest('GET', '/webhooks?limit=100', { token: world.admin.token })).body.items as { id: string }[];
    for (const hook of earlier) await world.app.rest('DELETE', `/webhooks/${hook.id}`, { token: world.admin.token });
    const hooks = [];
    for (let i = 0; i < 8; i += 1) hooks.push(await makeWebhook(world.app, world.admin, { url, events: ['menus.create'] }));
    const outcomeWrites = vi.spyOn(WebhookDeliveryModel.collection, 'bulkWrite');
    const singleWrites = vi.spyOn(WebhookDeliveryModel, 'updateOne');
    try {
      const event = (await menuEvent(world.admin))!;
      const deliveries = world.app.db.collection('webhookdeliveries');
      await eventually(async () => (await deliveries.countDocuments({ eventId: event.id, status: 'delivered' })) === 8);
      expect(await deliveries.find({ eventId: event.id }).toArray()).toEqual(
        hooks.map(() => expect.objectContaining({ attempts: 1, responseStatus: 204, leaseOwner: null, leaseUntil: new Date(0), error: null, nextAttemptAt: null })),
      );
      const written = outcomeWrites.mock.calls.flatMap(([operations]) => operations);
      expect(written).toHaveLength(8);
      expect(outcomeWrites.mock.calls.length).toBeLessThan(8);
      expect(singleWrites).not.toHaveBeenCalled();
    } finally {
      outcomeWrites.mockRestore();
      singleWrites.mockRestore();
      for (const hook of hooks) await world.app.rest('DELETE', `/webhooks/${hook.id}`, { token: world.admin.token });
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
