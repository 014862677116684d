import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { getNamedType, isNonNullType, Kind, parse, type OperationDefinitionNode } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServiceSchema } from '../../src/service.js';
import { GRAPHQL_LIMITS } from '../../src/graphql/limits.js';
import { MAX_QUERY_COST, queryCost } from '../../src/graphql/query-cost.rule.js';
import { selectAllFields } from '../support/schema-operations.js';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

/**
 * GraphQL's cost limit: aliases repeating a list, or many cheap fields, cannot
 * turn one request into unbounded work. Refused with 400 GRAPHQL_VALIDATION_FAILED
 * naming the cost and the limit, before anything runs.
 */
let app: TestApp;
let admin: TestUser;

beforeAll(async () => {
  app = await startTestApp();
  admin = await app.createUser({ tenantId: null });
});
afterAll(() => app?.close());

/** 1 + (items: 1 + 100 x 10 fields) + (nextCursor: 1) = 1003 at limit 100. */
const PAGE_FIELDS = 'items { id name description date mealType estimatedPortions tenant_id deletedAt createdAt updatedAt } nextCursor';
const aliasedPages = (count: number, limit: string) =>
  Array.from({ length: count }, (_, i) => `p${i}: mealMenus(limit: ${limit}) { ${PAGE_FIELDS} }`).join('\n');

describe('the query cost limit', () => {
  it('refuses aliases repeating a full page, saying the cost and the limit (400 GRAPHQL_VALIDATION_FAILED)', async () => {
    const response = await app.graphql(`{ ${aliasedPages(5, '100')} }`, undefined, { token: admin.token });
    expect({ status: response.status, data: response.body.data, errors: response.body.errors }).toEqual({
      status: 400,
      data: undefined,
      errors: [
        expect.objectContaining({
          message: expect.stringContaining(`costs 5015, over the limit of ${MAX_QUERY_COST}`),
          extensions: expect.objectContaining({ code: 'GRAPHQL_VALIDATION_FAILED' }),
        }),
      ],
    });
  });

  it('counts a limit given as a variable at its value', async () => {
    const query = `query Pages($limit: Int) { ${aliasedPages(5, '$limit')} }`;
    const statuses = [];
    for (const limit of [100, 5]) statuses.push((await app.graphql(query, { limit }, { token: admin.token })).status);
    expect(statuses).toEqual([400, 200]);
  });

  it('costs a repeated document again with each request\'s limit', async () => {
    const query = `query Pages($limit: Int) { ${aliasedPages(5, '$limit')} }`;
    const statuses = [];
    for (const limit of [5, 100]) statuses.push((await app.graphql(query, { limit }, { token: admin.token })).status);
    expect(statuses).toEqual([200, 400]);
  });

  it('costs a repeated document again when @include brings an expensive selection in', async () => {
    const pages = Array.from({ length: 5 }, (_, i) => `p${i}: mealMenus(limit: 100) @include(if: $all) { ${PAGE_FIELDS} }`).join('\n');
    const query = `query Pages($all: Boolean!) { permissions ${pages} }`;
    const statuses = [];
    for (const all of [false, true]) statuses.push((await app.graphql(query, { all }, { token: admin.token })).status);
    expect(statuses).toEqual([200, 400]);
  });

  it('refuses thousands of aliases of a cheap field (the token limit stops them first, while parsing)', async () => {
    const fields = Array.from({ length: MAX_QUERY_COST + 1 }, (_, i) => `f${i}: permissions`).join(' ');
    const response = await app.graphql(`{ ${fields} }`, undefined, { token: admin.token });
    expect([response.status, response.body.errors?.[0]?.extensions?.code]).toEqual([400, 'GRAPHQL_PARSE_FAILED']);
  });

  it('lets three full pages through in one request', async () => {
    const response = await app.graphql(`{ ${aliasedPages(3, '100')} }`, undefined, { token: admin.token });
    expect([response.status, response.body.errors]).toEqual([200, undefined]);
  });

  it('lets three full pages of menus with every field selected through in one request (docs/api.md says so), not four', async () => {
    const everyField = selectAllFields(getNamedType((await buildServiceSchema()).getQueryType()!.getFields().mealMenus!.type), GRAPHQL_LIMITS.depth - 1);
    expect(everyField).toMatch(/items \{ id .*items \{ name description allergens \}.* \} nextCursor/);
    const pages = (count: number) => `{ ${Array.from({ length: count }, (_, i) => `p${i}: mealMenus(limit: 100) ${everyField}`).join(' ')} }`;
    const statuses = [];
    for (const count of [3, 4]) statuses.push((await app.graphql(pages(count), undefined, { token: admin.token })).status);
    expect(statuses).toEqual([200, 400]);
  });

  it("counts a page's nextCursor once, and its items' selection once per item", async () => {
    const schema = await buildServiceSchema();
    const costOf = (query: string) => {
      const document = parse(query);
      return queryCost({ schema, document, operation: document.definitions[0] as OperationDefinitionNode });
    };
    expect([
      costOf('{ mealMenus(limit: 100) { nextCursor } }'),
      costOf('{ mealMenus(limit: 100) { items { id name } nextCursor } }'),
      costOf('{ mealMenus(limit: 10) { ...F nextCursor } } fragment F on MealMenuPage { items { id name } }'),
    ]).toEqual([1 + 1, 1 + (1 + 100 * 2) + 1, 1 + (1 + 10 * 2) + 1]);
  });
});

