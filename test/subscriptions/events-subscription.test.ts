import { Types } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventLog, type NewEvent } from '../../src/events/index.js';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';
import { codeOf, transports, until, type Stream } from './stream-clients.js';

/**
 * The `events` subscription over both transports on /graphql: WebSocket
 * (graphql-transport-ws, a real graphql-ws client) and Server-Sent Events
 * (a real graphql-sse client). Events are written as committed records
 * (EventLog.append, as every writer's commit ends), so the cases do not
 * depend on which mutation raises which event.
 */
let app: TestApp;
let tenantA: TestUser;
let tenantB: TestUser;
let platform: TestUser;
let member: TestUser;
const log = new EventLog({ retentionSeconds: 3600 });
const PER_CREDENTIAL = 2;

beforeAll(async () => {
  app = await startTestApp({ env: { EVENT_SUBSCRIPTIONS_PER_CREDENTIAL: String(PER_CREDENTIAL) } });
  tenantA = await app.createUser({ tenantId: 'tenant-a' });
  tenantB = await app.createUser({ tenantId: 'tenant-b' });
  platform = await app.createUser({ tenantId: null });
  member = await app.createUser({ tenantId: 'tenant-a', roles: ['member'] });
});

afterAll(async () => {
  await app?.close();
});

type Credential = { authorization?: string };

const SELECTION = 'id type occurredAt tenant_id actor { type id } target { type id } data';
const DOCUMENT = `subscription($types: [String!]) { events(types: $types) { ${SELECTION} } }`;

/** The shared clients (stream-clients.ts) on this file's app, with its document by default. */
const [ws, sse] = transports.map((transport) => ({
  name: transport.name,
  open: (credential: Credential, variables: Record<string, unknown> = {}, query = DOCUMENT): Stream =>
    transport.open(app.baseUrl, credential.authorization, query, variables),
}));

const bearer = (secret: string): Credential => ({ authorization: `Bearer ${secret}` });

function event(tenant: string | null, type = 'menus.create', data: Record<string, unknown> = { changes: ['name'] }): NewEvent {
  return { type, tenant_id: tenant, actor: { type: 'user', id: new Types.ObjectId().toHexString() }, target: { type: 'MealMenu', id: new Types.ObjectId().toHexString() }, data };
}

/** A stream is live once an event appended now reaches it (the tail starts at its first listener). */
async function live(stream: Stream, tenant: string | null, type = 'webhooks.test'): Promise<void> {
  const ids = new Set<string>();
  let next = 0;
  await until(() => {
    // A probe every 300 ms until one arrives: the stream may not be open yet when the first is committed.
    if (Date.now() >= next) {
      next = Date.now() + 300;
      void log.append(event(tenant, type)).then((written) => ids.add(written!.id));
    }
    if (stream.errors.length > 0) throw new Error(`the stream failed: ${JSON.stringify(stream.errors)}`);
    return stream.events.some((e) => ids.has(e.id));
  }, 'the stream to be live');
}

async function makeKey(creator: TestUser, scopes: string[]): Promise<{ id: string; secret: string }> {
  const response = await app.rest('POST', '/api-keys', { token: creator.token, body: { name: `key ${new Types.ObjectId().toHexString().slice(-6)}`, scopes } });
  if (response.status !== 201) throw new Error(`createApiKey answered ${response.status}: ${JSON.stringify(response.body)}`);
  return { id: response.body._id, secret: response.body.key };
}

