import jwt from 'jsonwebtoken';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as password from '../../src/auth/password.js';
import { apiCase, callOperation, runCases, type Operation } from '../support/surfaces.js';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

/** Sign-in (`POST /auth/login`, mutation `login`), every case over both surfaces. */

let app: TestApp;
let tenantUser: TestUser;
let platformAdmin: TestUser;
let twinA: TestUser;
let twinB: TestUser;
/** A platform administrator and a tenant user with the same email and the same password. */
let sharedAdmin: TestUser;
let sharedMember: TestUser;
const TWIN_EMAIL = 'twin@example.test';
const SHARED_EMAIL = 'shared@example.test';
const SHARED_PASSWORD = 'Sh4red-passw0rd';
/** An email present in five tenants. */
const FIVE_EMAIL = 'five@example.test';

/** Every password verification the service runs (the spy calls through). */
const verifications = vi.spyOn(password, 'verifyPassword');

beforeAll(async () => {
  // This file refuses one email six times and twenty sign-ins from one IP, past the
  // sign-in throttle's defaults (test/auth/login-throttle.test.ts covers it): limits out of reach here.
  app = await startTestApp({ env: { LOGIN_ACCOUNT_FAILURES: '1000', LOGIN_IP_FAILURES: '1000' } });
  [tenantUser, platformAdmin, twinA, twinB, sharedAdmin, sharedMember] = await Promise.all([
    app.createUser({ tenantId: 'tenant-login', roles: ['member'], email: 'Mixed.Case@Example.test' }),
    app.createUser({ tenantId: null }),
    app.createUser({ tenantId: 'tenant-a', email: TWIN_EMAIL }),
    app.createUser({ tenantId: 'tenant-b', email: TWIN_EMAIL }),
    app.createUser({ tenantId: null, email: SHARED_EMAIL, password: SHARED_PASSWORD }),
    app.createUser({ tenantId: 'tenant-shared', roles: ['member'], email: SHARED_EMAIL, password: SHARED_PASSWORD }),
    ...[1, 2, 3, 4, 5].map((n) => app.createUser({ tenantId: `tenant-five-${n}`, email: FIVE_EMAIL })),
  ]);
});
afterAll(() => {
  verifications.mockRestore();
  return app?.close();
});

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
  headers: { 'www-authenticate': 'Bearer' },
  data: (_data: unknown, _f: unknown, outcome: { message?: string }) => {
    expect(outcome.message).toBe('Invalid email or password');
  },
};

/** A successful sign-in as this user: the token names it (and its tenant) and works. */
function signedInAs(user: () => TestUser) {
  return {
    status: 200,
    data: async (data: { accessToken: string }) => {
      const claims = jwt.decode(data.accessToken) as jwt.JwtPayload;
      expect({ sub: claims.sub, tenant: claims.tenant, works: await tokenWorks(data.accessToken) }).toEqual({
        sub: user().id,
        tenant: user().tenantId,
        works: true,
      });
    },
  };
}

/**
 * A refused sign-in that verified exactly one password hash: the same work
 * whatever accounts exist. The counter is cleared by the case's `arrange`.
 */
const refusedAfterOneVerification = {
  ...refusedSignIn,
  db: () => {
    expect(verifications).toHaveBeenCalledTimes(1);
  },
};
const clearVerifications = () => {
  verifications.mockClear();
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
    name: 'refuses an email of several tenants without tenantId with the same 401, even with the right password',
    caller: () => ({}),
    operation: () => login({ email: TWIN_EMAIL, password: twinA.password }),
    expect: refusedSignIn,
  }),
  apiCase({
    name: 'signs the other account of a two-tenant email into its own tenant',
    caller: () => ({}),
    operation: () => login({ email: TWIN_EMAIL, password: twinB.password, tenantId: 'tenant-b' }),
    expect: signedInAs(() => twinB),
  }),
  apiCase({
    name: 'signs a platform administrator in without tenantId while a tenant user has the same email and password',
    caller: () => ({}),
    operation: () => login({ email: SHARED_EMAIL, password: SHARED_PASSWORD }),
    expect: signedInAs(() => sharedAdmin),
  }),
  apiCase({
    name: 'signs a platform administrator in with tenantId null while a tenant user has the same email and password',
    caller: () => ({}),
    operation: () => login({ email: SHARED_EMAIL, password: SHARED_PASSWORD, tenantId: null }),
    expect: signedInAs(() => sharedAdmin),
  }),
  apiCase({
    name: 'signs the tenant user sharing the email and password with a platform administrator into its tenant',
    caller: () => ({}),
    operation: () => login({ email: SHARED_EMAIL, password: SHARED_PASSWORD, tenantId: 'tenant-shared' }),
    expect: signedInAs(() => sharedMember),
  }),
  apiCase({
    name: 'refuses tenantId null for an email that has no platform account (null names the platform, not any tenant)',
    caller: () => ({}),
    operation: () => login({ email: tenantUser.email, password: tenantUser.password, tenantId: null }),
    expect: refusedSignIn,
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
    name: 'compares a named tenant exactly: another letter case is another tenant (the same 401)',
    caller: () => ({}),
    operation: () => login({ email: TWIN_EMAIL, password: twinA.password, tenantId: 'TENANT-A' }),
    expect: refusedSignIn,
  }),
  apiCase({
    name: 'refuses a tenant the user does not belong to with the same 401',
    caller: () => ({}),
    operation: () => login({ email: tenantUser.email, password: tenantUser.password, tenantId: 'tenant-a' }),
    expect: refusedSignIn,
  }),
  apiCase({
    name: 'verifies exactly one hash for an unknown email (wrong password)',
    arrange: clearVerifications,
    caller: () => ({}),
    operation: () => login({ email: 'nobody-at-all@example.test', password: 'Wrong-passw0rd' }),
    expect: refusedAfterOneVerification,
  }),
  apiCase({
    name: 'verifies exactly one hash for an email in one tenant (wrong password)',
    arrange: clearVerifications,
    caller: () => ({}),
    operation: () => login({ email: tenantUser.email, password: 'Wrong-passw0rd' }),
    expect: refusedAfterOneVerification,
  }),
  apiCase({
    name: 'verifies exactly one hash for an email in five tenants (wrong password)',
    arrange: clearVerifications,
    caller: () => ({}),
    operation: () => login({ email: FIVE_EMAIL, password: 'Wrong-passw0rd' }),
    expect: refusedAfterOneVerification,
  }),
  apiCase({
    name: 'verifies exactly one hash for an email in five tenants with its tenant named (wrong password)',
    arrange: clearVerifications,
    caller: () => ({}),
    operation: () => login({ email: FIVE_EMAIL, password: 'Wrong-passw0rd', tenantId: 'tenant-five-3' }),
    expect: refusedAfterOneVerification,
  }),
  apiCase({
    name: 'verifies exactly one hash for tenantId null without a platform account (wrong password)',
    arrange: clearVerifications,
    caller: () => ({}),
    operation: () => login({ email: FIVE_EMAIL, password: 'Wrong-passw0rd', tenantId: null }),
    expect: refusedAfterOneVerification,
  }),
  apiCase({
    name: 'verifies exactly one hash for a successful sign-in of a platform administrator sharing its email',
    arrange: clearVerifications,
    caller: () => ({}),
    operation: () => login({ email: SHARED_EMAIL, password: SHARED_PASSWORD }),
    expect: {
      status: 200,
      db: () => {
        expect(verifications).toHaveBeenCalledTimes(1);
      },
    },
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
