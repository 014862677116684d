import type { Document } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { argumentTypes } from '../support/schema-operations.js';
import { servedSchema } from '../support/test-app.js';
import { apiCase, callOperation, runCases, SURFACES, type Caller, type Operation } from '../support/surfaces.js';
import {
  admin,
  app,
  client,
  exactMessage,
  EVERY_SETTING,
  KEY_FIELDS,
  makeKey,
  member,
  outsider,
  reader,
  revokedKey,
  storedById,
  TENANT,
  useApiKeysApp,
  type MadeKey,
} from './api-key-fixtures.js';

/**
 * Updating an API key (contract "API keys: managing a key through its
 * life"): partial, null clears, the secret unchanged, the bounds of creating
 * (a user within what they hold, a key acting within itself), who may, 409
 * for a revoked key, 400 naming each field, the audit record, and the change
 * honoured on the key's next use (the busy-key grant path included).
 */

useApiKeysApp();

const UPDATE_TYPES = argumentTypes(await servedSchema(), 'Mutation.updateApiKey');

/** `updateApiKey` with exactly the fields of `body` (null sent as null). */
function update(id: string, body: Record<string, unknown>): Operation {
  const names = Object.keys(body);
  const declared = ['$id: ID!', ...names.map((name) => `$${name}: ${UPDATE_TYPES[name] ?? 'String'}`)].join(', ');
  const passed = ['id: $id', ...names.map((name) => `${name}: $${name}`)].join(', ');
  return {
    rest: { method: 'PATCH', path: `/api-keys/${id}`, body },
    graphql: { query: `mutation(${declared}) { updateApiKey(${passed}) { ${KEY_FIELDS} } }`, variables: { id, ...body } },
  };
}

const asKey = (made: MadeKey): Caller => ({ token: made.key });
const inMinutes = (minutes: number) => new Date(Date.now() + minutes * 60_000);

/** A key and its stored record before the call: a refusal leaves it as it was. */
async function keyAndBefore(creator: Caller, body: Record<string, unknown> = {}) {
  const made = await makeKey(creator, body);
  return { ...made, before: await storedById(made.id) };
}
const unchanged = async (fixture: { id: string; before: Document | null }) => expect(await storedById(fixture.id)).toEqual(fixture.before);

/** A key of the admin acting with api-keys:update (and menus:read), bounded: rate limit 10, expiring in an hour, one address. */
async function boundedCaller() {
  return makeKey(admin, { scopes: ['api-keys:update', 'menus:read'], rateLimit: 10, expiresAt: inMinutes(60).toISOString(), allowedIPs: ['10.0.0.0/8', '127.0.0.1', '::1'] });
}

