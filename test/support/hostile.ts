import { createHash } from 'node:crypto';
import { BSON, EJSON } from 'bson';
import fc from 'fast-check';
import type { Db } from 'mongodb';

/**
 * Generators and checks of the hostile-input proofs (test/hostile/): values
 * shaped by the OpenAPI document or the GraphQL schema, mixed at every node
 * with hostile ones (operator objects, prototype keys, huge and deep values,
 * wrong types, bad unicode), and a snapshot of the database to prove that a
 * refused request changed nothing.
 */

// ---------------------------------------------------------------- run settings

/** Default runs per property: small enough for `npm test` on a loaded machine. */
export const DEFAULT_RUNS = 50;
const DEFAULT_SEED = 20261123;

/** The runs a property will make (HOSTILE_RUNS or the default). */
export function propertyRuns(defaultRuns = DEFAULT_RUNS): number {
  const runs = Number(process.env.HOSTILE_RUNS);
  return Number.isInteger(runs) && runs > 0 ? runs : defaultRuns;
}

/** A test timeout that grows with the runs (a request, two snapshots and shrinking on failure). */
export function propertyTimeout(defaultRuns = DEFAULT_RUNS): number {
  return Math.max(120_000, propertyRuns(defaultRuns) * 1_000);
}

/**
 * fast-check's parameters: `HOSTILE_RUNS` (the long run of `npm run test:reliability`)
 * raises the runs; `HOSTILE_SEED` replays a seed (fast-check prints it on failure),
 * `random` draws a new one. The default seed is fixed, so CI runs the same cases.
 */
export function propertyParameters(defaultRuns = DEFAULT_RUNS): fc.Parameters<unknown> {
  const seedVar = process.env.HOSTILE_SEED;
  const given = Number(seedVar);
  const seed = seedVar === 'random' ? Date.now() ^ (Math.random() * 0x7fffffff) : seedVar && Number.isInteger(given) ? given : DEFAULT_SEED;
  return { numRuns: propertyRuns(defaultRuns), seed };
}

// ---------------------------------------------------------------- placeholders

/**
 * Values that stand for records known only once the app runs (the caller's
 * own id, a menu's id, ...). Generated as these strings and swapped for the
 * real value just before sending (`resolvePlaceholders`), so generators stay static.
 */
export const PLACEHOLDER = {
  self: '@@self@@',
  menu: '@@menu@@',
  user: '@@user@@',
  key: '@@key@@',
  role: '@@role@@',
  cursor: '@@cursor@@',
} as const;
export type Placeholders = Record<(typeof PLACEHOLDER)[keyof typeof PLACEHOLDER], unknown>;

/**
 * A copy with placeholders replaced; keeps own `__proto__` keys as plain data.
 * Generators put placeholders near the top: deeper values (the deep hostile ones) are kept as they are.
 */
export function resolvePlaceholders(value: unknown, values: Placeholders, depth = 0): unknown {
  if (typeof value === 'string') return Object.hasOwn(values, value) ? values[value as keyof Placeholders] : value;
  if (depth > 8 || value === null || typeof value !== 'object' || value instanceof String) return value;
  if (Array.isArray(value)) return value.map((item) => resolvePlaceholders(item, values, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, resolvePlaceholders(inner, values, depth + 1)]));
}

/** Placeholders or realistic values by argument name: what gets a request past the first checks. */
function hintFor(name: string | undefined): fc.Arbitrary<unknown> | undefined {
  switch (name) {
    case 'id':
      return fc.constantFrom(PLACEHOLDER.menu, PLACEHOLDER.user, PLACEHOLDER.key, PLACEHOLDER.role, '000000000000000000000000');
    case 'createdBy':
    case 'updatedBy':
    case 'actor':
    case 'target':
      return fc.constantFrom(PLACEHOLDER.self, PLACEHOLDER.self, PLACEHOLDER.user);
    case 'tenant_id':
    case 'tenantId':
      return fc.constantFrom('t-hostile', 't-other', null);
    case 'roles':
      return fc.constantFrom(['member'], ['admin'], [], [PLACEHOLDER.role]);
    case 'role':
      return fc.constantFrom('member', 'admin', PLACEHOLDER.role);
    case 'cursor':
      return fc.constantFrom(PLACEHOLDER.cursor);
    case 'password':
      return fc.constantFrom('Passw0rd!', 'Xy1xyz', 'Aa1' + 'x'.repeat(47));
    case 'limit':
      return fc.integer({ min: 0, max: 120 });
    default:
      return undefined;
  }
}

