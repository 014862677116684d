import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REST_BASE_PATH } from '../../src/http/app.js';
import { startHostileFixture, type HostileCaller, type HostileFixture } from '../support/hostile-fixture.js';
import {
  fromJsonSchema,
  hostileJsonObject,
  hostileValue,
  oddSegment,
  propertyParameters,
  propertyTimeout,
  queryString,
  resolvePlaceholders,
  restOperations,
  sometimes,
  wellFormedText,
  type JsonSchema,
  type RestOperation,
} from '../support/hostile.js';

/**
 * Hostile input over REST, generated from the OpenAPI document: every
 * operation gets path parameters, query strings and bodies shaped by its
 * schemas and mixed with operator objects, prototype keys, huge and deep
 * values, wrong types, bad unicode and odd path segments, from every kind
 * of caller. Whatever comes, the service answers without a 5xx, refuses with
 * problem+json carrying a `code`, and a refusal leaves the database as it was
 * (fixture: test/support/hostile-fixture.ts; runs: HOSTILE_RUNS).
 */

const document = JSON.parse(readFileSync('schema/openapi.json', 'utf8')) as JsonSchema;
const operations = restOperations(document);

let fixture: HostileFixture;
beforeAll(async () => {
  fixture = await startHostileFixture();
});
afterAll(() => fixture?.app.close());

/** A path parameter: a value its schema suggests (encoded at send time), or a segment written raw. */
type PathValue = { plain: unknown } | { raw: string };
/** A query parameter its schema suggests (encoded at send time), or `k=v` pairs written raw. */
type QueryPart = { name: string; plain: unknown } | { raw: string };

interface RestRequest {
  operation: RestOperation;
  caller: HostileCaller;
  path: Record<string, PathValue>;
  query: QueryPart[];
  /** Undefined: no body. */
  body: unknown;
}

function requestFor(operation: RestOperation, caller: fc.Arbitrary<HostileCaller>): fc.Arbitrary<RestRequest> {
  const pathParams = operation.parameters.filter((p) => p.in === 'path');
  const queryParams = operation.parameters.filter((p) => p.in === 'query');
  const path = fc.record(
    Object.fromEntries(
      pathParams.map((p) => [
        p.name,
        fc.oneof(
          { arbitrary: fromJsonSchema(p.schema, document, p.name).map((plain): PathValue => ({ plain })), weight: 4 },
          { arbitrary: oddSegment.map((raw): PathValue => ({ raw })), weight: 1 },
        ),
      ]),
    ),
  );
  const schemaQuery = fc
    .tuple(...queryParams.map((p) => fc.option(fromJsonSchema(p.schema, document, p.name).map((plain): QueryPart => ({ name: p.name, plain })), { freq: 2, nil: undefined })))
    .map((parts) => parts.filter((part) => part !== undefined));
  const extraQuery = sometimes(queryString(queryParams.map((p) => p.name)).map((raw): QueryPart => ({ raw })), 4);
  const mayHaveBody = operation.method !== 'GET' && operation.method !== 'HEAD';
  const body = operation.body
    ? fc.oneof({ arbitrary: fromJsonSchema(operation.body, document), weight: 9 }, { arbitrary: hostileValue, weight: 1 })
    : mayHaveBody
      ? sometimes(hostileValue, 4)
      : fc.constant(undefined);
  return fc.record({ caller, path, schemaQuery, extraQuery, body }).map(({ caller: who, path: values, schemaQuery: parts, extraQuery: extra, body: payload }) => ({
    operation,
    caller: who,
    path: values,
    query: extra ? [...parts, extra] : parts,
    body: payload,
  }));
}

/** The URL and options of a generated request, placeholders replaced by the caller's values. */
function materialize({ operation, caller, path, query, body }: RestRequest) {
  const resolve = (value: unknown) => resolvePlaceholders(value, caller.placeholders);
  // Values as a client writes them: strings as they are, anything else as JSON; lone surrogates cannot be percent-encoded.
  const encode = (value: unknown) =>
    encodeURIComponent(wellFormedText((typeof value === 'string' ? value : JSON.stringify(value) ?? '').slice(0, 2_000))).slice(0, 2_000);
  const pathname = operation.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = path[name]!;
    return 'raw' in value ? value.raw : encode(resolve(value.plain));
  });
  const search = query.map((part) => ('raw' in part ? part.raw : `${part.name}=${encode(resolve(part.plain))}`)).join('&');
  return {
    // Node itself answers a request line over 16 KB with a bare 431, before the service sees it.
    url: `${REST_BASE_PATH}${pathname}${search ? `?${search}` : ''}`.slice(0, 12_000),
    opts: { headers: caller.headers, ...(body === undefined ? {} : { body: resolve(body) }) },
  };
}

