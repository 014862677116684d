import { ObjectId } from 'mongodb';
import { parse, OperationTypeNode, Kind } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestResponse, type TestUser } from '../support/test-app.js';

/**
 * /graphql runs a document compiled by graphql-jit where it answers as
 * graphql-js does (src/graphql/compiled-execution.ts), from the second time
 * it sees the document on. Each case sends the document as given twice
 * (graphql-js, then graphql-jit unless a fallback rule keeps it on
 * graphql-js), and with `__schema { queryType { name } }` added at the
 * end of its root selection set, which keeps it on graphql-js (introspection
 * always runs there) and moves no location of the rest. Status, data (less
 * `__schema`) and errors (message, path, locations, extensions but the
 * request id) must be the same.
 */

let app: TestApp;
let admin: TestUser;
let menuId: string;
const TENANT = 'tenant-jit';
const BROKEN_TENANT = 'tenant-jit-broken';
let brokenAdmin: TestUser;
const MIXED_TENANT = 'tenant-jit-mixed';
let mixedAdmin: TestUser;

/** The document with an introspection field at the end of its operation's root selection set. */
function onGraphqlJs(query: string): string {
  const operation = parse(query).definitions.find((definition) => definition.kind === Kind.OPERATION_DEFINITION);
  const end = operation?.selectionSet.loc?.end;
  if (end === undefined || operation?.operation === OperationTypeNode.MUTATION) throw new Error('a query with a location');
  return `${query.slice(0, end - 1)} __schema { queryType { name } } ${query.slice(end - 1)}`;
}

interface Answer {
  status: number;
  data: unknown;
  errors: unknown;
}

function comparable(response: TestResponse): Answer {
  const { data, errors } = response.body as { data?: Record<string, unknown> | null; errors?: { extensions?: Record<string, unknown> }[] };
  const withoutSchema = data ? Object.fromEntries(Object.entries(data).filter(([key]) => key !== '__schema')) : data;
  const withoutRequestId = errors?.map(({ extensions, ...error }) => {
    const { requestId: _requestId, ...rest } = extensions ?? {};
    return { ...error, extensions: rest };
  });
  return { status: response.status, data: withoutSchema, errors: withoutRequestId };
}

/** The answers of /graphql the first time (graphql-js) and the second (compiled), each checked equal to graphql-js's own. */
async function bothWays(query: string, variables: Record<string, unknown> = {}, token = admin.token): Promise<Answer> {
  const reference = comparable(await app.graphql(onGraphqlJs(query), variables, { token }));
  const first = comparable(await app.graphql(query, variables, { token }));
  const compiled = comparable(await app.graphql(query, variables, { token }));
  expect(first).toEqual(reference);
  expect(compiled).toEqual(reference);
  return compiled;
}

/** A mutation sent twice, so that the second runs compiled (one mutation field) or shows graphql-js keeps it. */
async function mutateTwice(query: string, variables: Record<string, unknown>, token = admin.token): Promise<[TestResponse, TestResponse]> {
  return [await app.graphql(query, variables, { token }), await app.graphql(query, variables, { token })];
}

beforeAll(async () => {
  app = await startTestApp();
  [admin, brokenAdmin, mixedAdmin] = await Promise.all([
    app.createUser({ tenantId: TENANT, roles: ['admin'] }),
    app.createUser({ tenantId: BROKEN_TENANT, roles: ['admin'] }),
    app.createUser({ tenantId: MIXED_TENANT, roles: ['admin'] }),
  ]);
  const created = await app.graphql(
    `mutation { createMealMenu(name: "Lunch", date: "2026-01-02", mealType: lunch, estimatedPortions: 12,
      items: [{ name: "Soup", allergens: ["celery"] }, { name: "Bread", description: "rye" }]) { id } }`,
    {},
    { token: admin.token },
  );
  menuId = created.body.data.createMealMenu.id;
  // A stored menu the schema cannot answer: no name (String!), for null bubbling.
  const now = new Date();
  await app.db.collection('mealmenus').insertMany([
    { _id: new ObjectId(), name: 'Good', date: '2026-01-01', mealType: 'dinner', items: [], estimatedPortions: 1, tenant_id: BROKEN_TENANT, createdBy: brokenAdmin.id, updatedBy: brokenAdmin.id, createdAt: now, updatedAt: now, deletedAt: null },
    { _id: new ObjectId(), mealType: 'dinner', items: [{ allergens: [] }], estimatedPortions: 1, tenant_id: BROKEN_TENANT, createdBy: brokenAdmin.id, updatedBy: brokenAdmin.id, createdAt: now, updatedAt: now, deletedAt: null },
  ]);
});

afterAll(() => app.close());

