import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCase, callOperation, runCases, type Operation } from '../api/surfaces.js';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

/** Sign-in (`POST /auth/login`, mutation `login`), every case over both surfaces. */

let app: TestApp;
let tenantUser: TestUser;
let platformAdmin: TestUser;
let twinA: TestUser;
const TWIN_EMAIL = 'twin@example.test';

beforeAll(async () => {
  app = await startTestApp();
  [tenantUser, platformAdmin, twinA] = await Promise.all([
    app.createUser({ tenantId: 'tenant-login', roles: ['member'], email: 'Mixed.Case@Example.test' }),
    app.createUser({ tenantId: null }),
    app.createUser({ tenantId: 'tenant-a', email: TWIN_EMAIL }),
    app.createUser({ tenantId: 'tenant-b', email: TWIN_EMAIL }),
  ]);
});
afterAll(() => app?.close());

const LOGIN = `mutation Login($email: String!, $password: String!, $tenantId: String) {
  login(email: $email, password: $password, tenantId: $tenantId) { accessToken tokenType expiresIn }
}`;

function login(body: Record<string, unknown>): Operation {
  return { rest: { method: 'POST', path: '/auth/login', body }, graphql: { query: LOGIN, variables: body } };
}

/** Whether the token works: the permission list needs an authenticated caller. */
async function tokenWorks(token: string): Promise<boolean> {
  const response = await app.rest('GET', '/access-control/permissions', { token });
  return response.status === 200;
}

const refusedSignIn = {
  status: 401,
  code: 'UNAUTHENTICATED',
  data: (_data: unknown, _f: unknown, outcome: { message?: string }) => {
    expect(outcome.message).toBe('Invalid email or password');
  },
};

runCases('signing in', () => app, [
  apiCase({
    name: 'answers a Bearer access token for the right email and password',
    caller: () => ({}),
    operation: () => login({ email: tenantUser.email, password: tenantUser.password }),
    expect: {
      status: 200,
      data: async (data) => {
        expect({ tokenType: data.tokenType, expiresIn: data.expiresIn, works: await tokenWorks(data.accessToken) }).toEqual({
          tokenType: 'Bearer',
          expiresIn: 3600,
          works: true,
        });
      },
    },
  }),
  apiCase({
    name: 'matches the email case-insensitively',
    caller: () => ({}),
    operation: () => login({ email: 'mixed.case@EXAMPLE.test', password: tenantUser.password }),
    expect: { status: 200 },
  }),
  apiCase({
    name: 'signs a platform administrator in without a tenant',
    caller: () => ({}),
    operation: () => login({ email: platformAdmin.email, password: platformAdmin.password }),
    expect: { status: 200 },
  }),
  apiCase({
    name: 'signs into the named tenant when the email exists in several',
    caller: () => ({}),
    operation: () => login({ email: TWIN_EMAIL, password: twinA.password, tenantId: 'tenant-a' }),
    expect: { status: 200 },
  }),
  apiCase({
    name: 'asks for tenantId when the email and password match in several tenants',
    caller: () => ({}),
    operation: () => login({ email: TWIN_EMAIL, password: twinA.password }),
    expect: { status: 400, code: 'BAD_USER_INPUT', fieldErrors: [{ field: 'tenantId', rule: 'required' }] },
  }),
  apiCase({
    name: 'refuses a wrong password with 401',
    caller: () => ({}),
    operation: () => login({ email: tenantUser.email, password: 'Wrong-passw0rd' }),
    expect: refusedSignIn,
  }),
  apiCase({
    name: 'refuses an unknown email with the same 401 as a wrong password',
    caller: () => ({}),
    operation: () => login({ email: 'nobody@example.test', password: 'Wrong-passw0rd' }),
    expect: refusedSignIn,
  }),
  apiCase({
    name: 'refuses a tenant the user does not belong to with the same 401',
    caller: () => ({}),
    operation: () => login({ email: tenantUser.email, password: tenantUser.password, tenantId: 'tenant-a' }),
    expect: refusedSignIn,
  }),
  apiCase({
    name: 'refuses a malformed email with 400 naming the field and rule',
    caller: () => ({}),
    operation: () => login({ email: 'not-an-email', password: 'whatever1A' }),
    expect: { status: 400, code: 'BAD_USER_INPUT', fieldErrors: [{ field: 'email', rule: 'isEmail' }] },
  }),
  apiCase({
    name: 'refuses a missing password with 400 naming the field',
    caller: () => ({}),
    operation: () => login({ email: tenantUser.email }),
    expect: { status: 400, code: 'BAD_USER_INPUT', fieldErrors: [{ field: 'password', rule: 'required' }] },
  }),
  apiCase({
    name: 'works with a stale credential in the request (login needs none)',
    caller: () => ({ token: 'not-a-valid-credential' }),
    operation: () => login({ email: tenantUser.email, password: tenantUser.password }),
    expect: { status: 200 },
  }),
]);

// Unknown fields exist only on REST (GraphQL refuses unknown arguments itself).
describe('signing in over REST', () => {
  it('refuses a body field that is not an argument of login, naming it', async () => {
    const outcome = await callOperation(app, 'rest', login({ email: tenantUser.email, password: tenantUser.password, rememberMe: true }));
    expect({ status: outcome.status, fields: outcome.fieldErrors.map((e) => `${e.field}:${e.rule}`) }).toEqual({
      status: 400,
      fields: ['rememberMe:unknown'],
    });
  });
});

// Aliases exist only on GraphQL: one request must not carry many password checks.
describe('signing in over GraphQL', () => {
  it('refuses a request that selects login more than once (aliases), checking no password', async () => {
    const attempt = (alias: string, password: string) =>
      `${alias}: login(email: "${tenantUser.email}", password: "${password}") { accessToken }`;
    const response = await app.graphql(`mutation { ${attempt('a', 'Guess-0ne')} ${attempt('b', tenantUser.password)} }`);
    expect([response.status, response.body.errors?.[0]?.extensions?.code, response.body.data]).toEqual([
      400,
      'GRAPHQL_VALIDATION_FAILED',
      undefined,
    ]);
  });

  it('refuses login aliased through fragments too', async () => {
    const response = await app.graphql(
      `mutation { ...A ...B } fragment A on Mutation { a: login(email: "x@example.test", password: "p") { accessToken } }
       fragment B on Mutation { b: login(email: "x@example.test", password: "q") { accessToken } }`,
    );
    expect([response.status, response.body.errors?.[0]?.extensions?.code]).toEqual([400, 'GRAPHQL_VALIDATION_FAILED']);
  });
});