/** `text` with each lone surrogate as U+FFFD: what UTF-8 (a URL, BSON) can carry of it. */
export function wellFormedText(text: string): string {
  return text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}

// ---------------------------------------------------------------- hostile values

const OPERATORS: unknown[] = [
  { $ne: null },
  { $gt: '' },
  { $where: 'sleep(100) || true' },
  { $regex: '.*' },
  { $in: ['admin', 'member'] },
  { $exists: true },
  { $expr: { $eq: [1, 1] } },
  { $set: { roles: ['admin'] } },
  { $elemMatch: { $ne: null } },
  { $eq: { $ne: null } },
];

/** Objects whose own keys are `__proto__`, `constructor`, `prototype` (JSON.parse makes them so on the server). */
const PROTOTYPE_KEYS: unknown[] = [
  Object.fromEntries([['__proto__', { polluted: 'yes', isAdmin: true }]]),
  Object.fromEntries([['constructor', { prototype: { polluted: 'yes' } }]]),
  Object.fromEntries([['prototype', { polluted: 'yes' }]]),
  Object.fromEntries([['__proto__', { toString: 'x', valueOf: 'y', hasOwnProperty: 'z' }]]),
  Object.fromEntries([['toString', 'x'], ['hasOwnProperty', 'y']]),
];

/** `depth` levels of `{a: ...}` or `[...]`; printed short in a counterexample (fast-check's printer recurses). */
function nested(depth: number, inArray: boolean): unknown {
  let value: unknown = 'bottom';
  for (let level = 0; level < depth; level += 1) value = inArray ? [value] : { a: value };
  return printedAs(value, `${depth} nested ${inArray ? 'arrays' : 'objects'}`);
}

/**
 * A big value that a counterexample prints as `label`. Strings become String
 * objects for that (JSON.stringify writes them as plain strings).
 */
function printedAs<T>(value: T, label: string): T {
  const target = (typeof value === 'string' ? new String(value) : value) as object;
  return Object.defineProperty(target, fc.toStringMethod, { value: () => `<${label}>` }) as T;
}

const HUGE: unknown[] = [
  printedAs('x'.repeat(300_000), "'x' x 300000"),
  printedAs('\u00e9'.repeat(100_000), "'é' x 100000"),
  printedAs(Array.from({ length: 20_000 }, () => 0), '20000 zeros'),
  printedAs(Array.from({ length: 2_000 }, (_, i) => `item-${i}`), '2000 strings'),
  printedAs(Object.fromEntries(Array.from({ length: 3_000 }, (_, i) => [`k${i}`, i])), 'object of 3000 keys'),
];

const DEEP: unknown[] = [nested(30, false), nested(120, false), nested(1_000, false), nested(120, true), nested(3_000, true)];

const ODD_SCALARS: unknown[] = [
  null, true, false, 0, -1, -0, 1.5, 1e308, -1e308, 2 ** 53 + 1, 2 ** 31, -(2 ** 31) - 1,
  '', ' ', '0', '-1', '1e2', '0x10', 'true', 'null', 'undefined', 'NaN', '[]', '{}',
  '000000000000000000000000', 'ffffffffffffffffffffffff', 'FFFFFFFFFFFFFFFFFFFFFFFF', 'zzzzzzzzzzzzzzzzzzzzzzzz',
  '2024-02-30', '9999-12-31T23:59:59.999Z', '+275760-09-13T00:00:00.000Z', '0000-01-01T00:00:00Z', 'Invalid Date', '1970-01-01',
  'admin', '*', 'users:*', 'a@b', 'x@example.test', 'javascript:alert(1)', 'http://', 'http://a/b', 'ftp://x',
  '../../etc/passwd', '%00', '\u0000', '${7*7}', '{{7*7}}', "'; db.dropDatabase(); '", 'sleep(1000)',
  [], {}, [null], [{}], [[]], ['admin', 'admin'], [1, 'a', null],
];

