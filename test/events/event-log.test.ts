import { Types } from 'mongoose';
import { afterAll, beforeAll, expect } from 'vitest';
import { EventLog, EventOutbox } from '../../src/events/index.js';
import { apiCase, runCases, type Caller, type Operation } from '../support/surfaces.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * The event log (`events(limit, cursor, type, from, to)` / `GET /events`),
 * one table of cases over REST and GraphQL: committed events only, newest
 * first, the caller's tenant (a platform administrator: every tenant's),
 * `type` checked against the catalogue, from/to on occurredAt, cursor pages,
 * `events:read`.
 */

let app: TestApp;
const TENANT = 'tenant-event-log';
const OTHER = 'tenant-event-log-other';
let admin: Caller & { id: string };
let member: Caller;
let platform: Caller;
let roleId: string;
const log = new EventLog({ retentionSeconds: 3600 });
const system = { type: 'system', id: null };

beforeAll(async () => {
  app = await startTestApp();
  const [a, m, p] = await Promise.all([
    app.createUser({ tenantId: TENANT }),
    app.createUser({ tenantId: TENANT, roles: ['member'] }),
    app.createUser({ tenantId: null }),
  ]);
  admin = { token: a.token, id: a.id };
  member = { token: m.token };
  platform = { token: p.token };
  // Oldest first: expiring (TENANT), expiring (OTHER), a pending one (TENANT), then a real change.
  await log.append({ type: 'api-keys.expiring', tenant_id: TENANT, actor: system, target: { type: 'ApiKey', id: new Types.ObjectId().toHexString() }, data: { days: 7 } });
  await log.append({ type: 'api-keys.expiring', tenant_id: OTHER, actor: system, target: { type: 'ApiKey', id: new Types.ObjectId().toHexString() }, data: { days: 7 } });
  await new EventOutbox({ retentionSeconds: 3600 }).open({
    id: new Types.ObjectId(),
    type: 'roles.update',
    tenant_id: TENANT,
    actor: { type: 'user', id: a.id },
    target: { type: 'Role', id: null },
    data: {},
  });
  const created = await app.rest('POST', '/access-control/roles', { token: a.token, body: { name: 'event-log-role', permissions: ['menus:read'] } });
  expect(created.status).toBe(201);
  roleId = created.body.id;
});
afterAll(async () => {
  await app?.close();
});

const FIELDS = 'items { id type tenant_id occurredAt actor { type id } target { type id } data } nextCursor';
function list(args: Record<string, string | number> = {}): Operation {
  const types: Record<string, string> = { limit: 'Int', cursor: 'String', type: 'String', from: 'DateTimeISO', to: 'DateTimeISO' };
  const names = Object.keys(args);
  const declared = names.length > 0 ? `(${names.map((n) => `$${n}: ${types[n]}`).join(', ')})` : '';
  const passed = names.length > 0 ? `(${names.map((n) => `${n}: $${n}`).join(', ')})` : '';
  const query = new URLSearchParams(Object.entries(args).map(([k, v]) => [k, String(v)])).toString();
  return {
    rest: { method: 'GET', path: `/events${query ? `?${query}` : ''}` },
    graphql: { query: `query${declared} { events${passed} { ${FIELDS} } }`, variables: args },
  };
}
const typesOf = (data: any) => data.items.map((event: any) => `${event.type}@${event.tenant_id}`);

runCases('events / GET /events', () => app, [
  apiCase({
    name: 'a tenant administrator reads its tenant\'s committed events, newest first, in the contract\'s shape',
    caller: () => admin,
    operation: () => list(),
    expect: {
      status: 200,
      data: (data) => {
        expect(typesOf(data)).toEqual([`roles.create@${TENANT}`, `api-keys.expiring@${TENANT}`]);
        expect(data.items[0]).toEqual({
          id: expect.stringMatching(/^[0-9a-f]{24}$/),
          type: 'roles.create',
          tenant_id: TENANT,
          occurredAt: expect.any(String),
          actor: { type: 'user', id: admin.id },
          target: { type: 'Role', id: roleId },
          data: { changes: expect.arrayContaining(['name', 'permissions']) },
        });
        expect(data.nextCursor).toBeNull();
      },
    },
  }),
  apiCase({
    name: 'a platform administrator reads every tenant\'s',
    caller: () => platform,
    operation: () => list({ type: 'api-keys.expiring' }),
    expect: { status: 200, data: (data) => expect(typesOf(data)).toEqual([`api-keys.expiring@${OTHER}`, `api-keys.expiring@${TENANT}`]) },
  }),
  apiCase({
    name: 'type keeps that type only',
    caller: () => admin,
    operation: () => list({ type: 'roles.create' }),
    expect: { status: 200, data: (data) => expect(typesOf(data)).toEqual([`roles.create@${TENANT}`]) },
  }),
  apiCase({
    name: 'a type not in the catalogue is 400 naming the field and rule',
    caller: () => admin,
    operation: () => list({ type: 'roles.explode' }),
    expect: { status: 400, code: 'BAD_USER_INPUT', fieldErrors: [{ field: 'type', rule: 'eventType' }] },
  }),
  apiCase({
    name: 'from and to bound occurredAt',
    caller: () => admin,
    operation: () => list({ from: new Date(Date.now() + 3_600_000).toISOString() }),
    expect: { status: 200, data: (data) => expect(data.items).toEqual([]) },
  }),
  apiCase({
    name: 'to before every event answers none',
    caller: () => admin,
    operation: () => list({ to: '2000-01-01T00:00:00.000Z' }),
    expect: { status: 200, data: (data) => expect(data.items).toEqual([]) },
  }),
  apiCase({
    name: 'a page of one has a cursor to the next',
    arrange: async () => {
      const first = await app.rest('GET', '/events?limit=1', { token: admin.token });
      expect(first.body.items.map((event: any) => event.type)).toEqual(['roles.create']);
      return first.body.nextCursor as string;
    },
    caller: () => admin,
    operation: (cursor: string) => list({ limit: 1, cursor }),
    expect: { status: 200, data: (data) => expect(typesOf(data)).toEqual([`api-keys.expiring@${TENANT}`]) },
  }),
  apiCase({
    name: 'a caller without events:read is refused (403)',
    caller: () => member,
    operation: () => list(),
    expect: { status: 403, code: 'FORBIDDEN' },
  }),
  apiCase({
    name: 'no credential is 401',
    caller: () => ({}),
    operation: () => list(),
    expect: { status: 401, code: 'UNAUTHENTICATED' },
  }),
]);
