import { buildOperationNodeForField } from '@graphql-tools/utils';
import { getIntrospectionQuery, Kind, OperationTypeNode, parse, type DocumentNode, type GraphQLSchema } from 'graphql';
import { createSofa } from 'sofa-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentGuard, GRAPHQL_LIMITS } from '../../src/graphql/limits.js';
import { createRestExecute } from '../../src/http/use-sofa-rest.js';
import { buildServiceSchema } from '../../src/service.js';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

/**
 * The GraphQL limits (src/graphql/limits.ts): depth, aliases, directives,
 * tokens and cost, each just under its limit (answered) and just over it
 * (refused with 400, the code, the limit and the value), on /graphql and
 * through SOFA's execute, which runs the REST routes without Apollo.
 */
let app: TestApp;
let admin: TestUser;
let schema: GraphQLSchema;

beforeAll(async () => {
  app = await startTestApp();
  admin = await app.createUser({ tenantId: null });
  schema = await buildServiceSchema();
});
afterAll(() => app?.close());

/** `permissions` under `depth - 1` inline fragments: a selection `depth` levels deep. */
const nested = (depth: number): string =>
  depth === 1 ? 'permissions' : `... on Query { ${nested(depth - 1)} }`;
const aliases = (count: number) => Array.from({ length: count }, (_, i) => `a${i}: permissions`).join(' ');
const directives = (count: number) => 'permissions @include(if: true) '.repeat(count);
/**
 * `count` tokens: braces around inline fragments of 6 tokens (`... on Query { __typename }`) and
 * single-token fields. Not 1000 `__typename`s: graphql-js meters the work of comparing same-named fields.
 */
const tokens = (count: number) => {
  const fragments = Math.floor((count - 2) / 6);
  return `{ ${'... on Query { __typename } '.repeat(fragments)}${'__typename '.repeat(count - 2 - 6 * fragments)}}`;
};
/**
 * Four full pages of 100 meal menus (4 x 1003: 1, items 1 + 100 x 10, nextCursor 1), one of 98
 * (983), and one `__typename` (1) per unit of cost beyond 4995.
 */
const PAGE = 'items { id name description date mealType estimatedPortions tenant_id deletedAt createdAt updatedAt } nextCursor';
const costing = (cost: number) =>
  `{ ${[100, 100, 100, 100, 98].map((limit, i) => `p${i}: mealMenus(limit: ${limit}) { ${PAGE} }`).join(' ')} ${'__typename '.repeat(cost - 4995)}}`;

interface LimitCase {
  limit: keyof typeof GRAPHQL_LIMITS;
  under: string;
  over: string;
  code: 'GRAPHQL_VALIDATION_FAILED' | 'GRAPHQL_PARSE_FAILED';
  message: string;
  /** Also checked by the execute SOFA runs REST routes with (all but cost: a route's document is fixed). */
  rest: boolean;
}

const { depth, aliases: maxAliases, directives: maxDirectives, tokens: maxTokens, cost: maxCost } = GRAPHQL_LIMITS;
const cases: LimitCase[] = [
  { limit: 'depth', rest: true, under: `{ ${nested(depth)} }`, over: `{ ${nested(depth + 1)} }`, code: 'GRAPHQL_VALIDATION_FAILED', message: `Query depth limit of ${depth} exceeded, found ${depth + 1}.` },
  { limit: 'aliases', rest: true, under: `{ ${aliases(maxAliases)} }`, over: `{ ${aliases(maxAliases + 1)} }`, code: 'GRAPHQL_VALIDATION_FAILED', message: `Aliases limit of ${maxAliases} exceeded, found ${maxAliases + 1}.` },
  { limit: 'directives', rest: true, under: `{ ${directives(maxDirectives)} }`, over: `{ ${directives(maxDirectives + 1)} }`, code: 'GRAPHQL_VALIDATION_FAILED', message: `Directives limit of ${maxDirectives} exceeded, found ${maxDirectives + 1}.` },
  { limit: 'tokens', rest: true, under: tokens(maxTokens), over: tokens(maxTokens + 1), code: 'GRAPHQL_PARSE_FAILED', message: `more that ${maxTokens} tokens` },
  { limit: 'cost', rest: false, under: costing(maxCost), over: costing(maxCost + 1), code: 'GRAPHQL_VALIDATION_FAILED', message: `costs ${maxCost + 1}, over the limit of ${maxCost}` },
];

describe.each(cases)('the $limit limit', ({ under, over, code, message }) => {
  it('answers an operation just under it on /graphql', async () => {
    const response = await app.graphql(under, undefined, { token: admin.token });
    expect([response.status, response.body.errors]).toEqual([200, undefined]);
  });

  it('refuses one just over it on /graphql with 400, the code, the limit and the value', async () => {
    const response = await app.graphql(over, undefined, { token: admin.token });
    expect({ status: response.status, data: response.body.data, errors: response.body.errors }).toEqual({
      status: 400,
      data: undefined,
      errors: [expect.objectContaining({ message: expect.stringContaining(message), extensions: expect.objectContaining({ code }) })],
    });
  });
});

