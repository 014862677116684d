import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKeyStore } from '../../src/api-keys/index.js';
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
  usageCount rateLimit createdBy updatedBy metadata createdAt updatedAt tenant_id revokedAt revokedBy`;
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
});
