import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPHQL_LIMITS } from '../../src/graphql/index.js';
import { ServiceMetrics } from '../../src/metrics/index.js';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';
import { parseExposition, sampleValue, type Exposition } from './fixtures/exposition.js';
import { eventually, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * GET /metrics after known traffic on a real service: 3 REST reads, 2 GraphQL
 * queries (the second answered by the known-documents path), 1 refused
 * access token, 1 request without a credential, 1 document too deep, 1
 * verifyApiKey, 1 webhook delivery (inline), 1 subscription stream (not a
 * request); each shows as exactly that count under its labels. Outside
 * production the endpoint is open (metrics-production.test.ts: the token).
 */

let app: TestApp;
let admin: TestUser;
let scraped: Exposition;
let scrapeResponse: { status: number; contentType: string | null };
let receiver: WebhookReceiver;

const MENUS_QUERY = 'query Menus { mealMenus(limit: 5) { items { id } } }';

beforeAll(async () => {
  app = await startTestApp();
  admin = await app.createUser({ tenantId: 'tenant-metrics', roles: ['admin'] });
  receiver = await startWebhookReceiver();
  expect((await app.rest('POST', '/webhooks', { token: admin.token, body: { url: receiver.url, events: ['api-keys.create'] } })).status).toBe(201);
  for (let i = 0; i < 3; i++) expect((await app.rest('GET', '/restaurant/meal-menus', { token: admin.token })).status).toBe(200);
  for (let i = 0; i < 2; i++) expect((await app.graphql(MENUS_QUERY, {}, { token: admin.token })).status).toBe(200);
  expect((await app.rest('GET', '/restaurant/meal-menus', { token: 'not.a.jwt' })).status).toBe(401);
  expect((await app.rest('GET', '/restaurant/meal-menus/0123456789abcdef01234567')).status).toBe(401);
  expect((await app.graphql(deepDocument(), {}, { token: admin.token })).status).toBe(400);
  const key = await app.rest('POST', '/api-keys', { token: admin.token, body: { name: 'metrics key', scopes: ['menus:read'] } });
  expect(key.status).toBe(201);
  const verified = await app.rest('POST', '/api-keys/verify', { token: admin.token, body: { key: key.body.key } });
  expect(verified.body.code).toBe('VALID');
  // A subscription over SSE (no credential: its stream carries the refusal and ends): a stream, no request to time.
  const stream = await app.http('POST', '/graphql', { headers: { accept: 'text/event-stream' }, body: { query: 'subscription { events { id } }' } });
  expect(stream.status).toBe(200);
  // One webhook delivery (inline in tests), of the event the key's creation wrote.
  await eventually(async () => (await app.db.collection('webhookdeliveries').countDocuments({ status: 'delivered' })) === 1, 10_000);
  const response = await app.http('GET', '/metrics');
  scrapeResponse = { status: response.status, contentType: response.headers.get('content-type') };
  scraped = parseExposition(response.body);
}, 60_000);

afterAll(async () => {
  await app?.close();
  await receiver?.close();
});

/** One level past the depth limit: inline fragments on Query around `permissions` (as test/graphql/limits.test.ts nests). */
function deepDocument(): string {
  const nested = (depth: number): string => (depth === 1 ? 'permissions' : `... on Query { ${nested(depth - 1)} }`);
  return `{ ${nested(GRAPHQL_LIMITS.depth + 1)} }`;
}

const request = (labels: Record<string, string>) => sampleValue(scraped, 'http_server_request_duration_seconds_count', labels);

describe('GET /metrics', () => {
  it('answers the Prometheus text format, open outside production', () => {
    expect(scrapeResponse.status).toBe(200);
    expect(scrapeResponse.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(scraped.types.get('http_server_request_duration_seconds')).toBe('histogram');
  });

  it('counts the REST reads by route template, operation and status', () => {
    expect(
      request({ surface: 'rest', http_request_method: 'GET', http_route: '/api/v1/restaurant/meal-menus', operation: 'Query.mealMenus', http_response_status_code: '200' }),
    ).toBe(3);
    // The refused token, counted under its route too.
    expect(
      request({ surface: 'rest', http_request_method: 'GET', http_route: '/api/v1/restaurant/meal-menus', operation: 'Query.mealMenus', http_response_status_code: '401' }),
    ).toBe(1);
    // A path with an id is its template: no id in any label.
    expect(
      request({ surface: 'rest', http_request_method: 'GET', http_route: '/api/v1/restaurant/meal-menus/{id}', operation: 'Query.mealMenu', http_response_status_code: '401' }),
    ).toBe(1);
    expect(scraped.samples.some((sample) => Object.values(sample.labels).some((value) => value.includes('0123456789abcdef01234567')))).toBe(false);
  });

  it('counts the GraphQL queries by operation field, on both of its paths', () => {
    expect(request({ surface: 'graphql', http_request_method: 'POST', http_route: '/graphql', operation: 'Query.mealMenus', http_response_status_code: '200' })).toBe(2);
    expect(request({ surface: 'graphql', http_request_method: 'POST', http_route: '/graphql', operation: 'unknown', http_response_status_code: '400' })).toBe(1);
  });

  it('counts no other GraphQL request: not the subscription stream', () => {
    const graphql = scraped.samples.filter((sample) => sample.name === 'http_server_request_duration_seconds_count' && sample.labels.surface === 'graphql');
    expect(graphql.reduce((sum, sample) => sum + sample.value, 0)).toBe(3);
  });

  it('keeps the histogram consistent: the +Inf bucket is the count', () => {
    const labels = { surface: 'rest', http_request_method: 'GET', http_route: '/api/v1/restaurant/meal-menus', operation: 'Query.mealMenus', http_response_status_code: '200' };
    expect(sampleValue(scraped, 'http_server_request_duration_seconds_bucket', { ...labels, le: '+Inf' })).toBe(3);
    // OpenTelemetry's buckets, cumulative: each at least the one before.
    const buckets = scraped.samples.filter(
      (sample) => sample.name === 'http_server_request_duration_seconds_bucket' && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
    );
    expect(buckets.map((bucket) => bucket.labels.le)).toEqual(['0.005', '0.01', '0.025', '0.05', '0.075', '0.1', '0.25', '0.5', '0.75', '1', '2.5', '5', '7.5', '10', '+Inf']);
    expect(buckets.every((bucket, i) => i === 0 || bucket.value >= buckets[i - 1]!.value)).toBe(true);
    // Three REST reads on a loopback in-memory service: all under 10 s, and each read counted in one bucket only.
    expect(buckets.at(-2)!.value).toBe(3);
    expect(sampleValue(scraped, 'http_server_request_duration_seconds_sum', labels)).toBeGreaterThan(0);
  });

  it('counts the document refused by its depth limit', () => {
    expect(sampleValue(scraped, 'graphql_documents_refused_total', { limit: 'depth' })).toBe(1);
    expect(sampleValue(scraped, 'graphql_documents_refused_total', { limit: 'aliases' })).toBeUndefined();
  });

  it('counts credential refusals by reason, a missing credential apart', () => {
    expect(sampleValue(scraped, 'credential_refusals_total', { credential: 'jwt', reason: 'invalid' })).toBe(1);
    expect(sampleValue(scraped, 'credential_refusals_total', { credential: 'none', reason: 'missing' })).toBe(1);
  });

  it('counts verifyApiKey answers by code', () => {
    expect(sampleValue(scraped, 'api_key_verifications_total', { code: 'VALID' })).toBe(1);
    expect(sampleValue(scraped, 'api_key_rate_limited_total', {})).toBe(0);
  });

  it('counts the webhook delivery by outcome, with its delay since the event', () => {
    expect(sampleValue(scraped, 'webhook_deliveries_total', { outcome: 'delivered' })).toBe(1);
    expect(sampleValue(scraped, 'webhook_deliveries_total', { outcome: 'retrying' })).toBeUndefined();
    expect(sampleValue(scraped, 'webhook_delivery_delay_seconds_count', { outcome: 'delivered' })).toBe(1);
    expect(sampleValue(scraped, 'webhook_delivery_delay_seconds_sum', { outcome: 'delivered' })).toBeGreaterThanOrEqual(0);
  });

  it("reads the process, the driver's pool and the engine at scrape", () => {
    expect(sampleValue(scraped, 'nodejs_eventloop_lag_seconds', {})).toBeGreaterThanOrEqual(0);
    expect(sampleValue(scraped, 'nodejs_heap_size_used_bytes', {})).toBeGreaterThan(0);
    expect(sampleValue(scraped, 'db_client_connection_count', { db_client_connection_state: 'used' })).toBeGreaterThanOrEqual(0);
    expect(sampleValue(scraped, 'db_client_connection_count', { db_client_connection_state: 'idle' })).toBeGreaterThan(0);
    expect(sampleValue(scraped, 'db_client_connection_checkouts_total', {})).toBeGreaterThan(0);
    // The user, the key and its usage at least; in memory there is no log.
    expect(sampleValue(scraped, 'engine_documents', {})).toBeGreaterThanOrEqual(2);
    expect(sampleValue(scraped, 'engine_wal_size_bytes', {})).toBe(0);
    expect(scraped.types.get('engine_wal_fsync_duration_seconds')).toBe('histogram');
  });

  it('does not count its own scrapes or pages as API requests', async () => {
    await app.http('GET', '/healthz');
    const again = parseExposition((await app.http('GET', '/metrics')).body);
    expect(again.samples.some((sample) => sample.name === 'http_server_request_duration_seconds_count' && /metrics|healthz/.test(sample.labels.http_route ?? ''))).toBe(false);
  });
});

describe('a registry per service instance', () => {
  it('keeps two instances apart in one process', async () => {
    const one = new ServiceMetrics({ databasePool: false });
    const two = new ServiceMetrics({ databasePool: false });
    one.documentRefused('cost');
    expect(sampleValue(parseExposition((await one.scrape()).text), 'graphql_documents_refused_total', { limit: 'cost' })).toBe(1);
    expect(sampleValue(parseExposition((await two.scrape()).text), 'graphql_documents_refused_total', { limit: 'cost' })).toBeUndefined();
    one.close();
    two.close();
  });
});
