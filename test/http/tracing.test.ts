import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

/**
 * OpenTelemetry tracing with an in-process collector: the real service, an
 * OTLP endpoint configured (never reached: the SDK's in-memory exporter takes
 * the spans in its place), one request per surface, then its spans read back.
 * The "off" half (no endpoint, no span) is tracing-off.test.ts.
 */
const exporter = new InMemorySpanExporter();
let app: TestApp;
let admin: TestUser;
let menuId: string;
let apiKey: string;
const secrets: string[] = [];

beforeAll(async () => {
  app = await startTestApp({
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_SERVICE_NAME: 'gateway-under-test' },
    traceProcessor: new SimpleSpanProcessor({ exporter }),
  });
  admin = await app.createUser({ tenantId: 'tenant-traced' });
  const signIn = await app.rest('POST', '/auth/login', { body: { email: admin.email, password: admin.password, tenantId: 'tenant-traced' }, headers: { 'x-request-id': 'trace-login' } });
  expect(signIn.status).toBe(200);
  const created = await app.graphql(
    'mutation MakeMenu($name: String!, $date: String!, $mealType: MealType!) { createMealMenu(name: $name, date: $date, mealType: $mealType) { id } }',
    { name: 'Traced lunch', date: '2026-03-03', mealType: 'lunch' },
    { token: admin.token, headers: { 'x-request-id': 'trace-graphql' } },
  );
  expect(created.body.errors).toBeUndefined();
  menuId = created.body.data.createMealMenu.id;
  const read = await app.rest('GET', `/restaurant/meal-menus/${menuId}`, { token: admin.token, headers: { 'x-request-id': 'trace-rest' } });
  expect(read.status).toBe(200);
  const key = await app.rest('POST', '/api-keys', { token: admin.token, body: { name: 'traced key', scopes: ['menus:read'] } });
  expect(key.status).toBe(201);
  apiKey = key.body.key;
  // A POST: its body is read before the credential is (on socket events, outside the request's context).
  const withKey = await app.graphql('query ReadMenu($id: ID!) { mealMenu(id: $id) { id } }', { id: menuId }, { headers: { 'x-api-key': apiKey, 'x-request-id': 'trace-key' } });
  expect(withKey.body.errors).toBeUndefined();
  secrets.push(admin.password, admin.token, signIn.body.accessToken, signIn.body.refreshToken, apiKey);
  // A request's span ends when its response closes, just after the client has the answer.
  await vi.waitFor(() => expect(['trace-login', 'trace-graphql', 'trace-rest', 'trace-key'].map(requestSpan)).toHaveLength(4));
});
afterAll(() => app?.close());

const spans = (): ReadableSpan[] => exporter.getFinishedSpans();
const idOf = (span: ReadableSpan) => span.spanContext().spanId;

/** The SERVER span of the request with this id (throws while it has not ended). */
function requestSpan(requestId: string): ReadableSpan {
  const found = spans().filter((span) => span.kind === SpanKind.SERVER && span.attributes['request.id'] === requestId);
  if (found.length !== 1) throw new Error(`${found.length} request spans for ${requestId}`);
  return found[0];
}

function childrenOf(parent: ReadableSpan): ReadableSpan[] {
  return spans().filter((span) => span.parentSpanContext?.spanId === idOf(parent));
}

/** Every span of the request's trace below its request span. */
function descendantsOf(parent: ReadableSpan): ReadableSpan[] {
  return childrenOf(parent).flatMap((child) => [child, ...descendantsOf(child)]);
}

function onlyChild(parent: ReadableSpan, name: string): ReadableSpan {
  const found = childrenOf(parent).filter((span) => span.name === name);
  expect(found.map((span) => span.name), `children of ${parent.name}: ${childrenOf(parent).map((s) => s.name).join(', ')}`).toEqual([name]);
  return found[0];
}

