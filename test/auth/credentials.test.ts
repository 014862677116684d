import { afterAll, beforeAll, expect } from 'vitest';
import { apiCase, runCases, type Caller, type Operation } from '../support/surfaces.js';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';
import { refusedTokens, validToken } from '../support/tokens.js';

/**
 * Which credentials open a protected operation, on both surfaces. The probe is
 * the permission list: it needs an authenticated caller and no permission.
 */

let app: TestApp;
let member: TestUser;
let tokens: Record<string, string>;

beforeAll(async () => {
  app = await startTestApp();
  member = await app.createUser({ tenantId: 'tenant-credentials', roles: ['member'] });
  tokens = refusedTokens(app.config.jwt, { sub: member.id, tenant: member.tenantId, roles: member.roles });
});
afterAll(() => app?.close());

const permissions: Operation = {
  rest: { method: 'GET', path: '/access-control/permissions' },
  graphql: { query: 'query { permissions }' },
};

/** A 401 that tells the client how to authenticate. */
const unauthenticated = {
  status: 401,
  code: 'UNAUTHENTICATED',
  data: (_data: unknown, _fixture: unknown, outcome: { raw: { headers: unknown } }) => {
    expect((outcome.raw.headers as Headers).get('www-authenticate')).toBe('Bearer');
  },
};

function refusedCase(name: string, caller: () => Caller) {
  return apiCase({ name, caller, operation: () => permissions, expect: unauthenticated });
}

const REFUSED_TOKEN_NAMES = [
  'alg none',
  'signed with another secret',
  'expired',
  'not yet valid (nbf)',
  'wrong issuer',
  'wrong audience',
  'tampered payload',
  'without expiry',
  'signed with HS512',
  'not a JWT',
  'with a non-integer ver',
  'with a string ver',
  'with a null ver',
];

runCases('credentials', () => app, [
  apiCase({
    name: 'a valid access token opens a protected operation',
    caller: () => ({ token: member.token }),
    operation: () => permissions,
    expect: {
      status: 200,
      data: (data) => {
        expect(data).toContain('menus:write');
      },
    },
  }),
  refusedCase('no credential is refused with 401 and WWW-Authenticate: Bearer', () => ({})),
  ...REFUSED_TOKEN_NAMES.map((problem) => refusedCase(`a token ${problem} is refused with 401`, () => ({ token: tokens[problem] }))),
  refusedCase('a token of a user that does not exist is refused', () => ({
    token: validToken(app.config.jwt, { sub: '0123456789abcdef01234567', tenant: 'tenant-credentials', roles: ['admin'] }),
  })),
  refusedCase('a token naming another tenant than the user is refused', () => ({
    token: validToken(app.config.jwt, { sub: member.id, tenant: 'tenant-elsewhere', roles: ['member'] }),
  })),
  refusedCase('an Authorization header that is not Bearer is refused', () => ({
    headers: { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` },
  })),
  refusedCase('an unknown API key secret is refused', () => ({ token: 'ak_unknownkey_0000000000000000' })),
  refusedCase('an unknown X-API-Key is refused', () => ({ headers: { 'x-api-key': 'ak_unknownkey_0000000000000000' } })),
]);

/** Needs `menus:read`: the probe for a permission that changes after the token was issued. */
const readMenus: Operation = {
  rest: { method: 'GET', path: '/restaurant/meal-menus' },
  graphql: { query: 'query { mealMenus { items { id } } }' },
};

const users = () => app.db.collection('users');

runCases('credentials of a user changed after sign-in', () => app, [
  apiCase({
    name: 'a token of a user deleted since it was issued is refused with 401',
    arrange: async () => {
      const user = await app.createUser({ tenantId: 'tenant-credentials', roles: ['member'] });
      await users().deleteOne({ email: user.email });
      return user;
    },
    caller: (user) => ({ token: user.token }),
    operation: () => permissions,
    expect: unauthenticated,
  }),
  apiCase({
    name: 'a role taken away since the token was issued no longer grants its permissions (403)',
    arrange: async () => {
      const user = await app.createUser({ tenantId: 'tenant-credentials', roles: ['member'] });
      await users().updateOne({ email: user.email }, { $set: { roles: [] } });
      return user;
    },
    caller: (user) => ({ token: user.token }),
    operation: () => readMenus,
    expect: { status: 403, code: 'FORBIDDEN' },
  }),
]);