describe('/graphql compiled by graphql-jit answers as graphql-js', () => {
  it('aliases, fragments, __typename and field order', async () => {
    const answer = await bothWays(
      `query($id: ID!) {
        second: mealMenu(id: $id) { n: name __typename ...Dishes }
        first: mealMenu(id: $id) { ... on MealMenu { mealType id } estimatedPortions }
      }
      fragment Dishes on MealMenu { items { name allergens description } }`,
      { id: menuId },
    );
    expect(answer.status).toBe(200);
    expect(answer.data).toEqual({
      second: { n: 'Lunch', __typename: 'MealMenu', items: [{ name: 'Soup', allergens: ['celery'], description: null }, { name: 'Bread', allergens: [], description: 'rye' }] },
      first: { mealType: 'lunch', id: menuId, estimatedPortions: 12 },
    });
    expect(Object.keys((answer.data as { first: object }).first)).toEqual(['mealType', 'id', 'estimatedPortions']);
  });

  const listWithDefaults = `query($limit: Int = 1, $deleted: Boolean = false, $withItems: Boolean = true, $meal: MealType = lunch) {
    mealMenus(limit: $limit, includeDeleted: $deleted, mealType: $meal) {
      items { id items @include(if: $withItems) { name } name @skip(if: $withItems) } nextCursor } }`;

  it.each([
    ['no variables: the defaults', {}],
    ['@include/@skip by a variable', { withItems: false }],
    ['a default overridden', { limit: 5, meal: 'lunch' }],
    ['null against a default in a directive', { withItems: null }],
    ['null for a nullable argument with a default', { meal: null }],
  ])('variables with defaults: %s', async (_name, variables) => {
    const answer = await bothWays(listWithDefaults, variables);
    expect(answer.data).not.toBeNull();
  });

  it('a non-null field failing bubbles to the nearest nullable parent, with its path and location', async () => {
    const answer = await bothWays(
      `query { mealMenus(limit: 10) {
        nextCursor
        items { name date } } }`,
      {},
      brokenAdmin.token,
    );
    expect(answer.data).toBeNull();
    expect(answer.errors).toEqual([
      expect.objectContaining({ message: 'Internal server error', path: ['mealMenus', 'items', 1, 'name'], locations: [{ line: 3, column: 17 }] }),
    ]);
  });

  it('errors beside a bubbling null: the same errors, in the same order', async () => {
    const now = new Date();
    const record = { date: '2026-01-01', mealType: 'dinner', items: [], estimatedPortions: 1, tenant_id: MIXED_TENANT, createdBy: mixedAdmin.id, updatedBy: mixedAdmin.id, createdAt: now, updatedAt: now, deletedAt: null };
    // In id order: one without a name (String!), then one whose description (nullable) is no String.
    // graphql-js stops at the first: the second one's error is never raised.
    await app.db.collection('mealmenus').insertMany([
      { ...record, _id: new ObjectId('000000000000000000000002'), name: 'Odd', description: { a: 1 } },
      { ...record, _id: new ObjectId('000000000000000000000001') },
      { ...record, _id: new ObjectId('000000000000000000000003'), name: 'Fine' },
    ]);
    const answer = await bothWays(`query { mealMenus(limit: 10) { items { d: description name } } }`, {}, mixedAdmin.token);
    expect(answer.errors).toEqual([expect.objectContaining({ path: ['mealMenus', 'items', 0, 'name'] })]);
  });

  it('a variable absent from an input literal leaves the field out, as graphql-js does', async () => {
    // (A query: the reference twin must run on graphql-js too, which a mutation with __schema cannot.)
    const answer = await bothWays(`query($date: String, $meal: MealType) { mealMenus(date: $date, mealType: $meal) { items { id } } }`, { meal: 'lunch' });
    expect(answer.data).toEqual({ mealMenus: { items: [{ id: menuId }] } });
  });

  it('a non-null argument given null through a variable with a default: the same refusal', async () => {
    const answer = await bothWays(`query($limit: Int = 5) { mealMenus(limit: $limit) { nextCursor } }`, { limit: null });
    expect(answer.status).toBe(400);
    // Refused before either engine runs, as the caller's input naming the argument (every-failing-field.test.ts).
    expect(answer.errors).toEqual([
      expect.objectContaining({ extensions: expect.objectContaining({ code: 'BAD_USER_INPUT', errors: [expect.objectContaining({ field: 'limit', rule: 'required' })] }) }),
    ]);
  });

  it('a variable of the wrong type, or one a custom scalar refuses, is the same 400 BAD_USER_INPUT', async () => {
    const query = `query($id: ID!, $limit: Int!) { mealMenu(id: $id) { id } mealMenus(limit: $limit) { nextCursor } }`;
    const answer = await bothWays(query, { id: menuId, limit: 'many' });
    expect(answer.status).toBe(400);
    expect(answer.errors).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: 'BAD_USER_INPUT' }) })]);
    const dateTimes = await mutateTwice(
      `mutation($at: DateTimeISO) { createApiKey(name: "k", scopes: ["menus:read"], expiresAt: $at) { _id } }`,
      { at: 'next tuesday' },
    );
    for (const dateTime of dateTimes) {
      expect([dateTime.status, dateTime.body.errors[0].extensions.code]).toEqual([400, 'BAD_USER_INPUT']);
      expect(dateTime.body.errors[0].extensions.errors).toEqual([expect.objectContaining({ field: 'expiresAt' })]);
    }
    const keys = await app.db.collection('apikeys').countDocuments({});
    expect(keys).toBe(0);
  });

  it('a resolver error keeps its code, path and location', async () => {
    const answer = await bothWays(`query($id: ID!) { mealMenu(id: $id) { id } }`, { id: new ObjectId().toHexString() });
    expect(answer.status).toBe(404);
    expect(answer.errors).toEqual([expect.objectContaining({ path: ['mealMenu'], locations: [{ line: 1, column: 19 }], extensions: expect.objectContaining({ code: 'NOT_FOUND' }) })]);
  });
});

