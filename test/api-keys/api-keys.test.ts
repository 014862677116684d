import { createHash } from 'node:crypto';
import { ObjectId, type Document } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyModel, createApiKeyStore } from '../../src/api-keys/index.js';
import { parseApiKeySecret, permissions, type ApiKeyStore, type ApiKeyUse } from '../../src/auth/index.js';
import { RoleModel } from '../../src/users/index.js';
import { argumentTypes } from '../support/schema-operations.js';
import { servedSchema, startTestApp, type TestApp, type TestUser } from '../support/test-app.js';
import { apiCase, callOperation, runCases, SURFACES, type Caller, type Operation, type Surface } from '../support/surfaces.js';

/**
 * API keys (description 2.1, 3, 4.1, 4.2, 7, 8; contract "API keys"), every
 * operation and refusal over REST and GraphQL, the audit records they leave,
 * and the credential store (`countUse`, `recordUses`) on the app's database.
 * Mutation cases check the stored record through the native driver
 * (`apikeys` collection).
 */

let app: TestApp;
const client = () => app;
let store: ApiKeyStore;

const TENANT = 'tenant-api-keys';
const OTHER_TENANT = 'tenant-api-keys-elsewhere';
const LIST_TENANT = 'tenant-api-keys-lists';
const RETENTION_SECONDS = 3600;

type Who = Caller & { id: string; user: TestUser };
let platform: Who; // platform administrator, no tenant
let admin: Who; // TENANT, built-in admin (`*`)
let member: Who; // TENANT, built-in member: api-keys:create, no api-keys:read/revoke
let otherMember: Who; // TENANT, another member
let reader: Who; // TENANT, custom role: api-keys:read (+ create)
let revoker: Who; // TENANT, custom role: api-keys:revoke only
let outsider: Who; // OTHER_TENANT admin
const nobody: Caller = {};

// LIST_TENANT: fixed keys nobody changes.
let listAdmin: Who;
let listReader: Who; // api-keys:read + api-keys:create
let listMemberA: Who;
let listMemberB: Who;
const listKeys: Record<'aActive' | 'aRevoked' | 'bExpired' | 'adminActive', string> = { aActive: '', aRevoked: '', bExpired: '', adminActive: '' };
let otherTenantKeyId: string;

// ---------------------------------------------------------------- operations

const KEY_FIELDS = `_id id keyId name description status scopes allowedOrigins allowedIPs expiresAt lastUsedAt
  usageCount rateLimit createdBy createdByKey updatedBy metadata createdAt updatedAt tenant_id revokedAt revokedBy`;
const USAGE_FIELDS = 'at ip origin method path operation status';

/** The fields of 2.1, every one present in an answer. */
const FIELDS_OF_2_1 = [
  '_id', 'keyId', 'name', 'description', 'status', 'scopes', 'allowedOrigins', 'allowedIPs', 'expiresAt', 'lastUsedAt',
  'usageCount', 'rateLimit', 'createdBy', 'updatedBy', 'metadata', 'createdAt', 'updatedAt',
];

/** GraphQL types of the create arguments, from the served schema; anything else is declared String. */
const CREATE_TYPES = argumentTypes(await servedSchema(), 'Mutation.createApiKey');

const KEY_PATTERN = /^ak_[0-9A-Za-z]{12}_[0-9A-Za-z]{49}$/;

function queryString(args: Record<string, string | number | boolean>): string {
  const text = new URLSearchParams(Object.entries(args).map(([k, v]) => [k, String(v)])).toString();
  return text ? `?${text}` : '';
}

const op = {
  create(body: Record<string, unknown>): Operation {
    const names = Object.keys(body);
    const declared = names.map((name) => `$${name}: ${CREATE_TYPES[name] ?? 'String'}`).join(', ');
    const passed = names.map((name) => `${name}: $${name}`).join(', ');
    return {
      rest: { method: 'POST', path: '/api-keys', body },
      graphql: { query: `mutation(${declared}) { createApiKey(${passed}) { ${KEY_FIELDS} key } }`, variables: body },
    };
  },
  list(args: { limit?: number; cursor?: string; status?: string } = {}): Operation {
    return {
      rest: { method: 'GET', path: `/api-keys${queryString(args)}` },
      graphql: {
        query: `query($limit: Int, $cursor: String, $status: ApiKeyStatus) {
          apiKeys(limit: $limit, cursor: $cursor, status: $status) { items { ${KEY_FIELDS} } nextCursor } }`,
        variables: { ...args },
      },
    };
  },
  /** `includeUsageLogs` is sent as given: REST puts it in the query string, GraphQL in a variable. */
  get(id: string, includeUsageLogs?: unknown): Operation {
    const args: Record<string, string> = includeUsageLogs === undefined ? {} : { includeUsageLogs: String(includeUsageLogs) };
    return {
      rest: { method: 'GET', path: `/api-keys/${id}${queryString(args)}` },
      graphql: {
        query: `query($id: ID!, $includeUsageLogs: Boolean) {
          apiKey(id: $id, includeUsageLogs: $includeUsageLogs) { ${KEY_FIELDS} usageLogs { ${USAGE_FIELDS} } } }`,
        variables: { id, ...(includeUsageLogs === undefined ? {} : { includeUsageLogs }) },
      },
    };
  },
  usageLogs(id: string, args: { limit?: number; cursor?: string } = {}): Operation {
    return {
      rest: { method: 'GET', path: `/api-keys/${id}/usage-logs${queryString(args)}` },
      graphql: {
        query: `query($id: ID!, $limit: Int, $cursor: String) {
          apiKeyUsageLogs(id: $id, limit: $limit, cursor: $cursor) { items { ${USAGE_FIELDS} } nextCursor } }`,
        variables: { id, ...args },
      },
    };
  },
  revoke(id: string): Operation {
    return {
      rest: { method: 'PATCH', path: `/api-keys/${id}/revoke` },
      graphql: { query: `mutation($id: ID!) { revokeApiKey(id: $id) { ${KEY_FIELDS} } }`, variables: { id } },
    };
  },
  roll(id: string, gracePeriodSeconds?: number): Operation {
    const body = gracePeriodSeconds === undefined ? undefined : { gracePeriodSeconds };
    return {
      rest: { method: 'POST', path: `/api-keys/${id}/roll`, body },
      graphql: {
        query: `mutation($id: ID!, $gracePeriodSeconds: Int) {
          rollApiKey(id: $id, gracePeriodSeconds: $gracePeriodSeconds) { ${KEY_FIELDS} key } }`,
        variables: { id, ...body },
      },
    };
  },
};

// ---------------------------------------------------------------- fixtures

let counter = 0;
/** A name unique per call (and so per surface). */
const freshName = (prefix = 'key') => `${prefix}-${(counter += 1)}-${Date.now().toString(36)}`;

const apiKeys = () => app.db.collection('apikeys');
const storedById = (id: string) => apiKeys().findOne({ _id: new ObjectId(id) });
const countByName = (name: unknown) => apiKeys().countDocuments({ name });
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const unknownId = () => new ObjectId().toHexString();

interface MadeKey {
  id: string;
  key: string;
  keyId: string;
  record: Record<string, any>;
}

