import { createHash } from 'node:crypto';
import { ObjectId } from 'mongodb';
import { afterAll, beforeAll, expect } from 'vitest';
import { ApiKeyModel, createApiKeyStore } from '../../src/api-keys/index.js';
import type { ApiKeyStore, ApiKeyUse } from '../../src/auth/index.js';
import { RoleModel } from '../../src/users/index.js';
import { argumentTypes } from '../support/schema-operations.js';
import { servedSchema, startTestApp, type TestApp, type TestUser } from '../support/test-app.js';
import { apiCase, type Caller, type Operation } from '../support/surfaces.js';

/**
 * API keys (description 2.1, 3, 4.1, 4.2, 7, 8; contract "API keys"), every
 * operation and refusal over REST and GraphQL, the audit records they leave,
 * and the credential store (`countUse`, `recordUses`) on the app's database.
 * Mutation cases check the stored record through the native driver
 * (`apikeys` collection). The callers, operations and fixtures the API key
 * test files share.
 */

export let app: TestApp;
export const client = () => app;
export let store: ApiKeyStore;

export const TENANT = 'tenant-api-keys';
export const OTHER_TENANT = 'tenant-api-keys-elsewhere';
export const LIST_TENANT = 'tenant-api-keys-lists';
export const RETENTION_SECONDS = 3600;

export type Who = Caller & { id: string; user: TestUser };
export let platform: Who; // platform administrator, no tenant
export let admin: Who; // TENANT, built-in admin (`*`)
export let member: Who; // TENANT, built-in member: api-keys:create, no api-keys:read/revoke
export let otherMember: Who; // TENANT, another member
export let reader: Who; // TENANT, custom role: api-keys:read (+ create)
export let revoker: Who; // TENANT, custom role: api-keys:revoke only
export let outsider: Who; // OTHER_TENANT admin
export const nobody: Caller = {};

// LIST_TENANT: fixed keys nobody changes.
export let listAdmin: Who;
export let listReader: Who; // api-keys:read + api-keys:create
export let listMemberA: Who;
export let listMemberB: Who;
export const listKeys: Record<'aActive' | 'aRevoked' | 'bExpired' | 'adminActive', string> = { aActive: '', aRevoked: '', bExpired: '', adminActive: '' };
export let otherTenantKeyId: string;

// ---------------------------------------------------------------- operations

export const KEY_FIELDS = `_id id keyId name description status scopes allowedOrigins allowedIPs expiresAt lastUsedAt
  usageCount rateLimit createdBy createdByKey updatedBy metadata createdAt updatedAt tenant_id revokedAt revokedBy disabledAt disabledReason disabledWith`;
export const USAGE_FIELDS = 'at ip origin method path operation status';

/** The fields of 2.1, every one present in an answer. */
export const FIELDS_OF_2_1 = [
  '_id', 'keyId', 'name', 'description', 'status', 'scopes', 'allowedOrigins', 'allowedIPs', 'expiresAt', 'lastUsedAt',
  'usageCount', 'rateLimit', 'createdBy', 'updatedBy', 'metadata', 'createdAt', 'updatedAt',
];

/** GraphQL types of the create arguments, from the served schema; anything else is declared String. */
export const CREATE_TYPES = argumentTypes(await servedSchema(), 'Mutation.createApiKey');

export const KEY_PATTERN = /^ak_[0-9A-Za-z]{12}_[0-9A-Za-z]{49}$/;

export function queryString(args: Record<string, string | number | boolean>): string {
  const text = new URLSearchParams(Object.entries(args).map(([k, v]) => [k, String(v)])).toString();
  return text ? `?${text}` : '';
}

export const op = {
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
export const freshName = (prefix = 'key') => `${prefix}-${(counter += 1)}-${Date.now().toString(36)}`;

export const apiKeys = () => app.db.collection('apikeys');
export const storedById = (id: string) => apiKeys().findOne({ _id: new ObjectId(id) });
export const countByName = (name: unknown) => apiKeys().countDocuments({ name });
export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
export const unknownId = () => new ObjectId().toHexString();

export interface MadeKey {
  id: string;
  key: string;
  keyId: string;
  record: Record<string, any>;
}

/** A key made through the API (REST) by `creator`. */
export async function makeKey(creator: Caller, body: Record<string, unknown> = {}): Promise<MadeKey> {
  const response = await app.rest('POST', '/api-keys', { token: creator.token, body: { name: freshName(), scopes: ['menus:read'], ...body } });
  if (response.status !== 201) throw new Error(`createApiKey answered ${response.status}: ${JSON.stringify(response.body)}`);
  return { id: response.body._id, key: response.body.key, keyId: response.body.keyId, record: response.body };
}

/** A key whose expiresAt has passed (planted: the API refuses a past expiresAt). */
export async function expiredKey(creator: Caller): Promise<MadeKey> {
  const made = await makeKey(creator);
  await ApiKeyModel.updateOne({ _id: made.id }, { $set: { expiresAt: new Date(Date.now() - 60_000) } });
  return made;
}

export async function revokedKey(creator: Caller): Promise<MadeKey> {
  const made = await makeKey(creator);
  const response = await app.rest('PATCH', `/api-keys/${made.id}/revoke`, { token: creator.token });
  if (response.status !== 200) throw new Error(`revokeApiKey answered ${response.status}`);
  return made;
}

export function caller(user: TestUser): Who {
  return { token: user.token, id: user.id, user };
}

/** `count` uses of a key, one minute apart, newest at `newest`, handed to the store in shuffled order. */
/** One use of a key as the credential's usage batches record it: a menus read from 192.0.2.1, with its status and, refused at the credential, its refusal. */
export function plantedUse(apiKeyId: string, at: Date, status: number, refusal?: ApiKeyUse['refusal']): ApiKeyUse {
  return { apiKeyId, at, ip: '192.0.2.1', origin: null, method: 'GET', path: '/api/v1/restaurant/meal-menus', operation: null, status, ...(refusal ? { refusal } : {}) };
}

export function plannedUses(apiKeyId: string, count: number, newest = new Date()): ApiKeyUse[] {
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

/** Starts the app, makes the callers and the list tenant's keys above (beforeAll), closes it after (afterAll): one app per test file. */
export function useApiKeysApp(): void {
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
}

/** A refusal of one field and rule that writes no key. */
export function refusedCreate(name: string, overrides: Record<string, unknown>, field: string, rule: string) {
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

export const exactMessage = (message: string) => (_data: unknown, _fixture: unknown, outcome: { message?: string }) =>
  expect(outcome.message).toBe(message);

export const VIEW_REFUSAL = 'You do not have permission to view this API key';
export const REVOKE_REFUSAL = 'You do not have permission to revoke this API key';

export const EVERY_SETTING = {
  description: 'Nightly menu export',
  scopes: ['menus:read', 'menus:write'],
  allowedOrigins: ['https://kitchen.example.test', 'http://localhost:3000'],
  allowedIPs: ['203.0.113.7', '10.0.0.0/8', '2001:db8::/32', '::1'],
  rateLimit: 250,
  metadata: { team: 'kitchen', cost: { centre: 42 }, tags: ['export', 'nightly'] },
};

/** A key of `creator` with `count` planted uses (written through the store, as the credential does). */
export async function keyWithUses(creator: Caller, count: number) {
  const made = await makeKey(creator);
  const newest = new Date(Date.now() - 1000);
  await store.recordUses(plannedUses(made.id, count, newest));
  return { ...made, newest };
}

export const isNewestFirst = (entries: { at: string }[]) => entries.every((entry, i) => i === 0 || Date.parse(entries[i - 1].at) > Date.parse(entry.at));