describe('/graphql mutations compiled by graphql-jit', () => {
  it('answer with the changed record, with __typename beside the field too', async () => {
    // Several mutation fields are refused before anything runs (one-mutation.test.ts); `__typename` beside one is not.
    for (const [portions, query] of [
      [30, `mutation($id: ID!) { updateEstimatedPortions(id: $id, portions: 30) { estimatedPortions id } }`],
      [31, `mutation($id: ID!) { __typename updateEstimatedPortions(id: $id, portions: 31) { estimatedPortions id } }`],
    ] as const) {
      const responses = await mutateTwice(query, { id: menuId });
      for (const response of responses) {
        expect([response.status, response.body.data.updateEstimatedPortions]).toEqual([200, { estimatedPortions: portions, id: menuId }]);
      }
      const stored = await app.db.collection('mealmenus').findOne({ _id: new ObjectId(menuId) });
      expect(stored?.estimatedPortions).toBe(portions);
    }
  });

  it('refuse a non-null argument given null through a variable with a default, and change nothing', async () => {
    const before = await app.db.collection('mealmenus').findOne({ _id: new ObjectId(menuId) });
    const responses = await mutateTwice(
      `mutation($id: ID!, $portions: Int = 5) { updateEstimatedPortions(id: $id, portions: $portions) { id } }`,
      { id: menuId, portions: null },
    );
    for (const response of responses) {
      expect(response.status).toBe(400);
      expect(response.body.errors).toEqual([
        expect.objectContaining({ extensions: expect.objectContaining({ code: 'BAD_USER_INPUT', errors: [expect.objectContaining({ field: 'portions', rule: 'required' })] }) }),
      ]);
    }
    const after = await app.db.collection('mealmenus').findOne({ _id: new ObjectId(menuId) });
    expect(after).toEqual(before);
  });
});

describe('/graphql compiles a document the second time it sees it', () => {
  // What shows which engine ran: a one-field mutation keeps graphql-jit's errors (it cannot be asked again),
  // and on a stored record the schema cannot answer, graphql-jit completes every field while graphql-js
  // stops at the first non-null failure: `name` (String!) missing, then `description` not a String.
  const SECOND_SIGHT_TENANT = 'tenant-jit-second-sight';
  let owner: TestUser;
  let brokenId: string;

  beforeAll(async () => {
    owner = await app.createUser({ tenantId: SECOND_SIGHT_TENANT, roles: ['admin'] });
    const now = new Date();
    const inserted = await app.db.collection('mealmenus').insertOne({
      date: '2026-01-01', mealType: 'dinner', items: [], estimatedPortions: 1, description: { not: 'a string' },
      tenant_id: SECOND_SIGHT_TENANT, createdBy: owner.id, updatedBy: owner.id, createdAt: now, updatedAt: now, deletedAt: null,
    });
    brokenId = inserted.insertedId.toHexString();
  });

  const errorPaths = (response: TestResponse) => (response.body.errors as { path: string[] }[]).map((error) => error.path);
  const update = (alias: string) => `mutation($id: ID!) { ${alias}: updateEstimatedPortions(id: $id, portions: 2) { name d: description } }`;

  it('a document sent once runs on graphql-js; sent again, compiled', async () => {
    const [first, second] = await mutateTwice(update('once'), { id: brokenId }, owner.token);
    const third = await app.graphql(update('once'), { id: brokenId }, { token: owner.token });
    expect(errorPaths(first)).toEqual([['once', 'name']]);
    expect(errorPaths(second)).toEqual([['once', 'd'], ['once', 'name']]);
    expect(errorPaths(third)).toEqual(errorPaths(second));
  });

  it('another document text is seen for the first time, whatever was compiled before', async () => {
    const first = await app.graphql(update('other'), { id: brokenId }, { token: owner.token });
    expect(errorPaths(first)).toEqual([['other', 'name']]);
  });
});

