import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import mongoose from 'mongoose';
import { hashPassword, signAccessToken } from '../src/auth/index.js';
import { loadConfig } from '../src/config.js';
import { connectMongoose } from '../src/database.js';
import { startEngineThread } from '../src/engine/thread/index.js';
import { EventLog } from '../src/events/index.js';
import { buildServiceSchema, createService } from '../src/service.js';
import { UserModel } from '../src/users/index.js';
import { freePort, RECEIVER_ENTRY, startServer } from './processes.js';

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;

/**
 * (w) Webhooks, in-process on the in-memory engine (in its own thread and over a unix socket, as `npm start` runs it), with a local receiver in its own process:
 * the API's write throughput (menu creates, 8 at a time for `seconds`) with 3
 * endpoints subscribed to every event against none, in `rounds` interleaved
 * rounds (target >= 0.9; the most deliveries left pending at a round's end
 * is reported) and with 3 endpoints that answer after 2 s, then events delivered per second and the delay from commit
 * to receipt (p50, p99; target p99 < 1 s). Each is printed with its target and met.
 */
export async function webhooksBench(events = 1000, seconds = 5, rounds = 3) {
  const { config } = loadConfig({ NODE_ENV: 'test', JWT_SECRET: randomBytes(32).toString('hex'), LOG_LEVEL: 'silent' });
  // Over a unix socket, as `npm start` reaches its engine (loopback TCP costs each command more).
  const engine = await startEngineThread({ inMemory: true, socket: {} });
  await connectMongoose(engine.uri, 'bench_webhooks');
  // Delivered as `npm start` delivers: from the delivery thread.
  const handle = await createService(config, await buildServiceSchema(), { deliveryThread: { uri: engine.uri, dbName: 'bench_webhooks' } });
  const server = handle.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  // The receiver in its own process: a receiver's work is not the API's.
  const receiverPort = await freePort();
  const receiver = await startServer('webhook receiver', RECEIVER_ENTRY, { PORT: String(receiverPort) }, receiverPort, '/healthz');
  const hookUrl = `${receiver.baseUrl}/`;
  const arrivals = {
    read: async () => new Map(Object.entries((await (await fetch(`${receiver.baseUrl}/arrivals`)).json()) as Record<string, number>)),
    clear: async () => void (await fetch(`${receiver.baseUrl}/arrivals`, { method: 'DELETE' })),
  };
  try {
    const user = await UserModel.create({ email: 'bench@example.test', passwordHash: await hashPassword('Passw0rd!'), firstName: 'B', roles: ['admin'], tenant_id: 'bench' });
    const { accessToken } = signAccessToken(config.jwt, { sub: String(user._id), tenant: 'bench', roles: ['admin'], ver: 0 });
    const headers = { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' };
    const post = async (path: string, body: unknown) => {
      const response = await fetch(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
      if (response.status !== 201) throw new Error(`${path} answered ${response.status}`);
      return response.json() as Promise<{ id: string }>;
    };
    let serial = 0;
    const writesPerSecond = async () => {
      let done = 0;
      const until = Date.now() + seconds * 1000;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (Date.now() < until) {
            await post('/restaurant/meal-menus', { name: `m${(serial += 1)}`, date: '2030-01-01', mealType: 'lunch' });
            done += 1;
          }
        }),
      );
      return done / seconds;
    };
    // Interleaved rounds (the machine's load drifts): none, then 3 endpoints until their deliveries are all
    // out (a backlog left at a round's end is work deferred, not saved: reported), then none again.
    const deliveries = mongoose.connection.collection('webhookdeliveries');
    const backlog = () => deliveries.countDocuments({ status: 'pending' });
    const remove = async (hooks: { id: string }[]) => {
      for (const hook of hooks) {
        const deleted = await fetch(`${base}/webhooks/${hook.id}`, { method: 'DELETE', headers });
        if (deleted.status !== 200) throw new Error(`DELETE /webhooks/${hook.id} answered ${deleted.status}`);
      }
    };
    let without = 0;
    let withHooks = 0;
    // The same writes over the round and the time its deliveries took to go out after it: the rate
    // the service keeps up with (a backlog left at a round's end is work deferred, not saved).
    let sustainedWithHooks = 0;
    let withSlowHooks = 0;
    let backlogAtEnd = 0;
    for (let round = 0; round < rounds; round += 1) {
      without += await writesPerSecond();
      const hooks = [];
      for (let i = 0; i < 3; i += 1) hooks.push(await post('/webhooks', { url: hookUrl, events: ['*'] }));
      const rate = await writesPerSecond();
      withHooks += rate;
      const drainStart = Date.now();
      backlogAtEnd = Math.max(backlogAtEnd, await backlog());
      while ((await backlog()) > 0) await new Promise((r) => setTimeout(r, 50));
      sustainedWithHooks += (rate * seconds) / (seconds + (Date.now() - drainStart) / 1000);
      await remove(hooks);
      // 3 endpoints answering after 2 s: the tenant's share of sends is taken and a backlog grows
      // behind it, which must cost the API's writes no more than the healthy endpoints do.
      const slow = [];
      for (let i = 0; i < 3; i += 1) slow.push(await post('/webhooks', { url: `${hookUrl}slow`, events: ['*'] }));
      withSlowHooks += await writesPerSecond();
      await remove(slow);
      await deliveries.deleteMany({ status: 'pending' });
    }
    for (let i = 0; i < 3; i += 1) await post('/webhooks', { url: hookUrl, events: ['*'] });

    // Throughput: a burst of `events` committed at once, delivered to the 3 endpoints.
    const log = new EventLog({ retentionSeconds: 3600 });
    const append = async () => (await log.append({ type: 'menus.create', tenant_id: 'bench', actor: { type: 'system', id: null }, target: { type: 'MealMenu', id: null } }))!.id;
    const waitFor = async (ids: Iterable<string>) => {
      const deadline = Date.now() + 120_000;
      for (;;) {
        const arrived = await arrivals.read();
        if ([...ids].every((id) => arrived.has(id)) || Date.now() > deadline) return arrived;
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    await arrivals.clear();
    const burstStart = Date.now();
    const burst = await Promise.all(Array.from({ length: events }, append));
    const burstArrivals = await waitFor(burst);
    const burstSeconds = (Math.max(...burstArrivals.values()) - burstStart) / 1000;
    const deliveredPerSecond = (burstArrivals.size * 3) / burstSeconds;

    // Delay: events at a steady pace (one every 50 ms), each timed from commit to its first receipt.
    await arrivals.clear();
    const committed = new Map<string, number>();
    for (let i = 0; i < 200; i += 1) {
      const at = Date.now();
      committed.set(await append(), at);
      await new Promise((r) => setTimeout(r, 50));
    }
    const delayArrivals = await waitFor(committed.keys());
    const delays = [...committed].map(([id, at]) => (delayArrivals.get(id) ?? Infinity) - at).sort((x, y) => x - y);
    return {
      deliveredPerSecond,
      p50Ms: quantile(delays, 0.5),
      p99Ms: quantile(delays, 0.99),
      writeRatio: withHooks / without,
      sustainedWriteRatio: sustainedWithHooks / without,
      writesWithout: without / rounds,
      writesWith: withHooks / rounds,
      slowWriteRatio: withSlowHooks / without,
      backlogAtEnd,
    };
  } finally {
    await receiver.stop();
    server.close();
    await handle.stop();
    await mongoose.disconnect();
    await engine.close();
  }
}