runCases('updating an API key (PATCH /api-keys/{id}, updateApiKey)', client, [
  apiCase({
    name: 'changes only the fields given; the rest and the secret stay',
    arrange: () => keyAndBefore(member, { ...EVERY_SETTING, scopes: ['menus:read'] }),
    caller: () => member,
    operation: ({ id }) => update(id, { name: 'renamed', rateLimit: 42 }),
    expect: {
      status: 200,
      data: (key, made) => {
        expect(key).toMatchObject({ _id: made.id, name: 'renamed', rateLimit: 42, status: 'active', updatedBy: member.id });
        expect(key).toMatchObject({ description: EVERY_SETTING.description, allowedIPs: EVERY_SETTING.allowedIPs, metadata: EVERY_SETTING.metadata, keyId: made.keyId });
        expect(key.key).toBeUndefined();
      },
      db: async (made) => {
        const stored = await storedById(made.id);
        expect(stored).toMatchObject({ name: 'renamed', rateLimit: 42, allowedOrigins: EVERY_SETTING.allowedOrigins });
        expect(stored?.secrets).toEqual(made.before?.secrets);
      },
    },
  }),
  apiCase({
    name: 'null clears the optional fields: no description, no expiry, any address or origin, the default rate limit, empty metadata',
    arrange: () => keyAndBefore(member, { ...EVERY_SETTING, scopes: ['menus:read'], expiresAt: inMinutes(60).toISOString() }),
    caller: () => member,
    operation: ({ id }) => update(id, { description: null, expiresAt: null, allowedIPs: null, allowedOrigins: null, rateLimit: null, metadata: null }),
    expect: {
      status: 200,
      data: (key) => expect(key).toMatchObject({ description: null, expiresAt: null, allowedIPs: [], allowedOrigins: [], rateLimit: 1000, metadata: {} }),
      db: async (made) => expect(await storedById(made.id)).toMatchObject({ description: null, expiresAt: null, allowedIPs: [], rateLimit: 1000, metadata: {} }),
    },
  }),
  apiCase({
    name: 'lets a holder of api-keys:update (an administrator) change a key someone else created',
    arrange: () => makeKey(member),
    caller: () => admin,
    operation: ({ id }) => update(id, { scopes: ['menus:read', 'menus:write'] }),
    expect: { status: 200, data: (key) => expect([key.scopes, key.createdBy, key.updatedBy]).toEqual([['menus:read', 'menus:write'], member.id, admin.id]) },
  }),
  apiCase({
    name: 'refuses anyone else of the tenant with 403, changing nothing',
    arrange: () => keyAndBefore(member),
    caller: () => reader,
    operation: ({ id }) => update(id, { name: 'taken over' }),
    expect: { status: 403, code: 'FORBIDDEN', data: exactMessage('You do not have permission to update this API key'), db: unchanged },
  }),
  apiCase({
    name: "refuses the creator's own API key without api-keys:update (only the creator in person), changing nothing",
    arrange: async () => ({ ...(await keyAndBefore(member)), caller: await makeKey(member, { scopes: ['menus:read'] }) }),
    caller: (fixture) => asKey(fixture.caller),
    operation: ({ id }) => update(id, { name: 'by a key' }),
    expect: { status: 403, code: 'FORBIDDEN', db: unchanged },
  }),
  apiCase({
    name: 'refuses a user a scope they do not hold (403 naming scopes), changing nothing',
    arrange: () => keyAndBefore(member),
    caller: () => member,
    operation: ({ id }) => update(id, { scopes: ['menus:read', 'menus:write'] }),
    expect: { status: 403, code: 'FORBIDDEN', fieldErrors: [{ field: 'scopes', rule: 'heldByCaller' }], db: unchanged },
  }),
  apiCase({
    name: "lets a key acting set settings within its own (expiry, limit, addresses, scopes)",
    arrange: async () => ({ ...(await keyAndBefore(admin, { rateLimit: 5, expiresAt: inMinutes(30).toISOString(), allowedIPs: ['10.1.0.0/16'] })), caller: await boundedCaller() }),
    caller: (fixture) => asKey(fixture.caller),
    operation: ({ id }) => update(id, { rateLimit: 10, allowedIPs: ['10.2.0.0/16'], description: 'by a key' }),
    expect: { status: 200, data: (key) => expect(key).toMatchObject({ rateLimit: 10, allowedIPs: ['10.2.0.0/16'], description: 'by a key' }) },
  }),
  apiCase({
    name: 'refuses a key acting any setting beyond its own (403 naming each field), changing nothing',
    arrange: async () => ({ ...(await keyAndBefore(admin, { rateLimit: 5, expiresAt: inMinutes(30).toISOString(), allowedIPs: ['10.1.0.0/16'] })), caller: await boundedCaller() }),
    caller: (fixture) => asKey(fixture.caller),
    operation: ({ id }) => update(id, { rateLimit: 11, expiresAt: null, allowedIPs: ['192.0.2.0/24'] }),
    expect: {
      status: 403,
      code: 'FORBIDDEN',
      fieldErrors: [
        { field: 'rateLimit', rule: 'withinCallingKey' },
        { field: 'expiresAt', rule: 'withinCallingKey' },
        { field: 'allowedIPs', rule: 'withinCallingKey' },
      ],
      db: unchanged,
    },
  }),
  apiCase({
    name: 'refuses a key acting a scope beyond its own (403 naming scopes), changing nothing',
    arrange: async () => ({ ...(await keyAndBefore(admin, { rateLimit: 5, expiresAt: inMinutes(30).toISOString(), allowedIPs: ['10.1.0.0/16'] })), caller: await boundedCaller() }),
    caller: (fixture) => asKey(fixture.caller),
    operation: ({ id }) => update(id, { scopes: ['menus:read', 'menus:write'] }),
    expect: { status: 403, code: 'FORBIDDEN', fieldErrors: [{ field: 'scopes', rule: 'heldByCaller' }], db: unchanged },
  }),
  apiCase({
    name: 'refuses a key acting to leave a key beyond it: a field left out counts as it stays (no expiry here)',
    arrange: async () => ({ ...(await keyAndBefore(admin, { rateLimit: 5 })), caller: await boundedCaller() }),
    caller: (fixture) => asKey(fixture.caller),
    operation: ({ id }) => update(id, { name: 'still unbounded' }),
    expect: { status: 403, code: 'FORBIDDEN', fieldErrors: [{ field: 'expiresAt', rule: 'withinCallingKey' }, { field: 'allowedIPs', rule: 'withinCallingKey' }], db: unchanged },
  }),
  apiCase({
    name: 'refuses a revoked key with 409, changing nothing',
    arrange: async () => {
      const made = await revokedKey(member);
      return { ...made, before: await storedById(made.id) };
    },
    caller: () => member,
    operation: ({ id }) => update(id, { name: 'revived' }),
    expect: { status: 409, code: 'CONFLICT', fieldErrors: [{ field: 'status', rule: 'revoked' }], db: unchanged },
  }),
  apiCase({
    name: "answers 404 for another tenant's key, changing nothing",
    arrange: () => keyAndBefore(member),
    caller: () => outsider,
    operation: ({ id }) => update(id, { name: 'elsewhere' }),
    expect: { status: 404, code: 'NOT_FOUND', db: unchanged },
  }),
  apiCase({
    name: 'refuses bad input with 400 naming each field and rule, changing nothing',
    arrange: () => keyAndBefore(member),
    caller: () => member,
    operation: ({ id }) => update(id, { name: '', rateLimit: 0, allowedIPs: ['not an address'], expiresAt: '2001-01-01T00:00:00.000Z', scopes: ['menus:nope'] }),
    expect: {
      status: 400,
      code: 'BAD_USER_INPUT',
      fieldErrors: [
        { field: 'name', rule: 'isLength' },
        { field: 'rateLimit', rule: 'min' },
        { field: 'allowedIPs', rule: 'isIpOrCidr' },
        { field: 'expiresAt', rule: 'isFutureDate' },
        { field: 'scopes', rule: 'isIn' },
      ],
      db: unchanged,
    },
  }),
  apiCase({
    name: 'refuses clearing a field that cannot be cleared (name, scopes) with 400 naming each, changing nothing',
    arrange: () => keyAndBefore(member),
    caller: () => member,
    operation: ({ id }) => update(id, { name: null, scopes: null }),
    expect: { status: 400, code: 'BAD_USER_INPUT', fieldErrors: [{ field: 'name', rule: 'isDefined' }, { field: 'scopes', rule: 'isDefined' }], db: unchanged },
  }),
]);