/** Lone surrogates, NUL, direction overrides, case-folding traps. */
const BAD_UNICODE: unknown[] = [
  '\ud800', 'a\udc00b', '\udfff\ud800', 'name\ud83d', '\u0000\u0000', '\u202e\u0041\u0042', '\ufeff', '\uffff\ufffe',
  '\u0130\u0131', 'ＡＤＭＩＮ', 'e\u0301', '\u{1f600}'.repeat(200), '\u200b', 'Ω\u2126',
];

const loneSurrogates = fc.string({ unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)), minLength: 1, maxLength: 4 });

/** A hostile value of any kind. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.constantFrom(...OPERATORS), weight: 4 },
  { arbitrary: fc.constantFrom(...PROTOTYPE_KEYS), weight: 3 },
  { arbitrary: fc.constantFrom(...HUGE), weight: 1 },
  { arbitrary: fc.constantFrom(...DEEP), weight: 1 },
  { arbitrary: fc.constantFrom(...ODD_SCALARS), weight: 4 },
  { arbitrary: fc.constantFrom(...BAD_UNICODE), weight: 2 },
  { arbitrary: fc.tuple(fc.string({ maxLength: 8 }), loneSurrogates).map(([a, b]) => a + b), weight: 1 },
  { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 2 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 30 }), weight: 1 },
);

/**
 * A free-form JSON object (a `JSONObject` argument) as a hostile client
 * writes it: hostile keys and values at any depth, plain JSON elsewhere.
 */
