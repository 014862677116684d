import path from 'node:path';
import { Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { ObjectId } from 'mongodb';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventLog } from '../../src/events/index.js';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';
import { buildServiceTree } from '../support/test-build.js';
import { eventually, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { makeWebhook } from './webhook-fixtures.js';
import { parseExposition, sampleValue } from '../http/fixtures/exposition.js';

/**
 * The service's entry point delivers webhooks from a worker thread of its own
 * (src/webhook-delivery.ts): here the API runs in the test's thread and the
 * thread from the test build of the current sources, on the same engine.
 */
const log = new EventLog({ retentionSeconds: 3600 });
const menuEvent = async (user: TestUser) =>
  (await log.append({ type: 'menus.create', tenant_id: user.tenantId ?? null, actor: { type: 'user', id: user.id }, target: { type: 'MealMenu', id: new ObjectId().toHexString() }, data: { changes: ['name'] } }))!.id;

let entry: URL;
beforeAll(() => {
  entry = pathToFileURL(path.join(buildServiceTree(), 'src', 'webhook-delivery-thread.js'));
}, 240_000);

describe('deliveries from the delivery thread', () => {
  let app: TestApp;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    app = await startTestApp({ deliveryThread: { entry }, webhooks: { timeoutMs: 2000 } });
    // The first POST hangs (until the 2 s timeout): it is seen in flight.
    receiver = await startWebhookReceiver((n) => (n === 0 ? 'hang' : 200));
  });
  afterAll(async () => {
    await receiver?.close();
    await app?.close();
  });

  it('are leased to that thread, not to the thread that answers requests, and arrive signed', async () => {
    const user = await app.createUser({ tenantId: 'acme' });
    const hook = await makeWebhook(app, user, { url: receiver.url, events: ['menus.create'] });
    receiver.setSecret(hook.secret);
    const first = await menuEvent(user);
    await receiver.waitFor(1);
    const deliveries = app.db.collection('webhookdeliveries');
    const inFlight = await deliveries.findOne({ eventId: first });
    // The owner names the process, then the thread: 0 is the process's main thread, which runs the API here.
    const [pid, thread] = String(inFlight?.leaseOwner).split('-');
    expect(Number(pid)).toBe(process.pid);
    expect(Number(thread)).toBeGreaterThan(0);
    // Due again only when its lease ends: claims no longer scan past the deliveries in flight.
    expect(inFlight?.nextAttemptAt).toEqual(inFlight?.leaseUntil);

    const more = [await menuEvent(user), await menuEvent(user)];
    const got = await receiver.waitFor(3);
    expect(got.slice(1).map((received) => received.id).sort()).toEqual(more.sort());
    expect(got.every((received) => received.signatureValid)).toBe(true);
    // The hanging one is cut at the timeout and retried (the thread runs the test's schedule options).
    await eventually(async () => (await deliveries.findOne({ eventId: first }))?.error !== null, 10_000);
    expect(await deliveries.findOne({ eventId: first })).toMatchObject({ status: 'pending', attempts: 1, leaseOwner: null });
  });

  it("are counted in the API thread's metrics, which the thread tells of each attempt", async () => {
    // The two delivered at once and the one cut at its timeout (its retry, 5 s on, may have come too).
    const counts = await eventually(async () => {
      const scraped = parseExposition((await app.http('GET', '/metrics')).body);
      const delivered = sampleValue(scraped, 'webhook_deliveries_total', { outcome: 'delivered' }) ?? 0;
      const retrying = sampleValue(scraped, 'webhook_deliveries_total', { outcome: 'retrying' }) ?? 0;
      const delays = sampleValue(scraped, 'webhook_delivery_delay_seconds_count', { outcome: 'delivered' }) ?? 0;
      return delivered >= 2 && retrying === 1 && { delivered, delays };
    }, 10_000);
    expect(counts.delays).toBe(counts.delivered);
  });
});

describe('a delivery thread that cannot run', () => {
  const lines: string[] = [];
  const sink = new Writable({ write: (chunk, _enc, done) => void (lines.push(...String(chunk).split('\n').filter(Boolean)), done()) });
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ logger: pino({ level: 'info' }, sink), deliveryThread: { entry: new URL('./no-such-thread-entry.js', entry) } });
  });
  afterAll(async () => app?.close());

  it('is logged and started again each second, and the service still stops at once', async () => {
    const messages = () => lines.map((line) => JSON.parse(line) as { level: number; msg: string });
    await eventually(async () => messages().filter((m) => m.msg === 'the webhook delivery thread failed').length >= 2, 10_000);
    expect(messages().filter((m) => m.msg.startsWith('the webhook delivery thread exited; starting it again')).every((m) => m.level === 50)).toBe(true);
    const started = Date.now();
    await app.close();
    expect(Date.now() - started).toBeLessThan(5000);
    app = undefined as unknown as TestApp;
  });
});
