import { Types } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventLog } from '../../src/events/index.js';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';
import { codeOf, live, transports, until } from './stream-clients.js';

/**
 * What the `events` subscription streams of a change that issued a secret
 * (none of it), and its ending when the caller's role loses events:read or
 * the token's session is ended, on both transports.
 */
let app: TestApp;
let admin: TestUser;
const log = new EventLog({ retentionSeconds: 3600 });
const TENANT = 'tenant-s2';
const FULL = 'subscription($types: [String!]) { events(types: $types) { id type occurredAt tenant_id actor { type id } target { type id } data } }';

beforeAll(async () => {
  app = await startTestApp();
  admin = await app.createUser({ tenantId: TENANT });
});

afterAll(async () => {
  await app?.close();
});

const probe = (tenant: string) => async () =>
  (await log.append({ type: 'webhooks.test', tenant_id: tenant, actor: { type: 'system', id: 'test' }, target: { type: 'Webhook', id: new Types.ObjectId().toHexString() }, data: {} }))!.id;

describe.each(transports)('the events subscription over $name', (transport) => {
  it('streams the createApiKey and createWebhook events without the key secret or the signing secret', async () => {
    const stream = transport.open(app.baseUrl, `Bearer ${admin.token}`, FULL, { types: ['webhooks.test', 'api-keys.create', 'webhooks.create'] });
    try {
      await live(stream, probe(TENANT));
      const key = await app.rest('POST', '/api-keys', { token: admin.token, body: { name: `secret ${transport.name}`, scopes: ['menus:read'] } });
      expect(key.status).toBe(201);
      const hook = await app.rest('POST', '/webhooks', { token: admin.token, body: { url: 'http://127.0.0.1:9/hook', events: ['menus.create'] } });
      expect(hook.status).toBe(201);
      expect(key.body.key).toMatch(/^ak_/);
      expect(hook.body.secret).toMatch(/^whsec_/);
      await until(() => ['api-keys.create', 'webhooks.create'].every((type) => stream.events.some((event) => event.type === type)), 'both events');
      const streamed = JSON.stringify(stream.events);
      expect(streamed).not.toContain(key.body.key);
      expect(streamed).not.toContain(hook.body.secret);
      expect(streamed).not.toContain(hook.body.secret.slice('whsec_'.length));
      expect(streamed).not.toMatch(/ak_|whsec_/);
    } finally {
      stream.dispose();
    }
  });

  it('ends the stream (403 naming events:read) once the caller\'s role loses events:read', async () => {
    const created = await app.rest('POST', '/access-control/roles', { token: admin.token, body: { name: `reader-${transport.name}-${Date.now()}`, permissions: ['events:read', 'menus:read'] } });
    expect(created.status).toBe(201);
    const role = created.body;
    const reader = await app.createUser({ tenantId: TENANT, roles: [String(role.id ?? role._id)] });
    const stream = transport.open(app.baseUrl, `Bearer ${reader.token}`, 'subscription { events { id type } }');
    try {
      await live(stream, probe(TENANT));
      const changed = await app.rest('PATCH', `/access-control/roles/${role.id ?? role._id}`, { token: admin.token, body: { permissions: ['menus:read'] } });
      expect(changed.status).toBe(200);
      await until(() => stream.isEnded(), 'the stream to end');
      expect(codeOf(stream)).toBe('FORBIDDEN');
      expect(stream.errors[0].message).toContain('events:read');
    } finally {
      stream.dispose();
    }
  });

  it("ends the stream (401) once the token's session is ended", async () => {
    const user = await app.createUser({ tenantId: TENANT });
    // A signed-in token: it carries its session.
    const login = await app.rest('POST', '/auth/login', { body: { email: user.email, password: user.password, tenantId: TENANT } });
    expect(login.status).toBe(200);
    const token: string = login.body.accessToken;
    const stream = transport.open(app.baseUrl, `Bearer ${token}`, 'subscription { events { id type } }');
    try {
      await live(stream, probe(TENANT));
      const sessions = await app.rest('GET', '/auth/sessions', { token });
      expect(sessions.status).toBe(200);
      const items: Array<Record<string, any>> = sessions.body.items ?? sessions.body;
      expect(items.length).toBe(1);
      const ended = await app.rest('DELETE', `/auth/sessions/${items[0].id ?? items[0]._id}`, { token: user.token });
      expect(ended.status).toBe(200);
      await until(() => stream.isEnded(), 'the stream to end');
      expect(codeOf(stream)).toBe('UNAUTHENTICATED');
    } finally {
      stream.dispose();
    }
  });
});
