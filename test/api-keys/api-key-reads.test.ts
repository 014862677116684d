import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ObjectId } from 'mongodb';
import { ApiKeyModel, createApiKeyStore, DEFAULT_RATE_LIMIT } from '../../src/api-keys/index.js';
import type { ApiKeyUse } from '../../src/auth/index.js';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

/**
 * Key reads fetch only what the GraphQL selection asks (the stored fields it
 * needs, the usage log only when `usageLogs` is selected) and answer from
 * plain records: whatever is selected, in whatever shape (fragments, aliases,
 * `status` computed from unselected fields), the values are those of the
 * full read, on GraphQL and REST alike.
 */

let app: TestApp;
let admin: TestUser;
let key: { id: string; keyId: string };
let revokedId: string;

const FULL = `_id id keyId name description status scopes allowedOrigins allowedIPs expiresAt lastUsedAt
  usageCount rateLimit createdBy createdByKey updatedBy metadata createdAt updatedAt tenant_id revokedAt revokedBy disabledAt disabledReason disabledWith`;
const USAGE = 'at ip origin method path operation status';

function uses(apiKeyId: string, count: number): ApiKeyUse[] {
  const newest = Date.now() - 1000;
  return Array.from({ length: count }, (_, i) => ({
    apiKeyId,
    at: new Date(newest - i * 1000),
    ip: '192.0.2.7',
    origin: i % 2 ? 'https://app.example.test' : null,
    method: 'GET',
    path: '/api/v1/api-keys',
    operation: i % 3 ? null : `Op${i}`,
    status: 200,
  }));
}

async function gql(query: string, variables: Record<string, unknown> = {}) {
  const response = await app.graphql(query, variables, { token: admin.token });
  expect(response.body.errors).toBeUndefined();
  return response.body.data;
}

beforeAll(async () => {
  app = await startTestApp();
  admin = await app.createUser({ tenantId: 'tenant-key-reads', roles: ['admin'] });
  const made = await app.rest('POST', '/api-keys', {
    token: admin.token,
    body: { name: 'reads', description: 'selection', scopes: ['menus:read'], allowedIPs: ['10.0.0.0/8'], metadata: { team: 'x', n: 1 }, rateLimit: 50 },
  });
  expect(made.status).toBe(201);
  key = made.body;
  await createApiKeyStore({ usageLogRetentionSeconds: 3600 }).recordUses(uses(key.id, 105));
  const other = await app.rest('POST', '/api-keys', { token: admin.token, body: { name: 'gone', scopes: ['menus:read'] } });
  revokedId = other.body.id;
  expect((await app.rest('PATCH', `/api-keys/${revokedId}/revoke`, { token: admin.token })).status).toBe(200);
});

/** The key as REST answers it and as GraphQL answers the full selection; both must agree. */
async function readOnBothSurfaces(id: string) {
  const rest = await app.rest('GET', `/api-keys/${id}`, { token: admin.token });
  expect(rest.status).toBe(200);
  const data = await gql(`query($id: ID!) { apiKey(id: $id) { ${FULL} usageLogs { ${USAGE} } } }`, { id });
  expect(data.apiKey).toEqual(rest.body);
  return rest.body;
}

/** Every field an answer carries: the selection's, nothing stored beside it (no hashes, window or version key). */
const ANSWERED = [...FULL.split(/\s+/), 'usageLogs'].sort();

afterAll(async () => {
  await app?.close();
});