/** A key made through the API (REST) by `creator`. */
async function makeKey(creator: Caller, body: Record<string, unknown> = {}): Promise<MadeKey> {
  const response = await app.rest('POST', '/api-keys', { token: creator.token, body: { name: freshName(), scopes: ['menus:read'], ...body } });
  if (response.status !== 201) throw new Error(`createApiKey answered ${response.status}: ${JSON.stringify(response.body)}`);
  return { id: response.body._id, key: response.body.key, keyId: response.body.keyId, record: response.body };
}

/** A key whose expiresAt has passed (planted: the API refuses a past expiresAt). */
async function expiredKey(creator: Caller): Promise<MadeKey> {
  const made = await makeKey(creator);
  await ApiKeyModel.updateOne({ _id: made.id }, { $set: { expiresAt: new Date(Date.now() - 60_000) } });
  return made;
}

async function revokedKey(creator: Caller): Promise<MadeKey> {
  const made = await makeKey(creator);
  const response = await app.rest('PATCH', `/api-keys/${made.id}/revoke`, { token: creator.token });
  if (response.status !== 200) throw new Error(`revokeApiKey answered ${response.status}`);
  return made;
}

function caller(user: TestUser): Who {
  return { token: user.token, id: user.id, user };
}

/** `count` uses of a key, one minute apart, newest at `newest`, handed to the store in shuffled order. */
function plannedUses(apiKeyId: string, count: number, newest = new Date()): ApiKeyUse[] {
  const uses = Array.from({ length: count }, (_, i) => ({
    apiKeyId,
    at: new Date(newest.getTime() - i * 60_000),
    ip: '192.0.2.1',
    origin: i % 2 ? 'https://app.example.test' : null,
    method: i % 2 ? 'GET' : 'POST',
    path: i % 2 ? '/api/v1/restaurant/meal-menus' : '/graphql',
    operation: i % 2 ? null : `Op${i}`,
    status: 200,
  }));
  // Written out of order: the log orders by `at`, not by insertion.
  return [...uses.filter((_, i) => i % 3 === 1), ...uses.filter((_, i) => i % 3 !== 1)];
}

beforeAll(async () => {
  app = await startTestApp();
  store = createApiKeyStore({ usageLogRetentionSeconds: RETENTION_SECONDS });
  const [readerRole, revokerRole, listReaderRole] = await Promise.all([
    RoleModel.create({ name: 'key-reader', tenant_id: TENANT, permissions: ['api-keys:read', 'api-keys:create', 'menus:read'] }),
    RoleModel.create({ name: 'key-revoker', tenant_id: TENANT, permissions: ['api-keys:revoke'] }),
    RoleModel.create({ name: 'key-reader', tenant_id: LIST_TENANT, permissions: ['api-keys:read', 'api-keys:create', 'menus:read'] }),
  ]);
  const users = await Promise.all([
    app.createUser({ tenantId: null }),
    app.createUser({ tenantId: TENANT, roles: ['admin'] }),
    app.createUser({ tenantId: TENANT, roles: ['member'] }),
    app.createUser({ tenantId: TENANT, roles: ['member'] }),
    app.createUser({ tenantId: TENANT, roles: [String(readerRole._id)] }),
    app.createUser({ tenantId: TENANT, roles: [String(revokerRole._id)] }),
    app.createUser({ tenantId: OTHER_TENANT, roles: ['admin'] }),
    app.createUser({ tenantId: LIST_TENANT, roles: ['admin'] }),
    app.createUser({ tenantId: LIST_TENANT, roles: [String(listReaderRole._id)] }),
    app.createUser({ tenantId: LIST_TENANT, roles: ['member'] }),
    app.createUser({ tenantId: LIST_TENANT, roles: ['member'] }),
  ]);
  [platform, admin, member, otherMember, reader, revoker, outsider, listAdmin, listReader, listMemberA, listMemberB] = users.map(caller);

  // The list tenant, in creation order: A's active key, A's revoked key, B's expired key, the admin's key.
  listKeys.aActive = (await makeKey(listMemberA)).id;
  listKeys.aRevoked = (await revokedKey(listMemberA)).id;
  listKeys.bExpired = (await expiredKey(listMemberB)).id;
  listKeys.adminActive = (await makeKey(listAdmin)).id;
  otherTenantKeyId = (await makeKey(outsider)).id;
});

afterAll(async () => {
  await app?.close();
});

/** A refusal of one field and rule that writes no key. */
function refusedCreate(name: string, overrides: Record<string, unknown>, field: string, rule: string) {
  return apiCase({
    name,
    arrange: () => ({ name: freshName('refused'), scopes: ['menus:read'], ...overrides }),
    caller: () => admin,
    operation: (body) => op.create(body),
    expect: {
      status: 400,
      code: 'BAD_USER_INPUT',
      fieldErrors: [{ field, rule }],
      db: async (body) => expect(await countByName(body.name)).toBe(0),
    },
  });
}

const exactMessage = (message: string) => (_data: unknown, _fixture: unknown, outcome: { message?: string }) =>
  expect(outcome.message).toBe(message);

const VIEW_REFUSAL = 'You do not have permission to view this API key';
const REVOKE_REFUSAL = 'You do not have permission to revoke this API key';

// ---------------------------------------------------------------- create

const EVERY_SETTING = {
  description: 'Nightly menu export',
  scopes: ['menus:read', 'menus:write'],
  allowedOrigins: ['https://kitchen.example.test', 'http://localhost:3000'],
  allowedIPs: ['203.0.113.7', '10.0.0.0/8', '2001:db8::/32', '::1'],
  rateLimit: 250,
  metadata: { team: 'kitchen', cost: { centre: 42 }, tags: ['export', 'nightly'] },
};