describe('/graphql queries answered with several errors', () => {
  // graphql-jit's several errors are not taken as graphql-js's: the query is asked again of graphql-js.
  // Seen through the engine's count of reads of the menus' collection ($collStats latencyStats; the
  // global opcounters also count the event tail's and the workers' polls). Two stored dinners whose
  // description (nullable) is no String: two errors from either engine; no lunch: a clean answer.
  const SEVERAL_TENANT = 'tenant-jit-several';
  let reader: TestUser;
  const menuReads = async () => {
    const [stats] = await app.db.collection('mealmenus').aggregate<{ latencyStats: { reads: { ops: number } } }>([{ $collStats: { latencyStats: {} } }]).toArray();
    return stats!.latencyStats.reads.ops;
  };
  const descriptions = `query($meal: MealType) { mealMenus(limit: 10, mealType: $meal) { items { description } } }`;

  beforeAll(async () => {
    reader = await app.createUser({ tenantId: SEVERAL_TENANT, roles: ['admin'] });
    const now = new Date();
    const record = { date: '2026-01-01', mealType: 'dinner', items: [], estimatedPortions: 1, description: { not: 'a string' }, tenant_id: SEVERAL_TENANT, createdBy: reader.id, updatedBy: reader.id, createdAt: now, updatedAt: now, deletedAt: null };
    await app.db.collection('mealmenus').insertMany([{ ...record, name: 'One' }, { ...record, name: 'Two' }]);
  });

  async function findsFor(meal: string): Promise<{ finds: number; answer: Answer }> {
    const before = await menuReads();
    const answer = comparable(await app.graphql(descriptions, { meal }, { token: reader.token }));
    // The first count is itself a read of the collection, seen by the second.
    return { finds: (await menuReads()) - before - 1, answer };
  }

  it('run once on graphql-js alone after such an answer, until one has fewer errors', async () => {
    const reference = comparable(await app.graphql(onGraphqlJs(descriptions), { meal: 'dinner' }, { token: reader.token }));
    expect(reference.errors).toHaveLength(2);
    const first = await findsFor('dinner'); // graphql-js: first sight
    const compiled = await findsFor('dinner'); // graphql-jit, then graphql-js for its errors
    const after = await findsFor('dinner'); // graphql-js alone
    const again = await findsFor('dinner');
    for (const { answer } of [first, compiled, after, again]) expect(answer).toEqual(reference);
    expect(first.finds).toBe(1);
    expect(compiled.finds).toBe(2 * first.finds);
    expect([after.finds, again.finds]).toEqual([first.finds, first.finds]);
    // A clean answer (one execution either way) sends it back to graphql-jit: two executions again.
    const clean = await findsFor('lunch');
    expect(clean.answer).toEqual({ status: 200, data: { mealMenus: { items: [] } }, errors: undefined });
    expect(clean.finds).toBe(first.finds);
    expect((await findsFor('dinner')).finds).toBe(compiled.finds);
  });
});

describe('/graphql operation names of a compiled document', () => {
  // No operation name and "" are not the same request: "" names no operation, and is refused
  // however often the document ran (and was compiled) without one.
  const byName = (query: string, operationName?: string) =>
    app.http('POST', '/graphql', { token: admin.token, body: { query, ...(operationName === undefined ? {} : { operationName }) } });

  it('"" is refused with 400 before and after the unnamed document is compiled', async () => {
    const query = '{ mealMenus(limit: 1, mealType: breakfast) { items { id } } }';
    const refusals = [await byName(query, '')];
    for (let run = 0; run < 3; run += 1) {
      const unnamed = await byName(query);
      expect(unnamed.status).toBe(200);
      expect(unnamed.body).toEqual({ data: { mealMenus: { items: [] } } });
      refusals.push(await byName(query, ''), await byName(query, 'Other'));
    }
    for (const refusal of refusals) {
      expect(refusal.status).toBe(400);
      expect(refusal.body.errors[0].extensions.code).toBe('OPERATION_RESOLUTION_FAILURE');
      expect(refusal.body.errors[0].message).toMatch(/^Unknown operation named "(|Other)"\.$/);
    }
  });
});