/**
 * `value` as JSON with every string and key made well-formed: a lone surrogate cannot be written
 * as UTF-8, so storage holds U+FFFD for it (a known limit of every string field, not of metadata).
 */
function wellFormed(value: unknown): unknown {
  const walk = (inner: unknown): unknown => {
    if (typeof inner === 'string' || inner instanceof String) return wellFormedText(String(inner));
    if (Array.isArray(inner)) return inner.map(walk);
    if (inner !== null && typeof inner === 'object') return Object.fromEntries(Object.entries(inner).map(([key, v]) => [wellFormedText(key), walk(v)]));
    return inner;
  };
  return walk(JSON.parse(JSON.stringify(value ?? null)));
}

const anyOperation = (caller: fc.Arbitrary<HostileCaller>) => fc.constantFrom(...operations).chain((operation) => requestFor(operation, caller));

describe('hostile input over REST', () => {
  it('reads every operation of the OpenAPI document', () => {
    expect(operations.length).toBeGreaterThanOrEqual(20);
  });

  it('answers every generated request without a 5xx, refuses with a coded problem, and a refusal changes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(anyOperation(fixture.caller), async (request) => {
        const { url, opts } = materialize(request);
        await fixture.attempt('rest', request.operation.method, url, opts);
      }),
      propertyParameters(),
    );
  }, propertyTimeout());

  it('stores free-form JSON (API key metadata) as it answered it, or refuses it', async () => {
    // metadata is the one value that reaches storage as sent: an accepted one must be stored as answered.
    const tenantAdmin = fixture.callers.find((caller) => caller.name === 'tenant admin')!;
    let made = 0;
    await fc.assert(
      fc.asyncProperty(hostileJsonObject, async (metadata) => {
        made += 1;
        const name = `metadata-${made}`;
        const answer = await fixture.attempt('rest', 'POST', `${REST_BASE_PATH}/api-keys`, { headers: tenantAdmin.headers, body: { name, scopes: ['menus:read'], metadata } });
        if (answer.status !== 201) return;
        const [stored] = await fixture.app.db.collection('apikeys').find({ name }).toArray();
        expect(wellFormed(answer.body.metadata)).toEqual(wellFormed(metadata));
        expect(wellFormed(stored?.metadata)).toEqual(wellFormed(metadata));
        // Checked: removed, so the database every request snapshots stays small in a long run.
        await fixture.app.db.collection('apikeys').deleteOne({ name });
      }),
      propertyParameters(),
    );
  }, propertyTimeout());

  it('answers odd paths and methods under /api/v1 the same way', async () => {
    const STATIC = ['api-keys', 'access-control', 'users', 'roles', 'permissions', 'restaurant', 'meal-menus', 'estimated-portions',
      'revoke', 'roll', 'usage-logs', 'schemas', 'User', 'auth', 'me', 'login', 'audit-events', 'openapi.json', 'docs', '@@menu@@', '@@key@@'];
    const segment = fc.oneof({ arbitrary: fc.constantFrom(...STATIC), weight: 3 }, { arbitrary: oddSegment, weight: 2 });
    const request = fc.record({
      caller: fixture.caller,
      method: fc.constantFrom('GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'OPTIONS', 'HEAD'),
      prefix: fc.constantFrom(REST_BASE_PATH, `${REST_BASE_PATH}/`, '/api', '/api/v2', '', '/graphql'),
      segments: fc.array(segment, { minLength: 1, maxLength: 5 }),
      query: sometimes(queryString([]), 2),
      body: sometimes(hostileValue, 2),
    });
    await fc.assert(
      fc.asyncProperty(request, async ({ caller, method, prefix, segments, query, body }) => {
        const path = segments.map((s) => String(resolvePlaceholders(s, caller.placeholders))).join('/');
        const url = `${prefix}/${path}${query ? `?${query}` : ''}`;
        const sendsBody = body !== undefined && method !== 'GET' && method !== 'HEAD';
        await fixture.attempt('rest', method, url, { headers: caller.headers, ...(sendsBody ? { body } : {}) });
      }),
      propertyParameters(),
    );
  }, propertyTimeout());
});