runCases('creating an API key', client, [
  apiCase({
    name: 'answers 201 with every field of 2.1 and the secret key, shown once',
    arrange: () => ({ name: freshName(), ...EVERY_SETTING, expiresAt: new Date(Date.now() + 86_400_000).toISOString() }),
    caller: () => admin,
    operation: (body) => op.create(body),
    expect: {
      status: 201,
      data: (key, body) => {
        for (const field of FIELDS_OF_2_1) expect(key, field).toHaveProperty(field);
        expect(key).toMatchObject({
          ...EVERY_SETTING,
          name: body.name,
          expiresAt: body.expiresAt,
          status: 'active',
          lastUsedAt: null,
          usageCount: 0,
          createdBy: admin.id,
          createdByKey: null,
          updatedBy: admin.id,
          tenant_id: TENANT,
          revokedAt: null,
          revokedBy: null,
        });
        expect(key._id).toMatch(/^[0-9a-f]{24}$/);
        expect(key.id).toBe(key._id);
        expect(key.key).toMatch(KEY_PATTERN);
        expect(key.key.slice(3, 15)).toBe(key.keyId);
        expect(Date.parse(key.createdAt)).not.toBeNaN();
        expect(Date.parse(key.updatedAt)).not.toBeNaN();
      },
      db: async (_body, outcome) => {
        const answered = outcome.data as { _id: string; key: string };
        const stored = await storedById(answered._id);
        expect(stored?.secrets).toEqual([{ hash: sha256(answered.key), validUntil: null }]);
        const text = JSON.stringify(stored);
        expect(text).not.toContain(answered.key);
        expect(text).not.toContain(answered.key.slice(16));
      },
    },
  }),
  apiCase({
    name: 'defaults: 1000 requests per hour, no lists, no expiry, empty metadata',
    arrange: () => ({ name: freshName(), scopes: ['menus:read'] }),
    caller: () => member,
    operation: (body) => op.create(body),
    expect: {
      status: 201,
      data: (key) =>
        expect(key).toMatchObject({
          rateLimit: 1000,
          allowedOrigins: [],
          allowedIPs: [],
          expiresAt: null,
          description: null,
          metadata: {},
          createdBy: member.id,
          status: 'active',
        }),
    },
  }),
  apiCase({
    name: "gives a platform administrator's key no tenant",
    arrange: () => ({ name: freshName(), scopes: ['users:read'] }),
    caller: () => platform,
    operation: (body) => op.create(body),
    expect: { status: 201, data: (key) => expect([key.tenant_id, key.createdBy]).toEqual([null, platform.id]) },
  }),
  refusedCreate('refuses an empty name', { name: '' }, 'name', 'isLength'),
  refusedCreate('refuses a name over 100 characters', { name: `long-${'x'.repeat(100)}` }, 'name', 'isLength'),
  refusedCreate('refuses a description over 500 characters', { description: 'd'.repeat(501) }, 'description', 'maxLength'),
  refusedCreate('refuses no scopes', { scopes: [] }, 'scopes', 'arrayMinSize'),
  refusedCreate('refuses a scope given twice', { scopes: ['menus:read', 'menus:read'] }, 'scopes', 'arrayUnique'),
  refusedCreate('refuses a scope outside the catalogue', { scopes: ['menus:read', 'everything:*'] }, 'scopes', 'isIn'),
  refusedCreate('refuses * as a scope', { scopes: ['*'] }, 'scopes', 'isIn'),
  refusedCreate('refuses more scopes than the catalogue holds', { scopes: [...permissions, 'menus:read'] }, 'scopes', 'arrayMaxSize'),
  refusedCreate('refuses an origin with a path', { allowedOrigins: ['https://kitchen.example.test/app'] }, 'allowedOrigins', 'isOrigin'),
  refusedCreate('refuses an origin with a trailing slash', { allowedOrigins: ['https://kitchen.example.test/'] }, 'allowedOrigins', 'isOrigin'),
  refusedCreate('refuses an origin that is not http(s)', { allowedOrigins: ['ftp://kitchen.example.test'] }, 'allowedOrigins', 'isOrigin'),
  refusedCreate('refuses an origin that is no URL', { allowedOrigins: ['kitchen.example.test'] }, 'allowedOrigins', 'isOrigin'),
  refusedCreate(
    'refuses more than 50 origins',
    { allowedOrigins: Array.from({ length: 51 }, (_, i) => `https://o${i}.example.test`) },
    'allowedOrigins',
    'arrayMaxSize',
  ),
  refusedCreate('refuses an IP that is no address', { allowedIPs: ['300.1.2.3'] }, 'allowedIPs', 'isIpOrCidr'),
  refusedCreate('refuses a host name as an IP', { allowedIPs: ['example.test'] }, 'allowedIPs', 'isIpOrCidr'),
  refusedCreate('refuses an IPv4 prefix over 32', { allowedIPs: ['10.0.0.0/33'] }, 'allowedIPs', 'isIpOrCidr'),
  refusedCreate('refuses an IPv6 prefix over 128', { allowedIPs: ['2001:db8::/129'] }, 'allowedIPs', 'isIpOrCidr'),
  refusedCreate('refuses a CIDR without a prefix length', { allowedIPs: ['10.0.0.0/'] }, 'allowedIPs', 'isIpOrCidr'),
  refusedCreate(
    'refuses more than 100 IPs',
    { allowedIPs: Array.from({ length: 101 }, (_, i) => `10.0.${Math.floor(i / 250)}.${i % 250}`) },
    'allowedIPs',
    'arrayMaxSize',
  ),
  refusedCreate('refuses an expiresAt in the past', { expiresAt: '2020-01-01T00:00:00.000Z' }, 'expiresAt', 'isFutureDate'),
  refusedCreate('refuses an expiresAt that is no instant', { expiresAt: 'next week' }, 'expiresAt', 'type'),
  refusedCreate('refuses a rateLimit of 0', { rateLimit: 0 }, 'rateLimit', 'min'),
  refusedCreate('refuses a rateLimit over 1,000,000', { rateLimit: 1_000_001 }, 'rateLimit', 'max'),
  refusedCreate('refuses a rateLimit that is no integer', { rateLimit: 1.5 }, 'rateLimit', 'type'),
  refusedCreate(
    'refuses metadata with more than 50 keys',
    { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) },
    'metadata',
    'maxKeys',
  ),
  refusedCreate('refuses metadata over 4 KiB as JSON', { metadata: { blob: 'x'.repeat(4100) } }, 'metadata', 'maxJsonBytes'),
  refusedCreate('refuses metadata keys MongoDB would read as operators', { metadata: { nested: { $where: 'x' } } }, 'metadata', 'storableKeys'),
  refusedCreate('refuses metadata that is no object', { metadata: ['a', 'b'] }, 'metadata', 'type'),
  apiCase({
    name: 'names every failing field at once',
    arrange: () => ({ name: '', scopes: ['nope'], allowedIPs: ['x'], rateLimit: 0 }),
    caller: () => admin,
    operation: (body) => op.create(body),
    expect: {
      status: 400,
      fieldErrors: [
        { field: 'name', rule: 'isLength' },
        { field: 'scopes', rule: 'isIn' },
        { field: 'allowedIPs', rule: 'isIpOrCidr' },
        { field: 'rateLimit', rule: 'min' },
      ],
    },
  }),
  apiCase({
    name: 'refuses an unknown field',
    arrange: () => ({ name: freshName('unknown'), scopes: ['menus:read'], tenant_id: OTHER_TENANT }),
    caller: () => admin,
    operation: (body) => op.create(body),
    expect: { status: 400, db: async (body) => expect(await countByName(body.name)).toBe(0) },
  }),
  apiCase({
    name: 'refuses a scope the caller does not hold with 403 naming it, and writes nothing',
    arrange: () => ({ name: freshName('ceiling'), scopes: ['menus:read', 'menus:write'] }),
    caller: () => member,
    operation: (body) => op.create(body),
    expect: {
      status: 403,
      code: 'FORBIDDEN',
      data: exactMessage("You cannot give an API key the scope 'menus:write' you do not hold"),
      db: async (body) => expect(await countByName(body.name)).toBe(0),
    },
  }),
  apiCase({
    name: 'names every scope the caller does not hold',
    arrange: () => ({ name: freshName('ceiling'), scopes: ['users:update', 'menus:read', 'api-keys:revoke'] }),
    caller: () => member,
    operation: (body) => op.create(body),
    expect: {
      status: 403,
      code: 'FORBIDDEN',
      data: exactMessage("You cannot give an API key the scopes 'users:update', 'api-keys:revoke' you do not hold"),
    },
  }),
  apiCase({
    name: 'refuses a caller without api-keys:create with 403',
    arrange: () => ({ name: freshName('no-create'), scopes: ['api-keys:revoke'] }),
    caller: () => revoker,
    operation: (body) => op.create(body),
    expect: { status: 403, code: 'FORBIDDEN', db: async (body) => expect(await countByName(body.name)).toBe(0) },
  }),
  apiCase({
    name: 'refuses a request without a credential with 401',
    arrange: () => ({ name: freshName('anonymous'), scopes: ['menus:read'] }),
    caller: () => nobody,
    operation: (body) => op.create(body),
    expect: { status: 401, code: 'UNAUTHENTICATED', headers: { 'www-authenticate': 'Bearer' } },
  }),
]);

