import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import {
  buildSchema,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  parse,
  validate,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLNamedType,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHostileFixture, type HostileCaller, type HostileFixture } from '../support/hostile-fixture.js';
import {
  fromJsonSchema,
  hostileKey,
  hostileValue,
  mixed,
  objectOf,
  propertyParameters,
  propertyTimeout,
  resolvePlaceholders,
  restOperations,
  sometimes,
  type JsonSchema,
} from '../support/hostile.js';

/**
 * Hostile input over GraphQL, generated from the served schema: every query
 * and mutation with its arguments as variables of their declared types,
 * valid shapes mixed with operator objects, prototype keys, huge and deep
 * values, wrong types and bad unicode, from every kind of caller. Whatever
 * comes, no 5xx, every error carries `extensions.code`, and a refused
 * operation leaves the database as it was (runs: HOSTILE_RUNS).
 */

const schema = buildSchema(readFileSync('schema/schema.graphql', 'utf8'));
const openapi = JSON.parse(readFileSync('schema/openapi.json', 'utf8')) as JsonSchema;

/** The REST form's schema of each argument, by operation (same operationId): patterns and formats the GraphQL type does not carry. */
const restArgumentSchemas = new Map(
  restOperations(openapi).map((operation) => {
    const body = operation.body?.properties ?? {};
    const params = Object.fromEntries(operation.parameters.map((p) => [p.name, p.schema]));
    return [operation.operationId, { ...params, ...body } as Record<string, JsonSchema>];
  }),
);

function fromGraphQLType(type: GraphQLInputType, name?: string, restSchema?: JsonSchema): fc.Arbitrary<unknown> {
  if (restSchema) return fromJsonSchema(restSchema, openapi, name);
  if (isNonNullType(type)) return fromGraphQLType(type.ofType, name);
  if (isListType(type)) return mixed(fc.array(fromGraphQLType(type.ofType), { maxLength: 4 }));
  if (isEnumType(type)) return mixed(fc.constantFrom(...type.getValues().map((value) => value.name)));
  if (isInputObjectType(type)) {
    const fields = Object.values(type.getFields());
    const properties = Object.fromEntries(fields.map((field) => [field.name, fromGraphQLType(field.type, field.name)]));
    const required = fields.filter((field) => isNonNullType(field.type) && field.defaultValue === undefined).map((field) => field.name);
    return mixed(objectOf(properties, required));
  }
  switch (type.name) {
    case 'Int':
      return fromJsonSchema({ type: 'integer' }, openapi, name);
    case 'Float':
      return fromJsonSchema({ type: 'number' }, openapi, name);
    case 'Boolean':
      return fromJsonSchema({ type: 'boolean' }, openapi, name);
    case 'DateTimeISO':
      return fromJsonSchema({ type: 'string', format: 'date-time' }, openapi, name);
    case 'JSONObject':
      return fromJsonSchema({ type: 'object' }, openapi, name);
    default:
      return fromJsonSchema({ type: 'string' }, openapi, name);
  }
}

/** Leaf fields of `type`, and those of its objects two levels down (fields without required arguments). */
function selectionOf(type: GraphQLNamedType, depth = 0): string {
  if (isLeafType(type) || !isObjectType(type)) return '';
  const fields = Object.values(type.getFields()).filter((field) => field.args.every((arg) => !isNonNullType(arg.type)));
  const selected = fields.flatMap((field) => {
    const inner = getNamedType(field.type);
    if (isLeafType(inner)) return [field.name];
    if (depth >= 2) return [];
    const nested = selectionOf(inner, depth + 1);
    return nested ? [`${field.name} ${nested}`] : [];
  });
  return `{ ${selected.join(' ')} }`;
}

interface GraphqlOperation {
  kind: 'query' | 'mutation';
  field: GraphQLField<unknown, unknown>;
  /** The operation with every argument a variable of its declared type. */
  document: string;
}

function operationsOf(kind: 'query' | 'mutation'): GraphqlOperation[] {
  const root = kind === 'query' ? schema.getQueryType() : schema.getMutationType();
  return Object.values(root?.getFields() ?? {}).map((field) => {
    const declared = field.args.map((arg) => `$${arg.name}: ${String(arg.type)}`).join(', ');
    const passed = field.args.map((arg) => `${arg.name}: $${arg.name}`).join(', ');
    const document = `${kind} Hostile${declared ? `(${declared})` : ''} { ${field.name}${passed ? `(${passed})` : ''} ${selectionOf(getNamedType(field.type))} }`;
    return { kind, field, document };
  });
}

/**
 * The same operation with the values written inline as GraphQL literals
 * (coerced by another path than variables). A value GraphQL cannot write
 * (a `$` key) makes a syntax error, which must be a coded refusal as well.
 */
