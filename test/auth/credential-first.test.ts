import { createHash } from 'node:crypto';
import { ObjectId } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';
import { refusedTokens } from '../support/tokens.js';
import { apiCase, callOperation, runCases, SURFACES, type ApiCase, type Caller, type FieldErrorShape, type Operation } from '../support/surfaces.js';

/**
 * The credential before the arguments (contract "Credentials": no credential
 * or a bad one is 401 with `WWW-Authenticate: Bearer`, on both surfaces).
 * A call without a usable credential to an operation that is not open gets
 * that 401 even when its arguments do not read: it learns nothing of their
 * rules. With a valid credential the same call gets the 400 naming every
 * failing field, as before; login, open to anyone, keeps its 400 for all.
 */

let app: TestApp;
const client = () => app;
const TENANT = 'tenant-credential-first';
let admin: TestUser;
/** Callers without a usable credential, made in beforeAll. */
const unusable: Record<string, Caller> = {};
let validKey: { id: string; secret: string };

const ID = '0123456789abcdef01234567';

/** Operations whose arguments fail: each value is refused on reading (type, enum, required), most with a rule broken too. */
interface BadCall {
  name: string;
  operation: Operation;
  /** What the 400 names for a caller with a credential. */
  fieldErrors: FieldErrorShape[];
}

const badCalls: BadCall[] = [
  {
    name: 'menu create with a bad body (unknown meal type, empty name, negative portions)',
    operation: (() => {
      const body = { name: '', date: '2030-01-18', mealType: 'brunch', estimatedPortions: -1 };
      return {
        rest: { method: 'POST', path: '/restaurant/meal-menus', body },
        graphql: {
          query: `mutation($name: String!, $date: String!, $mealType: MealType!, $estimatedPortions: Int) {
            createMealMenu(name: $name, date: $date, mealType: $mealType, estimatedPortions: $estimatedPortions) { id } }`,
          variables: body,
        },
      };
    })(),
    fieldErrors: [
      { field: 'mealType', rule: 'type' },
      { field: 'name', rule: 'isLength' },
      { field: 'estimatedPortions', rule: 'min' },
    ],
  },
  {
    name: 'user create with an invalid email and no password',
    operation: (() => {
      const body = { email: 'not-an-email', firstName: 'Ann', createdBy: ID };
      return {
        rest: { method: 'POST', path: '/access-control/users', body },
        graphql: {
          query: `mutation($email: String!, $password: String!, $firstName: String!, $createdBy: String!) {
            createUser(email: $email, password: $password, firstName: $firstName, createdBy: $createdBy) { id } }`,
          variables: body,
        },
      };
    })(),
    fieldErrors: [
      { field: 'password', rule: 'required' },
      { field: 'email', rule: 'isEmail' },
    ],
  },
  {
    name: 'apiKey lookup with a malformed id and an ill-typed flag',
    operation: {
      rest: { method: 'GET', path: '/api-keys/not-an-id?includeUsageLogs=maybe' },
      graphql: {
        query: 'query($id: ID!, $logs: Boolean) { apiKey(id: $id, includeUsageLogs: $logs) { _id } }',
        variables: { id: 'not-an-id', logs: 'maybe' },
      },
    },
    fieldErrors: [
      { field: 'includeUsageLogs', rule: 'type' },
      { field: 'id', rule: 'isMongoId' },
    ],
  },
  {
    name: 'apiKey lookup with a malformed id',
    operation: {
      rest: { method: 'GET', path: '/api-keys/not-an-id' },
      graphql: { query: 'query($id: ID!) { apiKey(id: $id) { _id } }', variables: { id: 'not-an-id' } },
    },
    fieldErrors: [{ field: 'id', rule: 'isMongoId' }],
  },
  {
    name: 'apiKeys list with an ill-typed limit',
    operation: {
      rest: { method: 'GET', path: '/api-keys?limit=many' },
      graphql: { query: 'query($limit: Int) { apiKeys(limit: $limit) { nextCursor } }', variables: { limit: 'many' } },
    },
    fieldErrors: [{ field: 'limit', rule: 'type' }],
  },
];

const UNUSABLE = ['no credential', 'a malformed token', 'an expired token', 'a revoked API key'] as const;