// ---------------------------------------------------------------- list

const idsOf = (page: { items: { _id: string }[] }) => page.items.map((key) => key._id);

runCases('listing API keys', client, [
  apiCase({
    name: 'shows a holder of api-keys:read every key of the tenant, oldest first',
    caller: () => listReader,
    operation: () => op.list({ limit: 100 }),
    expect: {
      status: 200,
      data: (page) => {
        expect(idsOf(page)).toEqual([listKeys.aActive, listKeys.aRevoked, listKeys.bExpired, listKeys.adminActive]);
        expect(page.nextCursor).toBeNull();
        expect(JSON.stringify(page)).not.toMatch(/secrets|hash|rateWindow/);
      },
    },
  }),
  apiCase({
    name: 'shows anyone else only the keys they created',
    caller: () => listMemberA,
    operation: () => op.list(),
    expect: { status: 200, data: (page) => expect(idsOf(page)).toEqual([listKeys.aActive, listKeys.aRevoked]) },
  }),
  apiCase({
    name: 'shows a tenant administrator every key of the tenant and none of another',
    caller: () => listAdmin,
    operation: () => op.list(),
    expect: {
      status: 200,
      data: (page) => {
        expect(idsOf(page)).toHaveLength(4);
        expect(idsOf(page)).not.toContain(otherTenantKeyId);
      },
    },
  }),
  apiCase({
    name: 'shows a platform administrator the keys of every tenant',
    caller: () => platform,
    operation: () => op.list({ limit: 100 }),
    expect: { status: 200, data: (page) => expect(idsOf(page)).toEqual(expect.arrayContaining([listKeys.adminActive, otherTenantKeyId])) },
  }),
  apiCase({
    name: 'filters by status active (neither revoked nor expired)',
    caller: () => listReader,
    operation: () => op.list({ status: 'active' }),
    expect: {
      status: 200,
      data: (page) => {
        expect(idsOf(page)).toEqual([listKeys.aActive, listKeys.adminActive]);
        expect(page.items.every((key: { status: string }) => key.status === 'active')).toBe(true);
      },
    },
  }),
  apiCase({
    name: 'filters by status revoked',
    caller: () => listReader,
    operation: () => op.list({ status: 'revoked' }),
    expect: { status: 200, data: (page) => expect(page.items.map((k: any) => [k._id, k.status])).toEqual([[listKeys.aRevoked, 'revoked']]) },
  }),
  apiCase({
    name: 'filters by status expired',
    caller: () => listReader,
    operation: () => op.list({ status: 'expired' }),
    expect: { status: 200, data: (page) => expect(page.items.map((k: any) => [k._id, k.status])).toEqual([[listKeys.bExpired, 'expired']]) },
  }),
  apiCase({
    name: 'combines the status filter with creator-only visibility',
    caller: () => listMemberB,
    operation: () => op.list({ status: 'active' }),
    expect: { status: 200, data: (page) => expect(page.items).toEqual([]) },
  }),
  apiCase({
    name: 'refuses an unknown status (400 naming status)',
    caller: () => listReader,
    operation: () => op.list({ status: 'disabled' }),
    expect: { status: 400, fieldErrors: [{ field: 'status', rule: 'type' }] },
  }),
  apiCase({
    name: 'refuses a limit over 100 (400 naming limit)',
    caller: () => listReader,
    operation: () => op.list({ limit: 101 }),
    expect: { status: 400, fieldErrors: [{ field: 'limit', rule: 'max' }] },
  }),
  apiCase({
    name: 'refuses a request without a credential with 401',
    caller: () => nobody,
    operation: () => op.list(),
    expect: { status: 401, code: 'UNAUTHENTICATED' },
  }),
]);

describe('paging through API keys', () => {
  it.each(['rest', 'graphql'] as Surface[])('visits every visible key exactly once, one at a time, over %s', async (surface) => {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page += 1) {
      const outcome = await callOperation(client(), surface, op.list({ limit: 1, ...(cursor ? { cursor } : {}) }), listReader);
      const data = outcome.data as { items: { _id: string }[]; nextCursor: string | null };
      seen.push(...idsOf(data));
      if (!data.nextCursor) break;
      cursor = data.nextCursor;
    }
    expect(seen).toEqual([listKeys.aActive, listKeys.aRevoked, listKeys.bExpired, listKeys.adminActive]);
  });
});

// ---------------------------------------------------------------- get

/** A key of `creator` with `count` planted uses (written through the store, as the credential does). */
async function keyWithUses(creator: Caller, count: number) {
  const made = await makeKey(creator);
  const newest = new Date(Date.now() - 1000);
  await store.recordUses(plannedUses(made.id, count, newest));
  return { ...made, newest };
}

const isNewestFirst = (entries: { at: string }[]) => entries.every((entry, i) => i === 0 || Date.parse(entries[i - 1].at) > Date.parse(entry.at));

runCases('reading an API key', client, [
  apiCase({
    name: 'answers its creator every field of 2.1, without usage logs unless asked',
    arrange: () => makeKey(member, { description: 'mine', metadata: { a: 1 } }),
    caller: () => member,
    operation: ({ id }) => op.get(id),
    expect: {
      status: 200,
      data: (key, made) => {
        for (const field of FIELDS_OF_2_1) expect(key, field).toHaveProperty(field);
        const { key: _secret, ...record } = made.record;
        expect(key).toEqual({ ...record, usageLogs: null });
        expect(JSON.stringify(key)).not.toContain(made.key);
      },
    },
  }),
  apiCase({
    name: 'answers a holder of api-keys:read a key someone else created',
    arrange: () => makeKey(member),
    caller: () => reader,
    operation: ({ id }) => op.get(id),
    expect: { status: 200, data: (key, made) => expect([key._id, key.createdBy]).toEqual([made.id, member.id]) },
  }),
  apiCase({
    name: 'refuses anyone else of the tenant with 403 "You do not have permission to view this API key"',
    arrange: () => makeKey(member),
    caller: () => otherMember,
    operation: ({ id }) => op.get(id),
    expect: { status: 403, code: 'FORBIDDEN', data: exactMessage(VIEW_REFUSAL) },
  }),
  apiCase({
    name: "answers 404 for another tenant's key, even to its administrator",
    arrange: () => makeKey(member),
    caller: () => outsider,
    operation: ({ id }) => op.get(id),
    expect: { status: 404, code: 'NOT_FOUND' },
  }),
  apiCase({
    name: 'answers 404 for an unknown id',
    caller: () => admin,
    operation: () => op.get(unknownId()),
    expect: { status: 404, code: 'NOT_FOUND' },
  }),
  apiCase({
    name: 'refuses a malformed id (400 naming id)',
    caller: () => admin,
    operation: () => op.get('not-an-id'),
    expect: { status: 400, fieldErrors: [{ field: 'id', rule: 'isMongoId' }] },
  }),
  apiCase({
    name: 'reads status expired once expiresAt has passed',
    arrange: () => expiredKey(member),
    caller: () => member,
    operation: ({ id }) => op.get(id),
    expect: { status: 200, data: (key) => expect([key.status, key.revokedAt]).toEqual(['expired', null]) },
  }),
  apiCase({
    name: 'with includeUsageLogs: the 100 most recent uses, newest first, and the counters',
    arrange: () => keyWithUses(member, 105),
    caller: () => member,
    operation: ({ id }) => op.get(id, true),
    expect: {
      status: 200,
      data: (key, made) => {
        expect(key.usageLogs).toHaveLength(100);
        expect(isNewestFirst(key.usageLogs)).toBe(true);
        expect(key.usageLogs[0]).toEqual({
          at: made.newest.toISOString(),
          ip: '192.0.2.1',
          origin: null,
          method: 'POST',
          path: '/graphql',
          operation: 'Op0',
          status: 200,
        });
        expect(key.usageLogs[1]).toMatchObject({ origin: 'https://app.example.test', method: 'GET', operation: null });
        expect(key.usageCount).toBe(105);
        expect(key.lastUsedAt).toBe(made.newest.toISOString());
      },
    },
  }),
  apiCase({
    name: 'with includeUsageLogs=false: usageLogs is null',
    arrange: () => keyWithUses(member, 3),
    caller: () => member,
    operation: ({ id }) => op.get(id, false),
    expect: { status: 200, data: (key) => expect([key.usageLogs, key.usageCount]).toEqual([null, 3]) },
  }),
  apiCase({
    name: 'with includeUsageLogs: an empty list for a key never used',
    arrange: () => makeKey(member),
    caller: () => member,
    operation: ({ id }) => op.get(id, true),
    expect: { status: 200, data: (key) => expect([key.usageLogs, key.usageCount, key.lastUsedAt]).toEqual([[], 0, null]) },
  }),
  apiCase({
    name: 'refuses includeUsageLogs that is no boolean (400 naming it)',
    arrange: () => makeKey(member),
    caller: () => member,
    operation: ({ id }) => op.get(id, 'yes'),
    expect: { status: 400, fieldErrors: [{ field: 'includeUsageLogs', rule: 'type' }] },
  }),
]);