describe('the audit record of an update', () => {
  it.each(SURFACES)('over %s: api-keys.update naming the fields given, never a value', async (surface) => {
    const made = await makeKey(member);
    const requestId = `update-audit-${surface}-${made.id}`;
    const outcome = await callOperation(client(), surface, update(made.id, { name: 'audited name', description: null, metadata: { secretish: 'v' } }), {
      token: member.token,
      headers: { 'x-request-id': requestId },
    });
    expect(outcome.status).toBe(200);
    const records = await app.db.collection('auditevents').find({ requestId }).toArray();
    expect(records.map((r) => [r.action, r.target.id, r.tenant_id, r.actor.id, r.outcome])).toEqual([['api-keys.update', made.id, TENANT, member.id, 'success']]);
    expect([...records[0].changes].sort()).toEqual(['description', 'metadata', 'name']);
    expect(JSON.stringify(records)).not.toContain('audited name');
  });
});

describe("the key's next use reads the change", () => {
  const menus = (made: MadeKey) => app.rest('GET', '/restaurant/meal-menus', { token: made.key });

  it('narrowed scopes are refused on the next use, on this instance', async () => {
    const made = await makeKey(admin, { scopes: ['menus:read'] });
    expect((await menus(made)).status).toBe(200);
    expect((await app.rest('PATCH', `/api-keys/${made.id}`, { token: admin.token, body: { scopes: ['users:read'] } })).status).toBe(200);
    expect((await menus(made)).status).toBe(403);
  });

  it('a busy key served from a grant: narrowed scopes and a lowered limit apply on the next use', async () => {
    // 100,000 per hour: uses are counted in grants of up to 100 (api-key-grants.ts), served here without a database read.
    const made = await makeKey(admin, { scopes: ['menus:read'], rateLimit: 100_000 });
    for (let i = 0; i < 5; i += 1) expect((await menus(made)).status).toBe(200);
    expect((await app.rest('PATCH', `/api-keys/${made.id}`, { token: admin.token, body: { scopes: ['users:read'] } })).status).toBe(200);
    expect((await menus(made)).status).toBe(403);

    const busy = await makeKey(admin, { scopes: ['menus:read'], rateLimit: 100_000 });
    for (let i = 0; i < 5; i += 1) expect((await menus(busy)).status).toBe(200);
    expect((await app.rest('PATCH', `/api-keys/${busy.id}`, { token: admin.token, body: { rateLimit: 2 } })).status).toBe(200);
    const next = await menus(busy);
    expect(next.status).toBe(429);
    expect(next.headers.get('ratelimit-policy')).toBe('"key";q=2;w=3600');
  });

  it('a cleared address list lets the key in on the next use', async () => {
    const made = await makeKey(admin, { scopes: ['menus:read'], allowedIPs: ['192.0.2.1'] });
    expect((await menus(made)).status).toBe(403);
    expect((await app.rest('PATCH', `/api-keys/${made.id}`, { token: admin.token, body: { allowedIPs: null } })).status).toBe(200);
    expect((await menus(made)).status).toBe(200);
  });
});
