import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';
import { transports, until } from './stream-clients.js';
import { startSecondInstance, type SecondInstance } from './second-instance.js';

/**
 * Two instances of the service on one database, each with its own EventTail:
 * a subscriber on instance B receives the event of a change made through
 * instance A (B's tail reads it from the collection; nothing wakes it).
 */
let a: TestApp;
let b: SecondInstance;
let admin: TestUser;
const TENANT = 'tenant-two';

beforeAll(async () => {
  a = await startTestApp();
  admin = await a.createUser({ tenantId: TENANT });
  b = await startSecondInstance(a);
});

afterAll(async () => {
  await b?.close();
  await a?.close();
});

describe.each(transports)('a subscriber on instance B over $name', (transport) => {
  it('receives the event of a change committed through instance A', async () => {
    const stream = transport.open(b.baseUrl, `Bearer ${admin.token}`, 'subscription { events(types: ["api-keys.create"]) { id type tenant_id target { type id } } }');
    try {
      // Keys are created through A until one's event reaches B's stream (B's stream may not be open at the first).
      const made = new Set<string>();
      let next = 0;
      await until(() => {
        if (Date.now() >= next) {
          next = Date.now() + 500;
          void a.rest('POST', '/api-keys', { token: admin.token, body: { name: `across ${transport.name} ${made.size}`, scopes: ['menus:read'] } }).then((answer) => {
            expect(answer.status).toBe(201);
            made.add(answer.body._id);
          });
        }
        if (stream.isEnded()) throw new Error(`the stream ended: ${JSON.stringify(stream.errors)}`);
        return stream.events.some((event) => made.has(event.target.id));
      }, 'an event committed through A on B');
      const seen = stream.events.find((event) => made.has(event.target.id))!;
      expect(seen).toMatchObject({ type: 'api-keys.create', tenant_id: TENANT, target: { type: 'ApiKey' } });
    } finally {
      stream.dispose();
    }
  });
});
