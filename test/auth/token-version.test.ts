import jwt from 'jsonwebtoken';
import { afterAll, beforeAll, expect } from 'vitest';
import { UserModel } from '../../src/users/index.js';
import { apiCase, runCases, type Operation } from '../support/surfaces.js';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

/**
 * A password change raises the user's tokenVersion; every access token
 * carries the version it was issued under (claim `ver`), and one of an older
 * version is refused with 401. The users area raises the version; here it is
 * raised directly in the database, as a password change does ($inc).
 */

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.close());

/** The probe: needs an authenticated caller and no permission. */
const permissions: Operation = {
  rest: { method: 'GET', path: '/access-control/permissions' },
  graphql: { query: 'query { permissions }' },
};

const raiseTokenVersion = (user: TestUser) => UserModel.updateOne({ _id: user.id }, { $inc: { tokenVersion: 1 } });

/** A fresh sign-in over REST; answers the access token. */
async function signIn(user: TestUser): Promise<string> {
  const response = await app.rest('POST', '/auth/login', { body: { email: user.email, password: user.password } });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.accessToken;
}

const revoked = {
  status: 401,
  code: 'UNAUTHENTICATED',
  headers: { 'www-authenticate': 'Bearer' },
  data: (_data: unknown, _fixture: unknown, outcome: { message?: string }) => {
    expect(outcome.message).toBe("Access token revoked: the password changed or the user's sessions were ended");
  },
};

const accepted = {
  status: 200,
  data: (data: unknown) => {
    expect(data).toContain('menus:read');
  },
};

runCases('tokens issued before a password change', () => app, [
  apiCase({
    name: 'a token of a new user carries version 0 and works',
    arrange: () => app.createUser({ tenantId: 'tenant-version', roles: ['member'] }),
    caller: (user) => ({ token: user.token }),
    operation: () => permissions,
    expect: {
      ...accepted,
      data: (data, user) => {
        accepted.data(data);
        expect((jwt.decode(user.token) as jwt.JwtPayload).ver).toBe(0);
      },
    },
  }),
  apiCase({
    name: 'a token issued before the version was raised is refused with 401 saying the password changed or the sessions were ended',
    arrange: async () => {
      const user = await app.createUser({ tenantId: 'tenant-version', roles: ['member'] });
      await raiseTokenVersion(user);
      return user;
    },
    caller: (user) => ({ token: user.token }),
    operation: () => permissions,
    expect: revoked,
  }),
  apiCase({
    name: 'a token from a sign-in after the version was raised works and carries the new version',
    arrange: async () => {
      const user = await app.createUser({ tenantId: 'tenant-version', roles: ['member'] });
      await raiseTokenVersion(user);
      return { token: await signIn(user) };
    },
    caller: ({ token }) => ({ token }),
    operation: () => permissions,
    expect: {
      ...accepted,
      data: (data, { token }) => {
        accepted.data(data);
        expect((jwt.decode(token) as jwt.JwtPayload).ver).toBe(1);
      },
    },
  }),
  apiCase({
    name: 'a token from a sign-in is refused once the version is raised after it',
    arrange: async () => {
      const user = await app.createUser({ tenantId: 'tenant-version', roles: ['member'] });
      await raiseTokenVersion(user);
      const token = await signIn(user);
      await raiseTokenVersion(user);
      return { token };
    },
    caller: ({ token }) => ({ token }),
    operation: () => permissions,
    expect: revoked,
  }),
  apiCase({
    name: 'a platform administrator\'s token issued before the version was raised is refused too',
    arrange: async () => {
      const user = await app.createUser({ tenantId: null });
      await raiseTokenVersion(user);
      return user;
    },
    caller: (user) => ({ token: user.token }),
    operation: () => permissions,
    expect: revoked,
  }),
]);
