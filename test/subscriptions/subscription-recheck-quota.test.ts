import { Types } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventLog } from '../../src/events/index.js';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';
import { codeOf, live, transports, until } from './stream-clients.js';

/**
 * An open subscription re-checks its API key (here every 20 ms rather than
 * every second) with every check of a request but spends none of the key's
 * hourly quota: a key allowing 3 requests an hour holds a stream through
 * dozens of re-checks and still makes its own requests.
 */
let app: TestApp;
let admin: TestUser;
const log = new EventLog({ retentionSeconds: 3600 });
const RECHECK_MS = 20;

beforeAll(async () => {
  app = await startTestApp({ eventSubscriptions: { recheckMs: RECHECK_MS } });
  admin = await app.createUser({ tenantId: 'tenant-q' });
});

afterAll(async () => {
  await app?.close();
});

describe.each(transports)('an API key subscription over $name', (transport) => {
  it("re-checks the key without spending its rate limit (rateLimit 3, 50 re-checks), and still ends when it is revoked", async () => {
    const created = await app.rest('POST', '/api-keys', { token: admin.token, body: { name: `quota ${transport.name}`, scopes: ['events:read'], rateLimit: 3 } });
    expect(created.status).toBe(201);
    const stream = transport.open(app.baseUrl, `Bearer ${created.body.key}`, 'subscription { events { id type } }');
    try {
      // Live: a probe event reaches it (the subscription's own start is the key's one use).
      await live(stream, async () => (await log.append({ type: 'webhooks.test', tenant_id: 'tenant-q', actor: { type: 'system', id: 'test' }, target: { type: 'Webhook', id: new Types.ObjectId().toHexString() }, data: {} }))!.id);
      // 50 re-check intervals (a wait for re-checks to happen, no speed asserted).
      await new Promise((resolve) => setTimeout(resolve, 50 * RECHECK_MS));
      expect(stream.errors).toEqual([]);
      expect(stream.isEnded()).toBe(false);
      // The quota is whole but for the subscription's start: two more requests pass.
      for (let i = 0; i < 2; i++) {
        const listed = await app.rest('GET', '/events?limit=1', { headers: { 'x-api-key': created.body.key } });
        expect(listed.status).toBe(200);
      }
      const revoked = await app.rest('PATCH', `/api-keys/${created.body._id}/revoke`, { token: admin.token });
      expect(revoked.status).toBe(200);
      await until(() => stream.isEnded(), 'the stream to end');
      expect(codeOf(stream)).toBe('UNAUTHENTICATED');
    } finally {
      stream.dispose();
    }
  });
});
