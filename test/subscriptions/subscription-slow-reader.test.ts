import net from 'node:net';
import { Types } from 'mongoose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EventModel, EventState } from '../../src/events/index.js';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

/**
 * An SSE subscriber that stops reading is disconnected once
 * EVENT_SUBSCRIPTION_BUFFER results wait for it: graphql-sse queues results
 * without bound, so such a stream used to stay open and grow the heap with
 * every event. The stream is seen ended by its slot: with one stream per
 * credential, the same credential can subscribe again.
 */
let app: TestApp;
let admin: TestUser;
const TENANT = 'tenant-slow-reader';
const QUERY = 'subscription { events { id type data } }';
beforeAll(async () => {
  app = await startTestApp({ env: { EVENT_SUBSCRIPTION_BUFFER: '5', EVENT_SUBSCRIPTIONS_PER_CREDENTIAL: '1' } });
  admin = await app.createUser({ tenantId: TENANT });
});
afterAll(async () => app?.close());

/** Committed events of 256 KB each: the socket's buffers fill after a few. */
async function commitLargeEvents(count: number): Promise<void> {
  const committedAt = new Date();
  const large = 'y'.repeat(256 * 1024);
  await EventModel.collection.insertMany(
    Array.from({ length: count }, () => ({
      _id: new Types.ObjectId(), type: 'menus.create', tenant_id: TENANT, occurredAt: committedAt, actor: { type: 'system', id: null },
      target: { type: 'MealMenu', id: null }, data: { changes: [large] }, state: EventState.committed, committedAt, expireAt: new Date(Date.now() + 3_600_000),
    })),
  );
}

/** How another stream of the same credential is answered: its refusal, or 'open' when it is served (nothing but keep-alives within 1 s). */
async function anotherStream(): Promise<string> {
  const res = await fetch(`${app.baseUrl}/graphql`, {
    method: 'POST',
    headers: { accept: 'text/event-stream', 'content-type': 'application/json', authorization: `Bearer ${admin.token}` },
    body: JSON.stringify({ query: QUERY }),
  });
  const reader = res.body!.getReader();
  let text = '';
  const quiet = setTimeout(() => void reader.cancel(), 1000);
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
      if (text.replace(/:\n\n/g, '').trim() !== '') break;
    }
  } catch {
    // cancelled: served, quiet
  } finally {
    clearTimeout(quiet);
    await reader.cancel().catch(() => undefined);
  }
  const frames = text.replace(/:\n\n/g, '').trim();
  return frames === '' ? 'open' : frames;
}

it('disconnects a subscriber that stops reading, past EVENT_SUBSCRIPTION_BUFFER waiting results', async () => {
  const socket = net.connect(Number(new URL(app.baseUrl).port), '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  const body = JSON.stringify({ query: QUERY });
  socket.write(
    `POST /graphql HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\nContent-Type: application/json\r\nAuthorization: Bearer ${admin.token}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  await new Promise((resolve) => socket.once('data', resolve));
  socket.pause(); // reads nothing more
  try {
    // The slot is taken while the stream lives.
    expect(await anotherStream()).toMatch(/RATE_LIMITED/);
    let answer = 'RATE_LIMITED';
    for (let round = 0; round < 40 && /RATE_LIMITED/.test(answer); round += 1) {
      await commitLargeEvents(4);
      await new Promise((resolve) => setTimeout(resolve, 150));
      if (round % 5 === 4) answer = await anotherStream();
    }
    // Ended server side: the credential's one slot is free again, and the new stream is served.
    expect(answer).toBe('open');
  } finally {
    socket.destroy();
  }
}, 60_000);
