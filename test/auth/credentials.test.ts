import { afterAll, beforeAll, expect } from 'vitest';
import { apiCase, runCases, type Caller, type Operation } from '../api/surfaces.js';
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