describe.each(cases.filter(({ rest }) => rest))('the $limit limit in the execute SOFA runs REST routes with', ({ under, over, code, message }) => {
  it('lets a document just under it run, and refuses one just over it the same way', async () => {
    const execute = createRestExecute(schema);
    // A document as SOFA has it: a tree, never parsed with the limits.
    const run = (text: string) => execute({ schema, document: parse(text), contextValue: {} });
    // It runs (without a caller its resolvers refuse, inside the result): no limit stopped it.
    await expect(run(under)).resolves.toHaveProperty('data');
    await expect(run(over)).rejects.toMatchObject({ message: expect.stringContaining(message), code, status: 400 });
  });
});

describe('introspection, as GraphiQL, Apollo Sandbox and codegen send it', () => {
  it('passes the limits with every option on (descriptions, deprecated inputs, repeatable directives, ...)', async () => {
    const query = getIntrospectionQuery({
      descriptions: true,
      specifiedByUrl: true,
      directiveIsRepeatable: true,
      schemaDescription: true,
      inputValueDeprecation: true,
      oneOf: true,
    });
    const response = await app.graphql(query);
    expect([response.status, response.body.errors, response.body.data?.__schema?.queryType?.name]).toEqual([200, undefined, 'Query']);
  });
});

describe('the token limit at parse time', () => {
  it('refuses a ~1 MB document of tens of thousands of aliases, without a credential, while parsing (400 GRAPHQL_PARSE_FAILED, saying tokens)', async () => {
    const query = `{ ${Array.from({ length: 50_000 }, (_, i) => `a${i}: __typename`).join(' ')} }`;
    // Under BODY_LIMIT (1mb by default), so it reaches the parser.
    expect([query.length > 900_000, query.length < app.config.bodyLimit.bytes - 100]).toEqual([true, true]);
    const response = await app.graphql(query);
    expect([response.status, response.body.errors?.[0]?.extensions?.code, response.body.errors?.[0]?.message]).toEqual([
      400,
      'GRAPHQL_PARSE_FAILED',
      `Syntax Error: Document contains more that ${maxTokens} tokens. Parsing aborted.`,
    ]);
  });
});

describe('an issue-11 query of 100 aliases of one cheap field', () => {
  it('is refused, where it was answered with 200 and data', async () => {
    const response = await app.graphql(`{ ${aliases(100)} }`, undefined, { token: admin.token });
    expect([response.status, response.body.data, response.body.errors?.[0]?.message]).toEqual([
      400,
      undefined,
      `Aliases limit of ${maxAliases} exceeded, found 100.`,
    ]);
  });
});

describe('batched requests', () => {
  it('are refused: a JSON array body to /graphql gets 400 saying batching is off', async () => {
    const response = await app.http('POST', '/graphql', { body: [{ query: '{ __typename }' }, { query: '{ __typename }' }] });
    expect([response.status, response.body.errors?.[0]?.extensions?.code, response.body.errors?.[0]?.message]).toEqual([
      400,
      'BAD_REQUEST',
      'Batched requests are not accepted: send one GraphQL operation per request (a JSON object, not an array)',
    ]);
  });
});

describe('field suggestions outside production', () => {
  it('are shown (production hides them: graphql-production.test.ts)', async () => {
    const response = await app.graphql('{ permission }', undefined, { token: admin.token });
    // Every close name is suggested ("session" too, since sessions came).
    expect(response.body.errors?.[0]?.message).toMatch(/Did you mean [^?]*"permissions"[^?]*\?/);
  });
});

describe('the operations SOFA generates for the REST routes', () => {
  /** Built as SOFA's router builds them (sofa-api router.js: createQueryRoute, createMutationRoute). */
  function generatedOperations(): { name: string; document: DocumentNode }[] {
    const sofa = createSofa({ schema, basePath: '/api/v1' });
    return [OperationTypeNode.QUERY, OperationTypeNode.MUTATION].flatMap((kind) => {
      const type = kind === OperationTypeNode.QUERY ? schema.getQueryType()! : schema.getMutationType()!;
      return Object.values(type.getFields()).map((field) => ({
        name: `${type.name}.${field.name}`,
        document: {
          kind: Kind.DOCUMENT,
          definitions: [
            buildOperationNodeForField({ kind, schema, field: field.name, models: sofa.models, ignore: sofa.ignore, circularReferenceDepth: sofa.depthLimit }),
          ],
        } as DocumentNode,
      }));
    });
  }

  it('all pass the limits', () => {
    const guard = createDocumentGuard(schema);
    const operations = generatedOperations();
    const refused = operations.flatMap(({ name, document }) => {
      try {
        guard.assertWithinLimits(document);
        return [];
      } catch (err) {
        return [`${name}: ${(err as Error).message}`];
      }
    });
    expect([operations.length > 20, refused]).toEqual([true, []]);
  });

  // No cost limit on REST: GET /api-keys selects every field SOFA knows, usageLogs (costed at 100 per key) among them.
  it.each(['/restaurant/meal-menus', '/api-keys', '/access-control/users', '/audit-events'])('answer %s at its largest page', async (path) => {
    const response = await app.rest('GET', `${path}?limit=100`, { token: admin.token });
    expect([response.status, Array.isArray(response.body.items)]).toEqual([200, true]);
  });
});