export const hostileJsonObject: fc.Arbitrary<Record<string, unknown>> = fc.letrec((tie) => ({
  object: fc.dictionary(
    fc.oneof({ arbitrary: fc.string({ maxLength: 8 }), weight: 3 }, { arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype', '$where', 'a.b', '\u0000', 'k\u0000', '\ud800', ''), weight: 1 }),
    tie('value'),
    { maxKeys: 4, depthIdentifier: 'json' },
  ),
  value: fc.oneof(
    { depthSize: 'small', depthIdentifier: 'json' },
    { arbitrary: fc.jsonValue({ maxDepth: 1 }), weight: 4 },
    { arbitrary: tie('object'), weight: 2 },
    { arbitrary: fc.array(tie('value'), { maxLength: 3, depthIdentifier: 'json' }), weight: 1 },
    { arbitrary: hostileValue, weight: 1 },
  ),
})).object as fc.Arbitrary<Record<string, unknown>>;

/** Keys a hostile client adds to an object. */
export const hostileKey: fc.Arbitrary<string> = fc.constantFrom(
  '__proto__', 'constructor', 'prototype', '$where', '$ne', '$set', 'a.b', '', ' ', 'passwordHash', 'tokenVersion', 'secrets',
  'tenant_id', '_id', 'id', 'usageCount', 'revokedAt', 'deletedAt', '\ud800', '\u0000', 'a\u0000b', 'isAdmin',
);

/**
 * A value as the schema would have it or, once in 12, a hostile one: a body
 * of a handful of fields is then often entirely well-formed and reaches the
 * resolver's own rules, and often wrong in one or two places.
 */
export function mixed(valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc.oneof({ arbitrary: valid, weight: 11 }, { arbitrary: hostileValue, weight: 1 });
}

/** `arbitrary` one time in `times`, else undefined. */
export function sometimes<T>(arbitrary: fc.Arbitrary<T>, times: number): fc.Arbitrary<T | undefined> {
  return fc.oneof({ arbitrary: fc.constant(undefined), weight: times - 1 }, { arbitrary, weight: 1 });
}

/** An object of generated properties (required ones mostly present, optional ones half the time), sometimes with hostile extra keys. */
export function objectOf(properties: Record<string, fc.Arbitrary<unknown>>, required: readonly string[]): fc.Arbitrary<Record<string, unknown>> {
  const entries = Object.entries(properties).map(([name, arbitrary]) =>
    fc.option(arbitrary.map((value) => [name, value] as const), { freq: required.includes(name) ? 12 : 2, nil: undefined }),
  );
  const extras = sometimes(fc.array(fc.tuple(hostileKey, hostileValue), { minLength: 1, maxLength: 2 }), 8);
  return fc.tuple(fc.tuple(...entries), extras)
    .map(([own, extra]) => Object.fromEntries([...own.filter((entry) => entry !== undefined), ...(extra ?? [])]));
}

// ---------------------------------------------------------------- from the OpenAPI document

export type JsonSchema = Record<string, any>;

/** Resolves a local `$ref` (`#/components/schemas/X`), keeping the referring node's other keywords. */
export function deref(schema: JsonSchema, document: JsonSchema): JsonSchema {
  if (typeof schema.$ref !== 'string') return schema;
  const target = schema.$ref.replace(/^#\//, '').split('/').reduce((node: any, key: string) => node?.[key], document);
  const { $ref: _ref, ...rest } = schema;
  return { ...deref(target ?? {}, document), ...rest };
}

function stringFor(schema: JsonSchema): fc.Arbitrary<unknown> {
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const { minLength = 0, maxLength = 40 } = schema;
  switch (schema.format) {
    case 'date-time':
      return fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((date) => date.toISOString());
    case 'date':
      return fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((date) => date.toISOString().slice(0, 10));
    case 'email':
    case 'idn-email':
      return fc.emailAddress();
    case 'uri':
      return schema.pattern ? fc.constantFrom('https://app.example.test', 'http://localhost:3000') : fc.webUrl();
    case 'iri':
      return fc.constantFrom('https://cdn.example.test/a.png', 'HTTP://203.0.113.7:8080/b?c#d', 'https://ü.example.test/');
    case 'password':
      return fc.constantFrom('Passw0rd!', 'Xy1xyz');
  }
  if (typeof schema.pattern === 'string') {
    try {
      return fc.stringMatching(new RegExp(schema.pattern));
    } catch {
      // A pattern fast-check cannot generate from (lookaheads): plain strings.
    }
  }
  return fc.string({ minLength: Math.min(minLength, 40), maxLength: Math.min(maxLength, Math.max(minLength, 40)) });
}

/** Values for a JSON Schema (as the OpenAPI document states it), hostile at every node. */
export function fromJsonSchema(schema: JsonSchema, document: JsonSchema, name?: string): fc.Arbitrary<unknown> {
  const hint = hintFor(name);
  if (hint) return mixed(hint);
  const resolved = deref(schema, document);
  // JSON Schema 2020-12's nullable field: `type: ['string', 'null']`, or `anyOf` a reference and `{type: 'null'}`.
  if (Array.isArray(resolved.type)) return fc.oneof(...resolved.type.map((type: string) => fromJsonSchema({ ...resolved, type }, document, name)));
  if (Array.isArray(resolved.anyOf)) return fc.oneof(...resolved.anyOf.map((branch: JsonSchema) => fromJsonSchema(branch, document, name)));
  switch (resolved.type) {
    case 'null':
      return fc.constant(null);
    case 'string':
      return mixed(stringFor(resolved));
    case 'integer':
      return mixed(fc.integer({ min: resolved.minimum ?? -5, max: resolved.maximum ?? 2_000_000 }));
    case 'number':
      return mixed(fc.double({ noNaN: true }));
    case 'boolean':
      return mixed(fc.boolean());
    case 'array': {
      const items = fromJsonSchema(resolved.items ?? {}, document);
      const bounds = { minLength: resolved.minItems ?? 0, maxLength: Math.min(resolved.maxItems ?? 4, 4) };
      return mixed(resolved.uniqueItems ? fc.uniqueArray(items, { ...bounds, selector: (v) => JSON.stringify(v) }) : fc.array(items, bounds));
    }
    case 'object': {
      if (!resolved.properties) {
        // Free-form (JSONObject): hostile keys and values at any place, as a JSON client may send them.
        const key = fc.oneof({ arbitrary: fc.string({ maxLength: 10 }), weight: 4 }, { arbitrary: hostileKey, weight: 1 });
        const value = fc.oneof({ arbitrary: fc.jsonValue({ maxDepth: 2 }), weight: 4 }, { arbitrary: hostileValue, weight: 1 });
        return mixed(fc.dictionary(key, value, { maxKeys: 5 }));
      }
      const properties = Object.fromEntries(
        Object.entries(resolved.properties as Record<string, JsonSchema>).map(([key, inner]) => [key, fromJsonSchema(inner, document, key)]),
      );
      return mixed(objectOf(properties, resolved.required ?? []));
    }
    default:
      return hostileValue;
  }
}

export interface RestOperation {
  method: string;
  /** The OpenAPI path template, e.g. `/api-keys/{id}/roll`. */
  path: string;
  operationId: string;
  parameters: { name: string; in: 'path' | 'query'; schema: JsonSchema }[];
  body?: JsonSchema;
}

/** Every operation of the OpenAPI document. */
export function restOperations(document: JsonSchema): RestOperation[] {
  return Object.entries(document.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({
      method: method.toUpperCase(),
      path,
      operationId: operation.operationId,
      parameters: operation.parameters ?? [],
      body: operation.requestBody?.content?.['application/json']?.schema,
    })),
  );
}

// ---------------------------------------------------------------- paths and query strings

/** A path segment as a hostile client writes it, already percent-encoded (or deliberately not). */
export const oddSegment: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '%00', '..', '.', '%2e%2e', '%2E%2E%2F', '%2F', '%5C', '%ZZ', '%', '%E0%A4%A', '%C0%AF', '%ED%A0%80', '%FF%FE',
    '%F0%9F%98%80', '%E2%80%AE', '~', ';', ';a=b', '$ne', '%24ne', '[$ne]', '__proto__', 'constructor', 'prototype',
    '{id}', ':id', '%7Bid%7D', 'a'.repeat(1_000), '%20', '+', '%0d%0aX-Injected:%201', 'null', 'undefined', '-1', '1e2', '0x10',
    '000000000000000000000000', 'FFFFFFFFFFFFFFFFFFFFFFFF',
  ),
  fc.string({ unit: 'binary', maxLength: 12 }).map((text) => encodeURIComponent(wellFormedText(text))),
);