runCases("reading an API key's usage log", client, [
  apiCase({
    name: 'pages every use, newest first; the first page of 100 is what the record shows',
    arrange: () => keyWithUses(member, 105),
    caller: () => member,
    operation: ({ id }) => op.usageLogs(id, { limit: 100 }),
    expect: {
      status: 200,
      data: async (page, made, outcome) => {
        expect(page.items).toHaveLength(100);
        expect(page.nextCursor).toEqual(expect.any(String));
        const record = await callOperation(client(), outcome.surface, op.get(made.id, true), member);
        expect(page.items).toEqual((record.data as { usageLogs: unknown[] }).usageLogs);
        const rest = await callOperation(client(), outcome.surface, op.usageLogs(made.id, { limit: 100, cursor: page.nextCursor }), member);
        const restPage = rest.data as { items: { at: string }[]; nextCursor: string | null };
        expect(restPage.items).toHaveLength(5);
        expect(restPage.nextCursor).toBeNull();
        const all = [...page.items, ...restPage.items];
        expect(isNewestFirst(all)).toBe(true);
        expect(new Set(all.map((entry: { at: string }) => entry.at)).size).toBe(105);
      },
    },
  }),
  apiCase({
    name: 'pages in small steps too',
    arrange: () => keyWithUses(member, 5),
    caller: () => member,
    operation: ({ id }) => op.usageLogs(id, { limit: 2 }),
    expect: {
      status: 200,
      data: async (page, made, outcome) => {
        const seen = [...page.items];
        let cursor = page.nextCursor;
        while (cursor) {
          const next = (await callOperation(client(), outcome.surface, op.usageLogs(made.id, { limit: 2, cursor }), member)).data as typeof page;
          seen.push(...next.items);
          cursor = next.nextCursor;
        }
        expect(seen.map((entry: { at: string }) => entry.at)).toEqual(
          Array.from({ length: 5 }, (_, i) => new Date(made.newest.getTime() - i * 60_000).toISOString()),
        );
      },
    },
  }),
  apiCase({
    name: 'is allowed to a holder of api-keys:read',
    arrange: () => keyWithUses(member, 2),
    caller: () => reader,
    operation: ({ id }) => op.usageLogs(id),
    expect: { status: 200, data: (page) => expect(page.items).toHaveLength(2) },
  }),
  apiCase({
    name: 'refuses anyone else of the tenant with the same 403',
    arrange: () => keyWithUses(member, 2),
    caller: () => otherMember,
    operation: ({ id }) => op.usageLogs(id),
    expect: { status: 403, code: 'FORBIDDEN', data: exactMessage(VIEW_REFUSAL) },
  }),
  apiCase({
    name: "answers 404 for another tenant's key",
    arrange: () => keyWithUses(member, 2),
    caller: () => outsider,
    operation: ({ id }) => op.usageLogs(id),
    expect: { status: 404, code: 'NOT_FOUND' },
  }),
  apiCase({
    name: 'refuses a cursor it did not hand out (400 naming cursor)',
    arrange: () => makeKey(member),
    caller: () => member,
    operation: ({ id }) => op.usageLogs(id, { cursor: 'not a cursor' }),
    expect: { status: 400, fieldErrors: [{ field: 'cursor', rule: 'isPageCursor' }] },
  }),
]);

// ---------------------------------------------------------------- revoke

runCases('revoking an API key', client, [
  apiCase({
    name: 'lets its creator revoke it: status revoked, revokedAt and revokedBy set, for good',
    arrange: () => makeKey(member),
    caller: () => member,
    operation: ({ id }) => op.revoke(id),
    expect: {
      status: 200,
      data: (key, made) => {
        expect(key).toMatchObject({ _id: made.id, status: 'revoked', revokedBy: member.id, updatedBy: member.id, name: made.record.name });
        expect(Date.parse(key.revokedAt)).toBeLessThanOrEqual(Date.now());
      },
      db: async (made) => {
        const stored = await storedById(made.id);
        expect(stored?.revokedAt).toBeInstanceOf(Date);
        expect(stored?.revokedBy).toBe(member.id);
      },
    },
  }),
  apiCase({
    name: 'lets a holder of api-keys:revoke revoke a key someone else created',
    arrange: () => makeKey(member),
    caller: () => revoker,
    operation: ({ id }) => op.revoke(id),
    expect: { status: 200, data: (key) => expect([key.status, key.revokedBy, key.createdBy]).toEqual(['revoked', revoker.id, member.id]) },
  }),
  apiCase({
    name: 'answers the same record when revoked again, revokedAt unchanged',
    arrange: async () => {
      const made = await revokedKey(member);
      return { ...made, before: await storedById(made.id) };
    },
    caller: () => admin,
    operation: ({ id }) => op.revoke(id),
    expect: {
      status: 200,
      data: (key, made) => expect([key.revokedAt, key.revokedBy, key.updatedBy]).toEqual([made.before!.revokedAt.toISOString(), member.id, member.id]),
      db: async (made) => expect(await storedById(made.id)).toEqual(made.before),
    },
  }),
  apiCase({
    name: 'revokes an expired key too',
    arrange: () => expiredKey(member),
    caller: () => member,
    operation: ({ id }) => op.revoke(id),
    expect: { status: 200, data: (key) => expect(key.status).toBe('revoked') },
  }),
  apiCase({
    name: 'refuses anyone else of the tenant with 403 "You do not have permission to revoke this API key"',
    arrange: async () => {
      const made = await makeKey(member);
      return { ...made, before: await storedById(made.id) };
    },
    caller: () => reader,
    operation: ({ id }) => op.revoke(id),
    expect: {
      status: 403,
      code: 'FORBIDDEN',
      data: exactMessage(REVOKE_REFUSAL),
      db: async (made) => expect(await storedById(made.id)).toEqual(made.before),
    },
  }),
  apiCase({
    name: "answers 404 for another tenant's key",
    arrange: () => makeKey(member),
    caller: () => outsider,
    operation: ({ id }) => op.revoke(id),
    expect: { status: 404, code: 'NOT_FOUND', db: async (made) => expect((await storedById(made.id))?.revokedAt).toBeNull() },
  }),
  apiCase({
    name: 'refuses a malformed id (400 naming id)',
    caller: () => admin,
    operation: () => op.revoke('12345'),
    expect: { status: 400, fieldErrors: [{ field: 'id', rule: 'isMongoId' }] },
  }),
]);