const refusedCases: ApiCase[] = badCalls.flatMap((call) =>
  UNUSABLE.map((who) =>
    apiCase({
      name: `${call.name}, with ${who}: 401`,
      caller: () => unusable[who],
      operation: () => call.operation,
      expect: { status: 401, code: 'UNAUTHENTICATED', headers: { 'www-authenticate': 'Bearer' } },
    }),
  ),
);

const credentialedCases: ApiCase[] = badCalls.flatMap((call) => [
  apiCase({
    name: `${call.name}, with a valid token: 400 naming each field and rule`,
    caller: () => ({ token: admin.token }),
    operation: () => call.operation,
    expect: { status: 400, code: 'BAD_USER_INPUT', fieldErrors: call.fieldErrors },
  }),
]);

const badLogin: Operation = {
  rest: { method: 'POST', path: '/auth/login', body: { email: 42 } },
  graphql: { query: 'mutation($email: String!, $password: String!) { login(email: $email, password: $password) { accessToken } }', variables: { email: 42 } },
};

const openCases: ApiCase[] = (['no credential', 'a malformed token'] as const).map((who) =>
  apiCase({
    name: `login with a bad body, with ${who}: 400 (open to anyone)`,
    caller: () => unusable[who],
    operation: () => badLogin,
    expect: { status: 400, code: 'BAD_USER_INPUT', fieldErrors: [{ field: 'email', rule: 'type' }, { field: 'password', rule: 'required' }] },
  }),
);

beforeAll(async () => {
  app = await startTestApp();
  admin = await app.createUser({ tenantId: TENANT });
  const revoked = await makeKey();
  const revoke = await app.rest('PATCH', `/api-keys/${revoked.id}/revoke`, { token: admin.token });
  if (revoke.status !== 200) throw new Error(`revokeApiKey answered ${revoke.status}`);
  validKey = await makeKey();
  unusable['no credential'] = {};
  unusable['a malformed token'] = { token: 'not.a.token' };
  unusable['an expired token'] = { token: refusedTokens(app.config.jwt, { sub: admin.id, tenant: TENANT, roles: ['admin'], ver: 0 }).expired };
  unusable['a revoked API key'] = { token: revoked.secret };
});
afterAll(() => app?.close());

async function makeKey(): Promise<{ id: string; secret: string }> {
  const response = await app.rest('POST', '/api-keys', {
    token: admin.token,
    body: { name: `key ${new ObjectId().toHexString().slice(-6)}`, scopes: ['menus:write', 'api-keys:read'] },
  });
  if (response.status !== 201) throw new Error(`createApiKey answered ${response.status}: ${JSON.stringify(response.body)}`);
  return { id: response.body._id, secret: response.body.key };
}

runCases('without a usable credential, an operation that is not open is refused before its arguments are read', client, refusedCases);
runCases('with a valid credential, the same arguments get every failing field', client, credentialedCases);
runCases('login is open: its arguments are read for anyone', client, openCases);