function inlineDocument({ kind, field }: GraphqlOperation, values: Record<string, unknown>): string {
  const passed = Object.entries(values)
    .map(([name, value]) => `${name}: ${literal(value, field.args.find((arg) => arg.name === name)?.type)}`)
    .join(', ');
  return `${kind} Hostile { ${field.name}${passed ? `(${passed})` : ''} ${selectionOf(getNamedType(field.type))} }`;
}

/** A GraphQL literal of `value`; where `type` is an enum and the value one of its names, written bare. */
function literal(value: unknown, type?: GraphQLInputType, depth = 0): string {
  if (depth > 40) return 'null';
  const named = type && getNamedType(type);
  if (value instanceof String) return JSON.stringify(String(value));
  if (typeof value === 'string' && named && isEnumType(named) && named.getValue(value)) return value;
  const unwrapped = type && isNonNullType(type) ? type.ofType : type;
  if (Array.isArray(value)) {
    const itemType = unwrapped && isListType(unwrapped) ? unwrapped.ofType : undefined;
    return `[${value.map((item) => literal(item, itemType, depth + 1)).join(', ')}]`;
  }
  if (value !== null && typeof value === 'object') {
    const fields = named && isInputObjectType(named) ? named.getFields() : {};
    return `{${Object.entries(value).map(([key, inner]) => `${key}: ${literal(inner, fields[key]?.type, depth + 1)}`).join(', ')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const operations = [...operationsOf('query'), ...operationsOf('mutation')];

const MAX_URL = 8_000;

interface GraphqlRequest {
  operation: GraphqlOperation;
  caller: HostileCaller;
  variables: unknown;
  /** Values written in the document instead of sent as variables. */
  inline: boolean;
  /** Queries may also come as GET with the query string. */
  viaGet: boolean;
}

function requestFor(operation: GraphqlOperation, caller: fc.Arbitrary<HostileCaller>): fc.Arbitrary<GraphqlRequest> {
  const restSchemas = restArgumentSchemas.get(operation.field.name) ?? {};
  const entries = operation.field.args.map((arg) => {
    const value = fromGraphQLType(arg.type, arg.name, restSchemas[arg.name]).map((v) => [arg.name, v] as const);
    const required = isNonNullType(arg.type) && arg.defaultValue === undefined;
    return fc.option(value, { freq: required ? 12 : 2, nil: undefined });
  });
  const extras = sometimes(fc.array(fc.tuple(hostileKey, hostileValue), { minLength: 1, maxLength: 2 }), 8);
  const wellFormed = fc
    .tuple(fc.tuple(...entries), extras)
    .map(([own, extra]) => Object.fromEntries([...own.filter((entry) => entry !== undefined), ...(extra ?? [])]));
  return fc.record({
    operation: fc.constant(operation),
    caller,
    variables: fc.oneof({ arbitrary: wellFormed, weight: 14 }, { arbitrary: hostileValue, weight: 1 }),
    inline: fc.boolean(),
    viaGet: operation.kind === 'query' ? fc.boolean() : fc.constant(false),
  });
}

describe('hostile input over GraphQL', () => {
  let fixture: HostileFixture;
  beforeAll(async () => {
    fixture = await startHostileFixture();
  });
  afterAll(() => fixture?.app.close());

  it('builds an operation of every query and mutation of the schema', () => {
    expect(operations.length).toBeGreaterThanOrEqual(20);
    for (const { document } of operations) expect(validate(schema, parse(document)).map(String)).toEqual([]);
  });

  it('answers every generated operation without a 5xx, with a code on every error, and a refusal changes nothing', async () => {
    const request = fc.constantFrom(...operations).chain((operation) => requestFor(operation, fixture.caller));
    await fc.assert(
      fc.asyncProperty(request, async ({ operation, caller, variables, inline, viaGet }) => {
        const values = resolvePlaceholders(variables, caller.placeholders);
        const asLiterals = inline && values !== null && typeof values === 'object' && !Array.isArray(values);
        const query = asLiterals ? inlineDocument(operation, values as Record<string, unknown>) : operation.document;
        const resolved = asLiterals ? {} : values;
        const search = new URLSearchParams({ query, variables: JSON.stringify(resolved) ?? 'null' });
        // Node itself answers a request line over 16 KB with a bare 431: huge variables go in a body.
        if (viaGet && search.toString().length < MAX_URL) {
          await fixture.attempt('graphql', 'GET', `/graphql?${search}`, { headers: { ...caller.headers, 'apollo-require-preflight': 'true' } });
        } else {
          await fixture.attempt('graphql', 'POST', '/graphql', { headers: caller.headers, body: { query, variables: resolved } });
        }
      }),
      propertyParameters(),
    );
  }, propertyTimeout());
});
