import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';
import { eventually } from '../support/webhook-receiver.js';
import { sseTransport, wsTransport } from './stream-clients.js';

/**
 * A subscription's start is a use of its API key, in the key's usage log as
 * a request's use is (method and path of the transport's request, the
 * operation reached); its re-checks every second are not uses.
 */
let app: TestApp;
let admin: TestUser;
beforeAll(async () => {
  app = await startTestApp({ eventSubscriptions: { recheckMs: 50 } });
  admin = await app.createUser({ tenantId: 'tenant-usage' });
});
afterAll(async () => app?.close());

describe.each([
  [wsTransport, 'GET'],
  [sseTransport, 'POST'],
] as const)('over $name', (transport, method) => {
  it('logs one use of the API key when a stream starts, none for its re-checks', async () => {
    const made = await app.rest('POST', '/api-keys', { token: admin.token, body: { name: `stream ${method}`, scopes: ['events:read'] } });
    expect(made.status).toBe(201);
    const stream = transport.open(app.baseUrl, `Bearer ${made.body.key}`, 'subscription { events { id } }');
    try {
      const uses = await eventually(async () => {
        const logs = await app.rest('GET', `/api-keys/${made.body._id}/usage-logs`, { token: admin.token });
        return logs.body.items?.length > 0 && logs.body.items;
      });
      // Many re-checks later (every 50 ms here), still the one use.
      await new Promise((resolve) => setTimeout(resolve, 600));
      const after = await app.rest('GET', `/api-keys/${made.body._id}/usage-logs`, { token: admin.token });
      expect(stream.errors).toEqual([]);
      expect(after.body.items).toHaveLength(1);
      expect(uses[0]).toMatchObject({ method, path: '/graphql', status: 200 });
    } finally {
      stream.dispose();
    }
  });
});