describe('concurrent revokes of one key', () => {
  it('all answer the record with the first revokedAt', async () => {
    const made = await makeKey(member);
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, i) => callOperation(client(), i % 2 ? 'rest' : 'graphql', op.revoke(made.id), i % 3 ? member : admin)),
    );
    expect(outcomes.map((outcome) => outcome.status)).toEqual(Array(10).fill(200));
    const stored = await storedById(made.id);
    expect(new Set(outcomes.map((outcome) => (outcome.data as { revokedAt: string }).revokedAt))).toEqual(new Set([stored?.revokedAt.toISOString()]));
  });
});

// ---------------------------------------------------------------- roll

const ROLL_REFUSAL = 'You may not roll this API key: only its creator can (a holder of api-keys:revoke can still revoke it)';

/** A user of TENANT whose custom role holds `granted`, made through the API's roles (fresh, so it can lose them). */
async function userHolding(granted: string[]): Promise<Who> {
  const role = await RoleModel.create({ name: freshName('role'), tenant_id: TENANT, permissions: granted });
  return caller(await app.createUser({ tenantId: TENANT, roles: [String(role._id)] }));
}

/** `who` reduced to the built-in member role by the tenant administrator, through the API (so at once on this instance). */
async function reduceToMember(who: Who): Promise<void> {
  const changed = await app.rest('PATCH', `/access-control/users/${who.id}`, { token: admin.token, body: { roles: ['member'], updatedBy: admin.id } });
  expect(changed.status).toBe(200);
}

runCases('rolling an API key', client, [
  apiCase({
    name: 'answers the same record with a new secret of the same keyId; the old secret stops at once',
    arrange: () => makeKey(member, { ...EVERY_SETTING, scopes: ['menus:read'], description: 'rolled' }),
    caller: () => member,
    operation: ({ id }) => op.roll(id),
    expect: {
      status: 200,
      data: (key, made) => {
        const kept = ['_id', 'id', 'keyId', 'name', 'description', 'scopes', 'allowedOrigins', 'allowedIPs', 'expiresAt', 'rateLimit', 'metadata', 'createdBy', 'createdAt', 'tenant_id'];
        for (const field of kept) expect(key[field], field).toEqual(made.record[field]);
        expect(key.key).toMatch(KEY_PATTERN);
        expect(key.key).not.toBe(made.key);
        expect(key.key.slice(3, 15)).toBe(made.keyId);
        expect([key.status, key.updatedBy]).toEqual(['active', member.id]);
      },
      db: async (made, outcome) => {
        const stored = await storedById(made.id);
        expect(stored?.secrets).toEqual([{ hash: sha256((outcome.data as { key: string }).key), validUntil: null }]);
      },
    },
  }),
  apiCase({
    name: 'keeps the previous secret until the grace period ends',
    arrange: () => makeKey(member),
    caller: () => member,
    operation: ({ id }) => op.roll(id, 600),
    expect: {
      status: 200,
      db: async (made, outcome) => {
        const stored = await storedById(made.id);
        expect(stored?.secrets).toHaveLength(2);
        expect(stored?.secrets[0]).toEqual({ hash: sha256((outcome.data as { key: string }).key), validUntil: null });
        expect(stored?.secrets[1].hash).toBe(sha256(made.key));
        expect(Math.abs(stored?.secrets[1].validUntil.getTime() - (Date.now() + 600_000))).toBeLessThan(10_000);
      },
    },
  }),
  apiCase({
    name: 'refuses a holder of api-keys:revoke a key someone else created (403), though it holds the scopes; the key keeps its secret',
    arrange: async () => {
      const made = await makeKey(admin, { scopes: ['api-keys:revoke'] });
      return { ...made, before: await storedById(made.id) };
    },
    caller: () => revoker,
    operation: ({ id }) => op.roll(id, 86_400),
    expect: { status: 403, code: 'FORBIDDEN', data: exactMessage(ROLL_REFUSAL), db: async (made) => expect(await storedById(made.id)).toEqual(made.before) },
  }),
  apiCase({
    name: "refuses the tenant administrator a member's key (403)",
    arrange: () => makeKey(member),
    caller: () => admin,
    operation: ({ id }) => op.roll(id),
    expect: { status: 403, code: 'FORBIDDEN', data: exactMessage(ROLL_REFUSAL) },
  }),
  apiCase({
    name: "refuses the platform administrator a tenant's key (403)",
    arrange: () => makeKey(admin),
    caller: () => platform,
    operation: ({ id }) => op.roll(id),
    expect: { status: 403, code: 'FORBIDDEN', data: exactMessage(ROLL_REFUSAL) },
  }),
  apiCase({
    name: 'refuses its creator a key with scopes they no longer hold (403): the new secret would act with them',
    arrange: async () => {
      const creator = await userHolding(['menus:write', 'api-keys:create']);
      const made = await makeKey(creator, { scopes: ['menus:write'] });
      await reduceToMember(creator);
      return { ...made, creator };
    },
    caller: ({ creator }) => creator,
    operation: ({ id }) => op.roll(id),
    expect: { status: 403, code: 'FORBIDDEN', data: exactMessage("You cannot roll an API key with the scope 'menus:write' you do not hold") },
  }),
  apiCase({
    name: 'refuses a revoked key with 409',
    arrange: () => revokedKey(member),
    caller: () => member,
    operation: ({ id }) => op.roll(id),
    expect: { status: 409, code: 'CONFLICT', fieldErrors: [{ field: 'status', rule: 'revoked' }] },
  }),
  apiCase({
    name: 'refuses an expired key with 409',
    arrange: async () => {
      const made = await expiredKey(member);
      return { ...made, before: await storedById(made.id) };
    },
    caller: () => member,
    operation: ({ id }) => op.roll(id),
    expect: {
      status: 409,
      code: 'CONFLICT',
      fieldErrors: [{ field: 'status', rule: 'expired' }],
      db: async (made) => expect(await storedById(made.id)).toEqual(made.before),
    },
  }),
  apiCase({
    name: 'refuses anyone else of the tenant with 403',
    arrange: () => makeKey(member),
    caller: () => reader,
    operation: ({ id }) => op.roll(id),
    expect: { status: 403, code: 'FORBIDDEN', data: exactMessage(ROLL_REFUSAL) },
  }),
  apiCase({
    name: "answers 404 for another tenant's key",
    arrange: () => makeKey(member),
    caller: () => outsider,
    operation: ({ id }) => op.roll(id),
    expect: { status: 404, code: 'NOT_FOUND' },
  }),
  apiCase({
    name: 'refuses a grace period over a day (400 naming gracePeriodSeconds)',
    arrange: () => makeKey(member),
    caller: () => member,
    operation: ({ id }) => op.roll(id, 86_401),
    expect: { status: 400, fieldErrors: [{ field: 'gracePeriodSeconds', rule: 'max' }] },
  }),
  apiCase({
    name: 'refuses a negative grace period (400 naming gracePeriodSeconds)',
    arrange: () => makeKey(member),
    caller: () => member,
    operation: ({ id }) => op.roll(id, -1),
    expect: { status: 400, fieldErrors: [{ field: 'gracePeriodSeconds', rule: 'min' }] },
  }),
]);