/** A query-string value: a plain or odd value, percent-encoded or raw. */
const queryValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('', '1', '0', '-1', '101', '1e2', '0x10', 'true', 'false', 'null', '%00', '%ZZ', '%ED%A0%80', 'a'.repeat(1_000),
    'breakfast', 'brunch', 'active', 'revoked', '2030-01-18', '2024-02-30', 'admin', 'member', '%24ne', '.*', '%5B%5D'),
  fc.string({ maxLength: 20 }).map(encodeURIComponent),
  fc.constantFrom(...OPERATORS, ...PROTOTYPE_KEYS).map((value) => encodeURIComponent(JSON.stringify(value))),
);

/** `key=value` pairs for an operation's query parameters, with hostile keys and repeated keys. */
export function queryString(names: readonly string[]): fc.Arbitrary<string> {
  const key = fc.oneof(
    { arbitrary: names.length > 0 ? fc.constantFrom(...names) : fc.constant('limit'), weight: 4 },
    { arbitrary: fc.constantFrom('__proto__', '__proto__[polluted]', 'constructor[prototype][polluted]', 'limit[$ne]', 'email[$ne]', '$where', 'x', 'limit[]', 'a.b', '%24where'), weight: 1 },
  );
  return fc.array(fc.tuple(key, queryValue), { maxLength: 4 }).map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&'));
}

// ---------------------------------------------------------------- the database

