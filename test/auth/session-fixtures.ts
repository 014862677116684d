import jwt from 'jsonwebtoken';
import { ObjectId } from 'mongodb';
import { afterAll, beforeAll, expect } from 'vitest';
import { forgetSessionStates } from '../../src/auth/index.js';
import type { Operation } from '../support/surfaces.js';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

/**
 * Sign-in sessions (contract "Users: disabling, deleting, sessions"): the
 * callers, operations and helpers the session test files share.
 */

export let app: TestApp;
export const client = () => app;
export const TENANT = 'tenant-sessions';
export const OTHER_TENANT = 'tenant-sessions-elsewhere';

/** Starts the app for one file; sign-in throttling out of reach unless a file asks for it. */
export function useSessionsApp(env: Record<string, string> = { LOGIN_ACCOUNT_FAILURES: '1000', LOGIN_IP_FAILURES: '1000' }): void {
  beforeAll(async () => {
    app = await startTestApp({ env });
  });
  afterAll(() => app?.close());
}

export interface SignedIn {
  accessToken: string;
  refreshToken: string;
  /** The session id (the access token's `sid`). */
  sid: string;
}

/** A fresh sign-in over REST. */
export async function signIn(user: Pick<TestUser, 'email' | 'password' | 'tenantId'>, headers: Record<string, string> = {}): Promise<SignedIn> {
  const response = await app.rest('POST', '/auth/login', { body: { email: user.email, password: user.password, tenantId: user.tenantId }, headers });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  const { accessToken, refreshToken } = response.body as { accessToken: string; refreshToken: string };
  return { accessToken, refreshToken, sid: sidOf(accessToken) };
}

export const sidOf = (accessToken: string): string => (jwt.decode(accessToken) as jwt.JwtPayload).sid as string;

/** A refresh over REST; answers the raw response. */
export const refreshOverRest = (refreshToken: string) => app.rest('POST', '/auth/refresh', { body: { refreshToken } });

/** Whether the access token works on the next request (the session state cache forgotten, as another instance's would be after a second). */
export async function tokenWorks(token: string): Promise<boolean> {
  return (await app.rest('GET', '/access-control/permissions', { token })).status === 200;
}

export const sessions = () => app.db.collection('sessions');
export const storedSession = (sid: string) => sessions().findOne({ _id: new ObjectId(sid) });
export const auditOf = (action: string) => app.db.collection('auditevents').find({ action }).toArray();

/** Forgets the session states this process cached: what another instance sees a second after a change. */
export const asAnotherInstanceWouldSoon = () => forgetSessionStates();

export async function makeKey(creator: { token: string }, scopes: string[] = ['users:read', 'users:update']): Promise<string> {
  const response = await app.rest('POST', '/api-keys', { token: creator.token, body: { name: `key ${new ObjectId().toHexString()}`, scopes } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.key as string;
}

export const SESSION_FIELDS = 'id createdAt lastUsedAt updatedAt expiresAt ip userAgent current';

export const op = {
  login(body: Record<string, unknown>): Operation {
    return {
      rest: { method: 'POST', path: '/auth/login', body },
      graphql: {
        query: 'mutation($email: String!, $password: String!, $tenantId: String) { login(email: $email, password: $password, tenantId: $tenantId) { accessToken tokenType expiresIn refreshToken } }',
        variables: body,
      },
    };
  },
  refresh(refreshToken: unknown): Operation {
    return {
      rest: { method: 'POST', path: '/auth/refresh', body: { refreshToken } },
      graphql: {
        query: 'mutation($refreshToken: String!) { refreshAccessToken(refreshToken: $refreshToken) { accessToken tokenType expiresIn refreshToken } }',
        variables: { refreshToken },
      },
    };
  },
  logout(): Operation {
    return { rest: { method: 'POST', path: '/auth/logout' }, graphql: { query: 'mutation { logout { id endedAt } }' } };
  },
  mySessions(): Operation {
    return { rest: { method: 'GET', path: '/auth/sessions' }, graphql: { query: `query { mySessions { ${SESSION_FIELDS} } }` } };
  },
  session(id: string): Operation {
    return { rest: { method: 'GET', path: `/auth/sessions/${id}` }, graphql: { query: `query($id: ID!) { session(id: $id) { ${SESSION_FIELDS} } }`, variables: { id } } };
  },
  endSession(id: string): Operation {
    return { rest: { method: 'DELETE', path: `/auth/sessions/${id}` }, graphql: { query: 'mutation($id: ID!) { endSession(id: $id) { id endedAt } }', variables: { id } } };
  },
  userSessions(id: string): Operation {
    return {
      rest: { method: 'GET', path: `/access-control/users/${id}/sessions` },
      graphql: { query: `query($id: ID!) { userSessions(id: $id) { ${SESSION_FIELDS} } }`, variables: { id } },
    };
  },
  endUserSessions(id: string): Operation {
    return {
      rest: { method: 'DELETE', path: `/access-control/users/${id}/sessions` },
      graphql: { query: 'mutation($id: ID!) { endUserSessions(id: $id) { userId ended } }', variables: { id } },
    };
  },
  changePassword(body: Record<string, unknown>): Operation {
    return {
      rest: { method: 'POST', path: '/auth/password', body },
      graphql: {
        query: 'mutation($currentPassword: String!, $newPassword: String!) { changePassword(currentPassword: $currentPassword, newPassword: $newPassword) { accessToken tokenType expiresIn } }',
        variables: body,
      },
    };
  },
};