/**
 * Issue 27 item 2: a holder of api-keys:revoke rolled another user's key with
 * a day's grace and kept the new secret, which acts as the key's creator; once
 * the roller was reduced to member, that secret still made keys. Only the
 * creator rolls a key now, so the roller never obtains a secret.
 */
describe('a roll by someone who later loses the right to it', () => {
  it.each(SURFACES)('leaves them nothing: refused before and after they are reduced to member, the key keeps its secret (%s)', async (surface) => {
    const roller = await userHolding(['api-keys:revoke', 'api-keys:create', 'menus:read']);
    const made = await makeKey(admin, { scopes: ['api-keys:create', 'menus:read'] });
    const before = (await storedById(made.id))?.secrets;
    const rolled = await callOperation(app, surface, op.roll(made.id, 86_400), roller);
    await reduceToMember(roller);
    const rolledAfter = await callOperation(app, surface, op.roll(made.id, 86_400), roller);
    // The creator's own secret is still the key's only one and still makes keys.
    const madeByKey = await app.rest('POST', '/api-keys', { token: made.key, body: { name: freshName(), scopes: ['menus:read'] } });
    expect([rolled.status, rolled.message, rolled.raw.body?.key ?? rolled.raw.body?.data?.rollApiKey, rolledAfter.status]).toEqual([403, ROLL_REFUSAL, undefined, 403]);
    expect([(await storedById(made.id))?.secrets, madeByKey.status]).toEqual([before, 201]);
  });
});

// ---------------------------------------------------------------- audit trail

describe('the audit records API key changes leave', () => {
  let seq = 0;
  async function call(surface: Surface, operation: Operation, who: Caller) {
    seq += 1;
    const requestId = `audit-api-keys-${surface}-${seq}`;
    const outcome = await callOperation(client(), surface, operation, { ...who, headers: { 'x-request-id': requestId } });
    return { outcome, records: await app.db.collection('auditevents').find({ requestId }).toArray() };
  }
  const summary = (records: Document[]) => records.map((r) => [r.action, r.target.type, r.target.id, r.tenant_id, r.actor.id, r.outcome]);

  describe.each(['rest', 'graphql'] as Surface[])('over %s', (surface) => {
    it('a create: one record naming the fields, never the secret', async () => {
      const { outcome, records } = await call(surface, op.create({ name: freshName('audited'), scopes: ['menus:read'], metadata: { x: 1 } }), member);
      const created = outcome.data as { _id: string; key: string };
      expect(summary(records)).toEqual([['api-keys.create', 'ApiKey', created._id, TENANT, member.id, 'success']]);
      // rateLimit was left out: it has no schema default (the service gives it), so it is no change named.
      expect([...records[0].changes].sort()).toEqual(['metadata', 'name', 'scopes']);
      expect(JSON.stringify(records)).not.toContain(created.key.slice(16));
    });

    it('a refused create: one failure record', async () => {
      const { records } = await call(surface, op.create({ name: freshName('audited'), scopes: ['menus:read'], rateLimit: 0 }), member);
      expect(summary(records)).toEqual([['api-keys.create', 'ApiKey', null, TENANT, member.id, 'failure']]);
    });

    it('a revoke: one record', async () => {
      const made = await makeKey(member);
      const { records } = await call(surface, op.revoke(made.id), member);
      expect(summary(records)).toEqual([['api-keys.revoke', 'ApiKey', made.id, TENANT, member.id, 'success']]);
    });

    it('a roll: one record, never the new secret', async () => {
      const made = await makeKey(member);
      const { outcome, records } = await call(surface, op.roll(made.id, 60), member);
      expect(summary(records)).toEqual([['api-keys.roll', 'ApiKey', made.id, TENANT, member.id, 'success']]);
      expect(records[0].changes).toEqual(['gracePeriodSeconds']);
      expect(JSON.stringify(records)).not.toContain((outcome.data as { key: string }).key.slice(16));
    });

    it('a refused roll (409): one failure record', async () => {
      const made = await revokedKey(member);
      const { records } = await call(surface, op.roll(made.id), member);
      expect(summary(records)).toEqual([['api-keys.roll', 'ApiKey', made.id, TENANT, member.id, 'failure']]);
    });
  });
});

// ---------------------------------------------------------------- the credential store