/**
 * A frontend selecting every field of a list's type (issue 27): each list of
 * the schema at its largest page, every field at any depth the depth limit
 * allows, is accepted. A field the list never fills (an API key's usageLogs,
 * filled only by apiKey) costs there as the null it answers.
 */
describe('every list query with all its fields selected', () => {
  const lists = async () => {
    const schema = await buildServiceSchema();
    return Object.values(schema.getQueryType()!.getFields())
      .filter((field) => field.args.some((arg) => arg.name === 'limit'))
      .map((field) => {
        const required = field.args.filter((arg) => isNonNullType(arg.type) && arg.defaultValue === undefined);
        const definitions = required.map((arg) => `$${arg.name}: ${String(arg.type)}`).join(', ');
        const passed = ['limit: 100', ...required.map((arg) => `${arg.name}: $${arg.name}`)].join(', ');
        // The depth limit counts the root field: its selection has the rest.
        const selection = selectAllFields(getNamedType(field.type), GRAPHQL_LIMITS.depth - 1);
        return { name: field.name, query: `query ${field.name}${definitions ? `(${definitions})` : ''} { ${field.name}(${passed}) ${selection} }` };
      });
  };

  it('covers every list, API keys among them with usageLogs', async () => {
    const found = await lists();
    expect(found.map(({ name }) => name)).toEqual(expect.arrayContaining(['apiKeys', 'mealMenus', 'users', 'roles', 'auditEvents', 'apiKeyUsageLogs']));
    expect(found.find(({ name }) => name === 'apiKeys')!.query).toMatch(/usageLogs \{/);
  });

  it('is accepted on /graphql, each list at its largest page, and costs under the limit', async () => {
    const schema = await buildServiceSchema();
    const outcomes: [string, number, unknown, number | null][] = [];
    for (const { name, query } of await lists()) {
      const document = parse(query);
      const operation = document.definitions[0] as OperationDefinitionNode;
      const variables = { id: '0123456789abcdef01234567' };
      const response = await app.graphql(query, variables, { token: admin.token });
      const refusedAsDocument = (response.body.errors ?? []).filter((error: { extensions?: { code?: string } }) => error.extensions?.code === 'GRAPHQL_VALIDATION_FAILED');
      const cost = queryCost({ schema, document, operation, variables });
      outcomes.push([name, response.status === 400 ? 400 : 0, refusedAsDocument, cost !== null && cost <= MAX_QUERY_COST ? null : cost]);
    }
    expect(outcomes).toEqual(outcomes.map(([name]) => [name, 0, [], null]));
  });

  it('still prices usageLogs by its selection under apiKey, where it is filled', async () => {
    const schema = await buildServiceSchema();
    const query = '{ apiKey(id: "0123456789abcdef01234567", includeUsageLogs: true) { id usageLogs { at ip method path status } } }';
    const document = parse(query);
    const cost = queryCost({ schema, document, operation: document.definitions[0] as OperationDefinitionNode });
    expect(cost).toBe(1 + 1 + (1 + 100 * 5));
  });
});

describe('the client operations (examples/operations) at their largest page', () => {
  const operationsDir = path.resolve('examples/operations');
  const operations = readdirSync(operationsDir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.graphql'))
    .flatMap((file) => {
      const document = parse(readFileSync(path.join(operationsDir, file), 'utf8'));
      return document.definitions
        .filter((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION)
        .map((operation) => ({ name: operation.name?.value ?? file, document, operation }));
    });

  /** A value for every variable the operations declare; `limit` at its maximum. */
  const variables = {
    limit: 100,
    email: 'someone@example.com',
    password: 'Passw0rd!',
    id: '0123456789abcdef01234567',
    name: 'Lunch',
    date: '2026-01-02',
    mealType: 'lunch',
    portions: 10,
    firstName: 'Ada',
    createdBy: '0123456789abcdef01234567',
    updatedBy: '0123456789abcdef01234567',
    permissions: ['menus:read'],
    schemaName: 'User',
    scopes: ['menus:read'],
  };

  it.each(operations)('$name costs under half the limit', async ({ document, operation }) => {
    const cost = queryCost({ schema: await buildServiceSchema(), document, operation, variables });
    expect(cost).toBeLessThan(MAX_QUERY_COST / 2);
  });
});