describe('reading an API key, whatever the selection', () => {
  it('answers the same record on REST and GraphQL, with and without the usage log', async () => {
    for (const includeUsageLogs of [false, true]) {
      const rest = await app.rest('GET', `/api-keys/${key.id}?includeUsageLogs=${includeUsageLogs}`, { token: admin.token });
      expect(rest.status).toBe(200);
      const data = await gql(`query($id: ID!, $u: Boolean) { apiKey(id: $id, includeUsageLogs: $u) { ${FULL} usageLogs { ${USAGE} } } }`, {
        id: key.id,
        u: includeUsageLogs,
      });
      expect(data.apiKey).toEqual(rest.body);
      expect(rest.body.usageLogs === null ? null : rest.body.usageLogs.length).toBe(includeUsageLogs ? 100 : null);
      expect(rest.body).toMatchObject({ usageCount: 105, metadata: { team: 'x', n: 1 }, allowedIPs: ['10.0.0.0/8'], status: 'active' });
      expect(JSON.stringify(rest.body)).not.toMatch(/secrets|rateWindow|hash/);
    }
  });

  it('answers a partial selection with the values of the full read', async () => {
    const full = (await gql(`query($id: ID!) { apiKey(id: $id) { ${FULL} } }`, { id: key.id })).apiKey;
    const partial = (await gql(`query($id: ID!) { apiKey(id: $id) { id name metadata usageCount } }`, { id: key.id })).apiKey;
    expect(partial).toEqual({ id: full.id, name: full.name, metadata: full.metadata, usageCount: full.usageCount });
    const justId = (await gql(`query($id: ID!) { apiKey(id: $id) { __typename _id } }`, { id: key.id })).apiKey;
    expect(justId).toEqual({ __typename: 'ApiKey', _id: full._id });
  });

  it('computes status from fields the selection does not name', async () => {
    const data = await gql(`query($a: ID!, $b: ID!) { live: apiKey(id: $a) { status } gone: apiKey(id: $b) { status } }`, { a: key.id, b: revokedId });
    expect(data).toEqual({ live: { status: 'active' }, gone: { status: 'revoked' } });
  });

  it('reads fields selected through fragments, inline fragments and aliases', async () => {
    const data = await gql(
      `query($id: ID!) { apiKey(id: $id, includeUsageLogs: true) { ...Names ... on ApiKey { count: usageCount logs: usageLogs { status } } } }
       fragment Names on ApiKey { name keyId status }`,
      { id: key.id },
    );
    expect(data.apiKey).toMatchObject({ name: 'reads', keyId: key.keyId, status: 'active', count: 105 });
    expect(data.apiKey.logs).toHaveLength(100);
  });

  it('honours @include on a field the read may have left unread (the selection decides, not the read)', async () => {
    const query = `query($id: ID!, $with: Boolean!) { apiKey(id: $id, includeUsageLogs: true) { name usageLogs @include(if: $with) { at } description @include(if: $with) } }`;
    expect((await gql(query, { id: key.id, with: false })).apiKey).toEqual({ name: 'reads' });
    const included = (await gql(query, { id: key.id, with: true })).apiKey;
    expect([included.description, included.usageLogs.length]).toEqual(['selection', 100]);
  });

  it('answers null usageLogs when includeUsageLogs is false, selected or not', async () => {
    const data = await gql(`query($id: ID!) { apiKey(id: $id, includeUsageLogs: false) { name usageLogs { at } } }`, { id: key.id });
    expect(data.apiKey).toEqual({ name: 'reads', usageLogs: null });
  });

  it('answers the list items as the single read does', async () => {
    const page = await app.rest('GET', '/api-keys?limit=100', { token: admin.token });
    const single = await app.rest('GET', `/api-keys/${key.id}`, { token: admin.token });
    const listed = page.body.items.find((item: { id: string }) => item.id === key.id);
    expect(listed).toEqual(single.body);
    expect(listed.usageLogs).toBeNull();
    const viaGraphql = (await gql(`query { apiKeys(limit: 100) { items { ${FULL} } } }`)).apiKeys.items;
    expect(viaGraphql).toEqual(page.body.items.map(({ usageLogs: _logs, ...item }: { usageLogs: unknown }) => item));
  });

  it('pages the usage log with every field of an entry, as the record read answers them', async () => {
    const record = await app.rest('GET', `/api-keys/${key.id}?includeUsageLogs=true`, { token: admin.token });
    const page = await app.rest('GET', `/api-keys/${key.id}/usage-logs?limit=100`, { token: admin.token });
    expect(page.body.items).toEqual(record.body.usageLogs);
    expect(page.body.items[0]).toEqual({ at: expect.any(String), ip: '192.0.2.7', origin: null, method: 'GET', path: '/api/v1/api-keys', operation: 'Op0', status: 200 });
    const viaGraphql = (await gql(`query($id: ID!) { apiKeyUsageLogs(id: $id, limit: 100) { items { ${USAGE} } nextCursor } }`, { id: key.id })).apiKeyUsageLogs;
    expect(viaGraphql).toEqual(page.body);
  });

  it('answers a revoked key whole on both surfaces, its status, revocation and nothing stored beside', async () => {
    const answered = await readOnBothSurfaces(revokedId);
    expect(answered).toMatchObject({ id: revokedId, name: 'gone', status: 'revoked', revokedBy: admin.id, revokedAt: expect.any(String), usageLogs: null });
    expect(Object.keys(answered).sort()).toEqual(ANSWERED);
  });

  it('answers a rolled key (two stored secrets) without any of its hashes', async () => {
    const made = await app.rest('POST', '/api-keys', { token: admin.token, body: { name: 'rolled', scopes: ['menus:read'] } });
    const rolled = await app.rest('POST', `/api-keys/${made.body.id}/roll`, { token: admin.token, body: { gracePeriodSeconds: 600 } });
    expect(rolled.status).toBe(200);
    const stored = await ApiKeyModel.collection.findOne({ _id: new ObjectId(made.body.id) });
    expect(stored?.secrets).toHaveLength(2);
    const answered = await readOnBothSurfaces(made.body.id);
    expect(Object.keys(answered).sort()).toEqual(ANSWERED);
    expect(JSON.stringify(answered)).not.toMatch(/secrets|rateWindow|hash|__v/);
    for (const secret of stored?.secrets ?? []) expect(JSON.stringify(answered)).not.toContain(secret.hash);
  });

  it("answers a stored record lacking the fields with defaults as the schema's defaults, on every read", async () => {
    // As an older record may be stored: only the required fields and the timestamps.
    const _id = new ObjectId();
    const at = new Date('2025-01-02T03:04:05.000Z');
    await ApiKeyModel.collection.insertOne({
      _id,
      keyId: 'OldRecord000',
      name: 'old',
      createdBy: admin.id,
      updatedBy: admin.id,
      tenant_id: 'tenant-key-reads',
      createdAt: at,
      updatedAt: at,
    });
    const id = _id.toHexString();
    const answered = await readOnBothSurfaces(id);
    expect(answered).toEqual({
      _id: id,
      id,
      keyId: 'OldRecord000',
      name: 'old',
      description: null,
      status: 'active',
      scopes: [],
      allowedOrigins: [],
      allowedIPs: [],
      expiresAt: null,
      lastUsedAt: null,
      usageCount: 0,
      rateLimit: DEFAULT_RATE_LIMIT,
      createdBy: admin.id,
      createdByKey: null,
      updatedBy: admin.id,
      metadata: {},
      createdAt: at.toISOString(),
      updatedAt: at.toISOString(),
      tenant_id: 'tenant-key-reads',
      revokedAt: null,
      revokedBy: null,
      disabledAt: null,
      disabledReason: null,
      disabledWith: null,
      usageLogs: null,
    });
    const partial = (await gql(`query($id: ID!) { apiKey(id: $id) { metadata scopes rateLimit status } }`, { id })).apiKey;
    expect(partial).toEqual({ metadata: {}, scopes: [], rateLimit: DEFAULT_RATE_LIMIT, status: 'active' });
    const page = await app.rest('GET', '/api-keys?limit=100', { token: admin.token });
    expect(page.body.items.find((item: { id: string }) => item.id === id)).toEqual(answered);
  });

  it('answers a stored record without createdAt/updatedAt with the time of its id, on reads, lists and a revoke', async () => {
    // An imported key stored without timestamps: both are non-null fields, so every read once failed (500) on it.
    const idTime = new Date('2024-05-06T07:08:09.000Z');
    const _id = new ObjectId(ObjectId.generate(idTime.getTime() / 1000));
    await ApiKeyModel.collection.insertOne({ _id, keyId: 'Unstamped000', name: 'unstamped', createdBy: admin.id, updatedBy: admin.id, tenant_id: 'tenant-key-reads' });
    const id = _id.toHexString();
    const derived = { createdAt: idTime.toISOString(), updatedAt: idTime.toISOString() };
    expect(await readOnBothSurfaces(id)).toMatchObject(derived);
    expect((await gql(`query($id: ID!) { apiKey(id: $id) { createdAt updatedAt } }`, { id })).apiKey).toEqual(derived);
    const page = await app.rest('GET', '/api-keys?limit=100', { token: admin.token });
    expect(page.body.items.find((item: { id: string }) => item.id === id)).toMatchObject(derived);
    const revoked = await app.rest('PATCH', `/api-keys/${id}/revoke`, { token: admin.token });
    expect(revoked.status).toBe(200);
    const stored = await ApiKeyModel.collection.findOne({ _id });
    expect(revoked.body).toMatchObject({ status: 'revoked', createdAt: derived.createdAt, updatedAt: (stored?.updatedAt as Date).toISOString() });
  });

  it('never hands stored hashes to the defaults: a record lacking fields, with a malformed secret, still answers without it', async () => {
    // A secret entry that is no object made mongoose's defaults throw, quoting the hash into the error.
    const _id = new ObjectId();
    const hash = 'deadbeef'.repeat(8);
    await ApiKeyModel.collection.insertOne({
      _id,
      keyId: 'OddSecret000',
      name: 'odd',
      createdBy: admin.id,
      updatedBy: admin.id,
      tenant_id: 'tenant-key-reads',
      createdAt: new Date(),
      updatedAt: new Date(),
      secrets: [hash],
      rateWindow: { start: new Date(), count: 3 },
    });
    const answered = await readOnBothSurfaces(_id.toHexString());
    expect(answered).toMatchObject({ id: _id.toHexString(), name: 'odd', scopes: [], metadata: {}, status: 'active' });
    expect(Object.keys(answered).sort()).toEqual(ANSWERED);
    expect(JSON.stringify(answered)).not.toContain(hash);
  });
});