describe.each([ws, sse])('subscription events over $name', (transport) => {
  it("streams the caller's tenant's events only, as committed, with every field", async () => {
    const stream = transport.open(bearer(tenantA.token));
    try {
      await live(stream, 'tenant-a');
      const mine = await log.append(event('tenant-a'));
      await log.append(event('tenant-b'));
      await log.append(event(null));
      const last = await log.append(event('tenant-a', 'menus.delete'));
      await until(() => stream.events.some((e) => e.id === last!.id), 'the last event');
      const streamed = stream.events.filter((e) => e.type !== 'webhooks.test');
      expect(streamed.map((e) => e.id)).toEqual([mine!.id, last!.id]);
      expect(streamed[0]).toMatchObject({ type: 'menus.create', tenant_id: 'tenant-a', actor: { type: 'user' }, target: { type: 'MealMenu' }, data: { changes: ['name'] } });
      expect(stream.errors).toEqual([]);
    } finally {
      stream.dispose();
    }
  });

  it("gives a platform administrator every tenant's events", async () => {
    const stream = transport.open(bearer(platform.token), { types: ['menus.update'] });
    try {
      await live(stream, 'tenant-b', 'menus.update');
      const a = await log.append(event('tenant-a', 'menus.update'));
      const b = await log.append(event('tenant-b', 'menus.update'));
      await until(() => stream.events.some((e) => e.id === b!.id), 'the other tenant event');
      expect(stream.events.map((e) => e.id)).toEqual(expect.arrayContaining([a!.id, b!.id]));
    } finally {
      stream.dispose();
    }
  });

  it('keeps only the types asked for', async () => {
    const stream = transport.open(bearer(tenantA.token), { types: ['webhooks.test', 'users.disable'] });
    try {
      await live(stream, 'tenant-a');
      await log.append(event('tenant-a', 'menus.create'));
      const wanted = await log.append(event('tenant-a', 'users.disable'));
      await until(() => stream.events.some((e) => e.id === wanted!.id), 'the wanted event');
      expect(stream.events.every((e) => e.type === 'webhooks.test' || e.type === 'users.disable')).toBe(true);
    } finally {
      stream.dispose();
    }
  });

  it('refuses a caller without events:read (403 FORBIDDEN naming the permission)', async () => {
    const stream = transport.open(bearer(member.token));
    await stream.ended;
    expect(stream.errors[0]).toMatchObject({ extensions: { code: 'FORBIDDEN' } });
    expect(stream.errors[0].message).toContain('events:read');
    expect(stream.events).toEqual([]);
    stream.dispose();
  });

  it('refuses an unknown type (400 naming types, rule eventType)', async () => {
    const stream = transport.open(bearer(tenantA.token), { types: ['menus.create', 'no.such-type'] });
    await stream.ended;
    expect(stream.errors[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', errors: [{ field: 'types', rule: 'eventType' }] } });
    stream.dispose();
  });

  it.each([
    ['absent', {}],
    ['not a token', bearer('not-a-token')],
    ['not Bearer', { authorization: 'Basic abc' }],
  ])('refuses a credential %s (401 UNAUTHENTICATED; over WebSocket at connection_init, closing 4401)', async (_name, credential) => {
    const stream = transport.open(credential);
    await stream.ended;
    if (transport.name === 'WebSocket') {
      // Not acknowledged to stay open: the socket closes with the reason in words.
      const closed = stream.errors[0] as { code?: number; reason?: string };
      expect(closed.code).toBe(4401);
      expect(closed.reason).toMatch(/credential|token|Bearer|Authorization/i);
    } else expect(codeOf(stream)).toBe('UNAUTHENTICATED');
    expect(stream.events).toEqual([]);
    stream.dispose();
  });

  it('applies the document limits of POST /graphql (aliases) and serves subscriptions only', async () => {
    const query = transport.open(bearer(tenantA.token), {}, '{ me { id } }');
    await query.ended;
    expect(codeOf(query)).toBe('BAD_USER_INPUT');
    expect(query.errors[0].message).toContain('Only subscriptions');
    query.dispose();
    const aliases = transport.open(bearer(tenantA.token), {}, `subscription { ${Array.from({ length: 20 }, (_, i) => `a${i}: events { id }`).join(' ')} }`);
    await aliases.ended;
    expect(codeOf(aliases)).toBe('GRAPHQL_VALIDATION_FAILED');
    aliases.dispose();
  });

  it('ends the stream, saying why, once its API key is revoked', async () => {
    const key = await makeKey(tenantA, ['events:read']);
    const stream = transport.open(bearer(key.secret));
    try {
      await live(stream, 'tenant-a');
      const revokedAt = Date.now();
      const revoked = await app.rest('PATCH', `/api-keys/${key.id}/revoke`, { token: tenantA.token });
      expect(revoked.status).toBe(200);
      await until(() => stream.endedAt() !== null, 'the stream to end');
      expect(stream.endedAt()!).toBeGreaterThanOrEqual(revokedAt);
      expect(codeOf(stream)).toBe('UNAUTHENTICATED');
      expect(stream.errors[0].message).toMatch(/revoked/i);
    } finally {
      stream.dispose();
    }
  });

  it('ends the stream once its user is disabled', async () => {
    const user = await app.createUser({ tenantId: 'tenant-c' });
    const stream = transport.open(bearer(user.token));
    try {
      await live(stream, 'tenant-c');
      const disabledAt = Date.now();
      const disabled = await app.rest('PATCH', `/access-control/users/${user.id}/disable`, { token: platform.token });
      expect(disabled.status).toBe(200);
      await until(() => stream.endedAt() !== null, 'the stream to end');
      expect(stream.endedAt()!).toBeGreaterThanOrEqual(disabledAt);
      expect(codeOf(stream)).toBe('UNAUTHENTICATED');
    } finally {
      stream.dispose();
    }
  });

  it(`refuses a credential's subscription beyond EVENT_SUBSCRIPTIONS_PER_CREDENTIAL (${PER_CREDENTIAL} here), and takes one again once one ends`, async () => {
    const key = await makeKey(tenantA, ['events:read']);
    const open = Array.from({ length: PER_CREDENTIAL }, () => transport.open(bearer(key.secret)));
    try {
      for (const stream of open) await live(stream, 'tenant-a');
      const extra = transport.open(bearer(key.secret));
      await extra.ended;
      expect(codeOf(extra)).toBe('RATE_LIMITED');
      expect(extra.errors[0].message).toContain('EVENT_SUBSCRIPTIONS_PER_CREDENTIAL');
      extra.dispose();
      open.shift()!.dispose();
      const again = transport.open(bearer(key.secret));
      open.push(again);
      await until(() => {
        if (again.errors.length > 0) throw new Error(JSON.stringify(again.errors));
        return true;
      }, 'no refusal');
      await live(again, 'tenant-a');
    } finally {
      for (const stream of open) stream.dispose();
    }
  });

  it('delivers a burst of 200 events all, in order, once each', async () => {
    // A user of its own: the per-credential limit counts the streams other cases still close.
    const user = await app.createUser({ tenantId: 'tenant-d' });
    const stream = transport.open(bearer(user.token), { types: ['menus.update'] });
    try {
      await live(stream, 'tenant-d', 'menus.update');
      await new Promise((r) => setTimeout(r, 500)); // the probes still in flight land first
      const before = stream.events.length;
      const ids: string[] = [];
      for (let i = 0; i < 200; i++) ids.push((await log.append(event('tenant-d', 'menus.update', { changes: [`n${i}`] })))!.id);
      await until(() => stream.events.length >= before + 200, '200 events');
      await new Promise((r) => setTimeout(r, 300));
      const got = stream.events.slice(before).map((e) => e.id);
      expect(got).toEqual(ids);
      expect(new Set(stream.events.map((e) => e.id)).size).toBe(stream.events.length);
    } finally {
      stream.dispose();
    }
  });
});