describe('the credential store (ApiKeyStore) on the database', () => {
  const HOUR = 3_600_000;
  const windowOf = (at: Date) => new Date(Math.floor(at.getTime() / HOUR) * HOUR);

  async function secretOf(creator: Caller = member, body: Record<string, unknown> = {}) {
    const made = await makeKey(creator, body);
    const parsed = parseApiKeySecret(made.key);
    if (!parsed) throw new Error('the answered key does not parse');
    return { ...made, hash: parsed.hash };
  }

  it('counts 1, 2, 3 in one window and starts again at 1 in the next', async () => {
    const key = await secretOf();
    const at = new Date();
    const counts = [];
    for (let i = 0; i < 3; i += 1) counts.push((await store.countUse(key.keyId, key.hash, at, windowOf(at)))?.usedInWindow);
    const next = new Date(windowOf(at).getTime() + HOUR + 5);
    counts.push((await store.countUse(key.keyId, key.hash, next, windowOf(next)))?.usedInWindow);
    counts.push((await store.countUse(key.keyId, key.hash, next, windowOf(next)))?.usedInWindow);
    expect(counts).toEqual([1, 2, 3, 1, 2]);
  });

  it('an instance whose clock is behind counts into the window a faster clock already started, never restarting it', async () => {
    const key = await secretOf();
    const behind = new Date();
    const ahead = new Date(windowOf(behind).getTime() + HOUR + 5);
    const counts = [];
    counts.push((await store.countUse(key.keyId, key.hash, ahead, windowOf(ahead)))?.usedInWindow);
    counts.push((await store.countUse(key.keyId, key.hash, behind, windowOf(behind)))?.usedInWindow);
    counts.push((await store.countUse(key.keyId, key.hash, ahead, windowOf(ahead)))?.usedInWindow);
    const stored = await ApiKeyModel.collection.findOne({ keyId: key.keyId });
    expect([counts, stored?.rateWindow?.start]).toEqual([[1, 2, 3], windowOf(ahead)]);
  });

  it('answers the key as the credential needs it, with its secret hashes', async () => {
    const key = await secretOf(member, { scopes: ['menus:read', 'api-keys:create'], allowedIPs: ['10.0.0.0/8'], allowedOrigins: ['https://a.example.test'], rateLimit: 7 });
    const at = new Date();
    const counted = await store.countUse(key.keyId, key.hash, at, windowOf(at));
    expect(counted).toEqual({
      usedInWindow: 1,
      key: {
        id: key.id,
        keyId: key.keyId,
        tenantId: TENANT,
        createdBy: member.id,
        scopes: ['menus:read', 'api-keys:create'],
        allowedOrigins: ['https://a.example.test'],
        allowedIPs: ['10.0.0.0/8'],
        expiresAt: null,
        revokedAt: null,
        rateLimit: 7,
        secrets: [{ hash: key.hash, validUntil: null }],
      },
    });
    expect(await store.findByKeyId(key.keyId)).toEqual(counted?.key);
  });

  it('answers null, counting nothing, for a wrong hash', async () => {
    const key = await secretOf();
    const at = new Date();
    expect(await store.countUse(key.keyId, sha256('ak_wrong'), at, windowOf(at))).toBeNull();
    expect(await store.countUse('NoSuchKeyId0', key.hash, at, windowOf(at))).toBeNull();
    expect((await storedById(key.id))?.rateWindow).toBeNull();
  });

  it('answers null for a revoked key', async () => {
    const key = await secretOf();
    await app.rest('PATCH', `/api-keys/${key.id}/revoke`, { token: member.token });
    const at = new Date();
    expect(await store.countUse(key.keyId, key.hash, at, windowOf(at))).toBeNull();
    expect((await store.findByKeyId(key.keyId))?.revokedAt).toBeInstanceOf(Date);
  });

  it('answers null for an expired key', async () => {
    const expiresAt = new Date(Date.now() + 60_000);
    const key = await secretOf(member, { expiresAt: expiresAt.toISOString() });
    const before = new Date(expiresAt.getTime() - 1);
    expect((await store.countUse(key.keyId, key.hash, before, windowOf(before)))?.usedInWindow).toBe(1);
    expect(await store.countUse(key.keyId, key.hash, expiresAt, windowOf(expiresAt))).toBeNull();
  });

  it('accepts a rolled secret within its grace period, and never after it', async () => {
    const key = await secretOf();
    const rolled = await app.rest('POST', `/api-keys/${key.id}/roll`, { token: member.token, body: { gracePeriodSeconds: 60 } });
    expect(rolled.status).toBe(200);
    const newHash = parseApiKeySecret(rolled.body.key)!.hash;
    const now = new Date();
    const afterGrace = new Date(now.getTime() + 61_000);
    expect((await store.countUse(key.keyId, key.hash, now, windowOf(now)))?.usedInWindow).toBe(1);
    expect(await store.countUse(key.keyId, key.hash, afterGrace, windowOf(afterGrace))).toBeNull();
    expect(await store.countUse(key.keyId, newHash, afterGrace, windowOf(afterGrace))).not.toBeNull();
  });

  it('refuses a rolled secret at once when the grace period is 0', async () => {
    const key = await secretOf();
    const rolled = await app.rest('POST', `/api-keys/${key.id}/roll`, { token: member.token });
    expect(rolled.status).toBe(200);
    const at = new Date();
    expect(await store.countUse(key.keyId, key.hash, at, windowOf(at))).toBeNull();
    expect(await store.countUse(key.keyId, parseApiKeySecret(rolled.body.key)!.hash, at, windowOf(at))).not.toBeNull();
  });

  it('gives 30 concurrent uses the counts 1 to 30, each exactly once', async () => {
    const key = await secretOf();
    const at = new Date();
    const counted = await Promise.all(Array.from({ length: 30 }, () => store.countUse(key.keyId, key.hash, at, windowOf(at))));
    expect(counted.map((c) => c?.usedInWindow).sort((a, b) => a! - b!)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect((await storedById(key.id))?.rateWindow).toEqual({ start: windowOf(at), count: 30 });
  });

  it('gives 30 concurrent first uses of a new window the counts 1 to 30, each exactly once', async () => {
    const key = await secretOf();
    const at = new Date();
    for (let i = 0; i < 5; i += 1) await store.countUse(key.keyId, key.hash, at, windowOf(at));
    const next = new Date(windowOf(at).getTime() + HOUR + 5);
    const counted = await Promise.all(Array.from({ length: 30 }, () => store.countUse(key.keyId, key.hash, next, windowOf(next))));
    expect(counted.map((c) => c?.usedInWindow).sort((a, b) => a! - b!)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect((await storedById(key.id))?.rateWindow).toEqual({ start: windowOf(next), count: 30 });
  });

  it('counts nothing for a wrong hash, a revoked or an expired key in a window already started', async () => {
    const expiresAt = new Date(Date.now() + 60_000);
    const [key, revoked, expiring] = [await secretOf(), await secretOf(), await secretOf(member, { expiresAt: expiresAt.toISOString() })];
    const at = new Date();
    for (const one of [key, revoked, expiring]) expect((await store.countUse(one.keyId, one.hash, at, windowOf(at)))?.usedInWindow).toBe(1);
    await app.rest('PATCH', `/api-keys/${revoked.id}/revoke`, { token: member.token });
    expect(await store.countUse(key.keyId, sha256('ak_wrong'), at, windowOf(at))).toBeNull();
    expect(await store.countUse(revoked.keyId, revoked.hash, at, windowOf(at))).toBeNull();
    expect(await store.countUse(expiring.keyId, expiring.hash, expiresAt, windowOf(at))).toBeNull();
    for (const one of [key, revoked, expiring]) expect((await storedById(one.id))?.rateWindow).toEqual({ start: windowOf(at), count: 1 });
  });

  it('records uses: log entries that expire after the retention, usageCount raised, lastUsedAt the latest', async () => {
    const [a, b] = [await secretOf(), await secretOf()];
    const t = Date.now();
    const use = (apiKeyId: string, at: number): ApiKeyUse => ({ apiKeyId, at: new Date(at), ip: '::1', origin: null, method: 'GET', path: '/api/v1/api-keys', operation: null, status: 200 });
    await store.recordUses([use(a.id, t - 3000), use(b.id, t - 2000), use(a.id, t - 1000)]);
    // An older batch written late never moves lastUsedAt back.
    await store.recordUses([use(a.id, t - 5000)]);
    await store.recordUses([]);
    const [storedA, storedB] = [await storedById(a.id), await storedById(b.id)];
    expect([storedA?.usageCount, storedA?.lastUsedAt, storedB?.usageCount, storedB?.lastUsedAt]).toEqual([2 + 1, new Date(t - 1000), 1, new Date(t - 2000)]);
    const entries = await app.db.collection('apikeyusages').find({ apiKeyId: a.id }).toArray();
    expect(entries).toHaveLength(3);
    for (const entry of entries) expect(entry.expireAt.getTime() - entry.at.getTime()).toBe(RETENTION_SECONDS * 1000);
  });

  it('keeps the usage log under a TTL index on expireAt and an index for newest-first reads', async () => {
    const indexes = await app.db.collection('apikeyusages').indexes();
    expect(indexes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ key: { expireAt: 1 }, expireAfterSeconds: 0 }),
        expect.objectContaining({ key: { apiKeyId: 1, at: -1, _id: -1 } }),
      ]),
    );
    const keyIndexes = await apiKeys().indexes();
    expect(keyIndexes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ key: { keyId: 1 }, unique: true }),
        expect.objectContaining({ key: { tenant_id: 1, createdBy: 1, _id: 1 } }),
      ]),
    );
  });
});