/** Collections and fields a refused request may change by design. */
export const WRITTEN_BY_DESIGN = {
  /**
   * Each accepted API key use appends an entry, in batches up to a second later;
   * each refused sign-in counts in the sign-in throttle (that is its purpose);
   * every use of an identified key, refused or not, counts in its hourly rollup;
   * the webhook fan-out stores its progress up to a second after the events it followed.
   */
  collections: new Set(['apikeyusages', 'apikeyusagerollups', 'loginthrottles', 'webhookcursors']),
  /** System events a refusal raises (its purpose): a sign-in lock started, a key's first 429 of its hour. */
  eventTypes: new Set(['users.sign-in-locked', 'api-keys.rate-limited']),
  /** Each accepted API key use counts in the key's record (the hourly window, usageCount, lastUsedAt). */
  fields: { apikeys: ['usageCount', 'lastUsedAt', 'rateWindow'] } as Record<string, string[]>,
};

/** Per collection, each distinct document (as BSON, fields written by design left out) by its hash, with how many there are. */
export type Snapshot = Map<string, Map<string, { count: number; raw: Buffer }>>;

/**
 * Every document of every collection (but those written by design). Documents
 * are hashed as the raw BSON the driver receives, so a snapshot costs no
 * parsing: a long run's growing audit trail stays cheap to compare.
 */
export async function snapshotDatabase(db: Db): Promise<Snapshot> {
  const snapshot: Snapshot = new Map();
  const collections = await db.listCollections({}, { nameOnly: true }).toArray();
  for (const { name } of collections) {
    if (WRITTEN_BY_DESIGN.collections.has(name)) continue;
    const ignored = WRITTEN_BY_DESIGN.fields[name] ?? [];
    const docs = (await db.collection(name).find({}, { raw: true }).toArray()) as unknown as Buffer[];
    const byHash = new Map<string, { count: number; raw: Buffer }>();
    for (const raw of docs) {
      const kept = ignored.length === 0 ? raw : BSON.serialize(omit(BSON.deserialize(raw), ignored));
      const hash = createHash('sha1').update(kept).digest('hex');
      byHash.set(hash, { count: (byHash.get(hash)?.count ?? 0) + 1, raw });
    }
    snapshot.set(name, byHash);
  }
  return snapshot;
}

function omit(doc: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(doc).filter(([key]) => !fields.includes(key)));
}

/**
 * What changed between two snapshots, but the writes a refusal makes by
 * design: the audit trail appends a `failure` record for a call refused once
 * it reached its resolver (a rule, 404, 409), and the system events of
 * WRITTEN_BY_DESIGN.eventTypes. Empty when nothing else changed;
 * a changed document shows as one removed and one added.
 */
export function unexpectedChanges(before: Snapshot, after: Snapshot): string[] {
  const changes: string[] = [];
  const describe = (raw: Buffer) => EJSON.stringify(BSON.deserialize(raw)).slice(0, 300);
  for (const name of new Set([...before.keys(), ...after.keys()])) {
    const was = before.get(name) ?? new Map();
    const now = after.get(name) ?? new Map();
    for (const [hash, { count, raw }] of was) {
      if ((now.get(hash)?.count ?? 0) < count) changes.push(`${name}: removed or changed ${describe(raw)}`);
    }
    for (const [hash, { count, raw }] of now) {
      if (count <= (was.get(hash)?.count ?? 0)) continue;
      if (name === 'auditevents' && BSON.deserialize(raw).outcome === 'failure') continue;
      if (name === 'events' && WRITTEN_BY_DESIGN.eventTypes.has(BSON.deserialize(raw).type as string)) continue;
      changes.push(`${name}: added ${describe(raw)}`);
    }
  }
  return changes;
}

// ---------------------------------------------------------------- the process itself

/** The own keys of the built-in prototypes: a pollution of any of them shows here. */
export function prototypeFingerprint(): string {
  return [Object.prototype, Array.prototype, Function.prototype, String.prototype]
    .map((proto) => Reflect.ownKeys(proto).map(String).sort().join(','))
    .join('|');
}