describe('tracing (OTEL_EXPORTER_OTLP_ENDPOINT set)', () => {
  it('makes a SERVER span per REST request, named by its route template, with the HTTP semantic conventions', () => {
    const span = requestSpan('trace-rest');
    const port = Number(new URL(app.baseUrl).port);
    expect(span.name).toBe('GET /api/v1/restaurant/meal-menus/:id');
    expect(span.parentSpanContext).toBeUndefined();
    expect(span.attributes).toMatchObject({
      'http.request.method': 'GET',
      'url.path': `/api/v1/restaurant/meal-menus/${menuId}`,
      'url.scheme': 'http',
      'http.route': '/api/v1/restaurant/meal-menus/:id',
      'http.response.status_code': 200,
      'server.address': '127.0.0.1',
      'server.port': port,
      'request.id': 'trace-rest',
    });
    expect(span.status.code).not.toBe(SpanStatusCode.ERROR);
    expect(span.resource.attributes['service.name']).toBe('gateway-under-test');
  });

  it('puts the REST operation, its resolver and its database commands under the request span', () => {
    const request = requestSpan('trace-rest');
    const operation = childrenOf(request).find((span) => span.attributes['graphql.operation.type'] === 'query');
    expect(operation, childrenOf(request).map((s) => s.name).join(', ')).toBeDefined();
    expect(operation!.name).toBe(`query ${operation!.attributes['graphql.operation.name']}`);
    const resolver = onlyChild(operation!, 'Query.mealMenu');
    expect(resolver.attributes).toMatchObject({ 'graphql.field.name': 'mealMenu', 'graphql.field.type': 'MealMenu!' });
    const reads = descendantsOf(resolver).filter((span) => span.attributes['db.collection.name'] === 'mealmenus');
    expect(reads.length).toBeGreaterThan(0);
    expect(reads[0]).toMatchObject({ kind: SpanKind.CLIENT, name: 'find mealmenus' });
    expect(reads[0].attributes).toMatchObject({ 'db.system.name': 'mongodb', 'db.operation.name': 'find', 'request.id': 'trace-rest' });
    expect(reads[0].attributes['db.namespace']).toMatch(/^test_/);
  });

  it('makes the GraphQL request a trace of request, operation, resolver and database commands', () => {
    const request = requestSpan('trace-graphql');
    expect(request.name).toBe('POST /graphql');
    expect(request.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.route': '/graphql', 'url.path': '/graphql', 'http.response.status_code': 200 });
    const operation = onlyChild(request, 'mutation MakeMenu');
    expect(operation.attributes).toMatchObject({ 'graphql.operation.type': 'mutation', 'graphql.operation.name': 'MakeMenu' });
    const resolver = onlyChild(operation, 'Mutation.createMealMenu');
    const inserts = descendantsOf(resolver).filter((span) => span.attributes['db.operation.name'] === 'insert' && span.attributes['db.collection.name'] === 'mealmenus');
    expect(inserts).toHaveLength(1);
  });

  it('makes the credential check, read before the operation runs, a child of the request span too', () => {
    // An API key's first use looks the key up (the request edge, after the JSON body was read).
    const request = requestSpan('trace-key');
    const lookups = childrenOf(request).filter((span) => span.attributes['db.collection.name'] === 'apikeys');
    expect(lookups.length, childrenOf(request).map((s) => s.name).join(', ')).toBeGreaterThan(0);
  });

  it('carries the request id on every span of each request, and makes no span outside a request', () => {
    for (const requestId of ['trace-login', 'trace-graphql', 'trace-rest', 'trace-key']) {
      const request = requestSpan(requestId);
      const below = descendantsOf(request);
      expect(below.length).toBeGreaterThan(0);
      for (const span of below) expect(span.attributes['request.id'], span.name).toBe(requestId);
      // Every span of the trace hangs below the request span.
      const trace = spans().filter((span) => span.spanContext().traceId === request.spanContext().traceId);
      expect(trace).toHaveLength(below.length + 1);
    }
    for (const span of spans()) expect(span.attributes['request.id'], span.name).toEqual(expect.any(String));
  });

  it('puts no credential, password or header in any attribute', () => {
    expect(secrets.every((secret) => typeof secret === 'string' && secret.length > 8)).toBe(true);
    for (const span of spans()) {
      const attributes = JSON.stringify(span.attributes);
      for (const secret of secrets) expect(attributes, span.name).not.toContain(secret);
      expect(attributes.toLowerCase(), span.name).not.toMatch(/authorization|bearer|x-api-key|password|"graphql\.document"/);
    }
  });

  it('marks a failing command and a 5xx-free refusal as the semantic conventions say', async () => {
    // A 404 is the client's: the request span is not an error; the operation that answered it is.
    const missing = await app.rest('GET', '/restaurant/meal-menus/0123456789abcdef01234567', { token: admin.token, headers: { 'x-request-id': 'trace-404' } });
    expect(missing.status).toBe(404);
    const request = await vi.waitFor(() => requestSpan('trace-404'));
    expect(request.attributes['http.response.status_code']).toBe(404);
    expect(request.status.code).not.toBe(SpanStatusCode.ERROR);
    const resolver = descendantsOf(request).find((span) => span.name === 'Query.mealMenu');
    expect(resolver?.status.code).toBe(SpanStatusCode.ERROR);
    expect(resolver?.attributes['error.type']).toBe('NOT_FOUND');
  });
});
