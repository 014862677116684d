import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';
import { sseTransport, until, wsTransport, type Stream } from './stream-clients.js';

/**
 * An API key's allowedIPs is judged on the client address HTTP requests get
 * (TRUST_PROXY decides whose X-Forwarded-For is believed), over both
 * transports: a WebSocket used its socket's address, so a key limited to the
 * proxy's own address was accepted for any client behind it.
 */
let app: TestApp;
let admin: TestUser;
beforeAll(async () => {
  app = await startTestApp({ env: { TRUST_PROXY: 'loopback' } });
  admin = await app.createUser({ tenantId: 'tenant-proxy' });
});
afterAll(async () => app?.close());

async function keyFor(allowedIPs: string[]): Promise<string> {
  const made = await app.rest('POST', '/api-keys', { token: admin.token, body: { name: `only ${allowedIPs.join(' ')}`, scopes: ['events:read'], allowedIPs } });
  expect(made.status).toBe(201);
  return made.body.key as string;
}

const QUERY = 'subscription { events { id } }';
const refused = (stream: Stream) => {
  const first = stream.errors[0] as { code?: number; extensions?: { code?: string } } | undefined;
  return first?.code === 4403 || first?.extensions?.code === 'FORBIDDEN';
};

describe.each([wsTransport, sseTransport])('over $name, behind a trusted proxy (X-Forwarded-For: 203.0.113.9)', (transport) => {
  const viaProxy = { 'X-Forwarded-For': '203.0.113.9' };

  it("refuses a key allowed only from the proxy's address (403)", async () => {
    const stream = transport.open(app.baseUrl, `Bearer ${await keyFor(['127.0.0.1'])}`, QUERY, {}, viaProxy);
    try {
      await until(() => stream.isEnded(), 'the refusal');
      expect(refused(stream)).toBe(true);
      expect(stream.events).toEqual([]);
    } finally {
      stream.dispose();
    }
  });

  it("serves a key allowed from the client's address", async () => {
    const stream = transport.open(app.baseUrl, `Bearer ${await keyFor(['203.0.113.0/24'])}`, QUERY, {}, viaProxy);
    try {
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(stream.errors).toEqual([]);
      expect(stream.isEnded()).toBe(false);
    } finally {
      stream.dispose();
    }
  });
});