describe('GraphQL documents an anonymous caller sends', () => {
  const anonymous = (query: string, variables?: Record<string, unknown>, opts = {}) => app.graphql(query, variables, opts);

  it('a variable the operation does not declare: 401 without a credential, 400 with one', async () => {
    const query = 'query { apiKeys(limit: $limit) { nextCursor } }';
    const [refused, read] = [await anonymous(query, { limit: 5 }), await anonymous(query, { limit: 5 }, { token: admin.token })];
    expect([refused.status, refused.headers.get('www-authenticate'), refused.body.errors[0].extensions.code]).toEqual([401, 'Bearer', 'UNAUTHENTICATED']);
    expect([read.status, read.body.errors[0].extensions.code]).toEqual([400, 'BAD_USER_INPUT']);
    expect(read.body.errors[0].extensions.errors).toContainEqual(expect.objectContaining({ field: 'limit' }));
  });

  it('a protected field next to login, or reached through a fragment: 401', async () => {
    const beside = await anonymous('mutation { login(email: 1, password: 2) { accessToken } deleteMealMenu(id: 5) { id } }');
    const throughFragment = await anonymous('query { ...Keys } fragment Keys on Query { apiKeys(limit: "x") { nextCursor } }');
    expect([beside.status, throughFragment.status]).toEqual([401, 401]);
  });

  it('every operation of the document counts, whichever operationName picks (validation reads them all)', async () => {
    const document = `mutation SignIn { login(email: 1, password: 2) { accessToken } }
      query Keys { apiKeys(limit: "x") { nextCursor } }`;
    const signIn = await app.http('POST', '/graphql', { body: { query: document, operationName: 'SignIn' } });
    const loginOnly = await app.http('POST', '/graphql', { body: { query: 'mutation SignIn { login(email: 1, password: 2) { accessToken } }', operationName: 'SignIn' } });
    expect([signIn.status, loginOnly.status, loginOnly.body.errors[0].extensions.code]).toEqual([401, 400, 'BAD_USER_INPUT']);
  });

  it('a fragment no operation spreads, or one on a root type, counts too (validation reads its arguments)', async () => {
    const onMutation = 'query { __typename } fragment F on Mutation { createApiKey(name: 5) { id } }';
    const unused = 'query { __typename } fragment F on ApiKey { id }';
    const inline = 'query { ... on Mutation { createApiKey(name: 5) { id } } }';
    const answers = [await anonymous(onMutation), await anonymous(unused), await anonymous(inline)];
    expect(answers.map((answer) => [answer.status, answer.headers.get('www-authenticate')])).toEqual([
      [401, 'Bearer'],
      [401, 'Bearer'],
      [401, 'Bearer'],
    ]);
    const read = await anonymous(onMutation, undefined, { token: admin.token });
    expect([read.status, read.body.errors[0].extensions.code]).toEqual([400, 'GRAPHQL_VALIDATION_FAILED']);
  });

  it('a GET with over 1,000 query parameters is read as Apollo reads it: 401', async () => {
    const padding = Array.from({ length: 1000 }, (_, i) => `k${i}=`).join('&');
    const query = encodeURIComponent('query($id: ID!) { apiKey(id: $id) { id } }');
    const answer = await app.http('GET', `/graphql?${padding}&query=${query}&variables=${encodeURIComponent('{"id":{}}')}`, {
      headers: { 'apollo-require-preflight': '1' },
    });
    expect([answer.status, answer.headers.get('www-authenticate')]).toEqual([401, 'Bearer']);
  });

  it('a persisted-query hash in place of a document runs nothing (automatic persisted queries are off)', async () => {
    const document = '{ apiKeys(limit: 1) { nextCursor } }';
    const sha256Hash = createHash('sha256').update(document).digest('hex');
    const extensions = { persistedQuery: { version: 1, sha256Hash } };
    const registered = await app.http('POST', '/graphql', { token: admin.token, body: { query: document, extensions } });
    const byHash = await app.http('POST', '/graphql', { body: { extensions } });
    expect([registered.body.data, byHash.status, byHash.body.data, byHash.body.errors?.[0]?.extensions?.code]).toEqual([
      undefined,
      400,
      undefined,
      'PERSISTED_QUERY_NOT_SUPPORTED',
    ]);
  });

  it('introspection and __typename need no credential (outside production)', async () => {
    const answer = await anonymous('{ __typename __schema { queryType { name } } }');
    expect([answer.status, answer.body.data?.__typename]).toEqual([200, 'Query']);
  });

  it('a document that does not parse, or asks only for fields the schema lacks, keeps its 400', async () => {
    const unparsable = await anonymous('query { apiKeys(');
    const unknown = await anonymous('query { noSuchField(limit: "x") }');
    expect([unparsable.status, unparsable.body.errors[0].extensions.code, unknown.status, unknown.body.errors[0].extensions.code]).toEqual([
      400,
      'GRAPHQL_PARSE_FAILED',
      400,
      'GRAPHQL_VALIDATION_FAILED',
    ]);
  });
});

describe('an API key is counted as before', () => {
  const storedUses = async (id: string) => (await app.db.collection('apikeys').findOne({ _id: new ObjectId(id) }))?.usageCount;

  it.each(SURFACES)('a valid key with bad arguments is one use, answered 400 (%s)', async (surface) => {
    const before = await storedUses(validKey.id);
    const outcome = await callOperation(client(), surface, badCalls[0].operation, { token: validKey.secret });
    expect([outcome.status, outcome.raw.headers.get('ratelimit-policy')]).toEqual([400, '"key";q=1000;w=3600']);
    let after = await storedUses(validKey.id);
    for (let attempt = 0; attempt < 40 && after === before; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      after = await storedUses(validKey.id);
    }
    expect(after).toBe((before ?? 0) + 1);
  });
});
