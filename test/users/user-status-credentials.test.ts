import type { Document } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCase, callOperation, runCases, SURFACES, type Caller, type Operation, type Surface } from '../support/surfaces.js';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

/**
 * What a disabled or deleted user's credentials get (contract "Users:
 * disabling, deleting, sessions"), on the request right after the change,
 * over both surfaces: access tokens, API keys acting for the user, sign-in
 * (a disabled account says so only after its right password; the throttle
 * keeps counting), a deleted user's email free for a new user, and the audit
 * records the three operations leave. Across instances:
 * test/users/user-status-instances.test.ts.
 */

let app: TestApp;
let admin: TestUser;
const TENANT = 'tenant-status-credentials';
const OTHER_TENANT = 'tenant-status-elsewhere';
/** Free failures per email before the throttle makes a sign-in wait (LOGIN_ACCOUNT_FAILURES). */
const ACCOUNT_FAILURES = 3;

beforeAll(async () => {
  // Many refused sign-ins from one IP here: only the email's counter is under test.
  app = await startTestApp({ env: { LOGIN_ACCOUNT_FAILURES: String(ACCOUNT_FAILURES), LOGIN_IP_FAILURES: '1000' } });
  admin = await app.createUser({ tenantId: TENANT, roles: ['admin'] });
});
afterAll(() => app?.close());

const client = () => app;
let serial = 0;
const unique = () => `${Date.now().toString(36)}${(serial += 1)}`;

async function call(method: string, path: string, token: string, body?: unknown) {
  const answer = await app.rest(method, path, { token, body });
  if (answer.status >= 300) throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

interface Fixture {
  user: TestUser;
  /** An API key of the user (scope users:read). */
  key: string;
}

/** A member of TENANT with a key, then disabled, deleted or left as is. */
async function member(state: 'active' | 'disabled' | 'deleted', tenantId = TENANT): Promise<Fixture> {
  const user = await app.createUser({ tenantId, roles: ['member'] });
  const { key } = await call('POST', '/api-keys', user.token, { name: `key ${unique()}`, scopes: ['users:read'] });
  const adminToken = tenantId === TENANT ? admin.token : (await app.createUser({ tenantId, roles: ['admin'] })).token;
  if (state === 'disabled') await call('PATCH', `/access-control/users/${user.id}/disable`, adminToken, { reason: 'left' });
  if (state === 'deleted') await call('DELETE', `/access-control/users/${user.id}`, adminToken);
  return { user, key };
}

const me: Operation = { rest: { method: 'GET', path: '/auth/me' }, graphql: { query: '{ me { id } }' } };

const LOGIN = `mutation($email: String!, $password: String!, $tenantId: String) {
  login(email: $email, password: $password, tenantId: $tenantId) { accessToken }
}`;
function login(body: Record<string, unknown>): Operation {
  return { rest: { method: 'POST', path: '/auth/login', body }, graphql: { query: LOGIN, variables: body } };
}
/** `tenantId` 'none': the sign-in names no tenant. */
const signIn = (user: TestUser, password = user.password, tenantId: string = TENANT) => login({ email: user.email, password, ...(tenantId !== 'none' ? { tenantId } : {}) });

const refused = (message: string) => ({
  status: 401,
  code: 'UNAUTHENTICATED',
  data: (_data: unknown, _fixture: unknown, outcome: { message?: string }) => expect(outcome.message).toBe(message),
});

// ---------------------------------------------------------------- the next request

runCases("a disabled user's credentials, on the next request", client, [
  apiCase({
    name: 'their access token is 401 "Account disabled"',
    arrange: () => member('disabled'),
    caller: ({ user }) => ({ token: user.token }),
    operation: () => me,
    expect: refused('Account disabled'),
  }),
  apiCase({
    name: 'their API key is 401 "API key creator is disabled"',
    arrange: () => member('disabled'),
    caller: ({ key }) => ({ token: key }),
    operation: () => me,
    expect: refused('API key creator is disabled'),
  }),
  apiCase({
    name: 'a sign-in with a wrong password is the ordinary 401 (the state does not leak)',
    arrange: () => member('disabled'),
    caller: () => ({}),
    operation: ({ user }) => signIn(user, 'Wrong-passw0rd'),
    expect: refused('Invalid email or password'),
  }),
  apiCase({
    name: 'a sign-in with the right password is 401 "Account disabled"',
    arrange: () => member('disabled'),
    caller: () => ({}),
    operation: ({ user }) => signIn(user),
    expect: refused('Account disabled'),
  }),
]);

/** A member disabled, then enabled again by the admin. */
async function reenabled(): Promise<Fixture> {
  const made = await member('disabled');
  await call('PATCH', `/access-control/users/${made.user.id}/enable`, admin.token);
  return made;
}

runCases('a user enabled again', client, [
  apiCase({
    name: 'signs in again, and the new token works',
    arrange: reenabled,
    caller: () => ({}),
    operation: ({ user }) => signIn(user),
    expect: {
      status: 200,
      db: async (_fixture, outcome) => {
        const { accessToken } = outcome.data as { accessToken: string };
        expect((await app.rest('GET', '/auth/me', { token: accessToken })).status).toBe(200);
      },
    },
  }),
  apiCase({
    name: 'keeps the tokens issued before the disable ended (401, saying the sessions were ended, not only a password change)',
    arrange: reenabled,
    caller: ({ user }) => ({ token: user.token }),
    operation: () => me,
    expect: refused("Access token revoked: the password changed or the user's sessions were ended"),
  }),
  apiCase({
    name: 'has their API keys act again (a disable revokes none)',
    arrange: reenabled,
    caller: ({ key }) => ({ token: key }),
    operation: () => me,
    expect: { status: 200, data: (answer, { user }) => expect(answer.id).toBe(user.id) },
  }),
]);

runCases("a deleted user's credentials, on the next request", client, [
  apiCase({
    name: 'their access token is 401 (no such user)',
    arrange: () => member('deleted'),
    caller: ({ user }) => ({ token: user.token }),
    operation: () => me,
    expect: refused('Invalid access token: unknown user'),
  }),
  apiCase({
    name: 'their API key is 401 "API key revoked"',
    arrange: () => member('deleted'),
    caller: ({ key }) => ({ token: key }),
    operation: () => me,
    expect: refused('API key revoked'),
  }),
  apiCase({
    name: 'a sign-in with the right password is the ordinary 401',
    arrange: () => member('deleted'),
    caller: () => ({}),
    operation: ({ user }) => signIn(user),
    expect: refused('Invalid email or password'),
  }),
  apiCase({
    name: 'a sign-in naming no tenant finds the one live account with the email (the deleted one does not count)',
    arrange: async () => {
      const deleted = await member('deleted');
      const live = await app.createUser({ tenantId: OTHER_TENANT, roles: ['member'], email: deleted.user.email, password: deleted.user.password });
      return { ...deleted, live };
    },
    caller: () => ({}),
    operation: ({ user }) => signIn(user, user.password, 'none'),
    expect: {
      status: 200,
      db: async ({ live }, outcome) => {
        const { accessToken } = outcome.data as { accessToken: string };
        expect((await app.rest('GET', '/auth/me', { token: accessToken })).body.id).toBe(live.id);
      },
    },
  }),
]);

// ---------------------------------------------------------------- the throttle

describe('sign-in of a disabled account and the throttle', () => {
  it.each(SURFACES)('over %s: the right password of a disabled account counts as a failure, never clears the count', async (surface) => {
    const { user } = await member('disabled');
    const statuses: number[] = [];
    for (let attempt = 0; attempt <= ACCOUNT_FAILURES; attempt += 1) {
      statuses.push((await callOperation(app, surface, signIn(user), {})).status);
    }
    // Were it a success, the email's counter would start over each time and never make it wait.
    expect(statuses).toEqual([...Array(ACCOUNT_FAILURES).fill(401), 429]);
  });
});

// ---------------------------------------------------------------- the email, free again

const createUser = (email: string): Operation => {
  const body = { email, password: 'Str0ng-Pass', firstName: 'Ada', createdBy: admin.id, updatedBy: admin.id };
  return {
    rest: { method: 'POST', path: '/access-control/users', body },
    graphql: {
      query: `mutation($email: String!, $password: String!, $firstName: String!, $createdBy: String!, $updatedBy: String!) {
        createUser(email: $email, password: $password, firstName: $firstName, createdBy: $createdBy, updatedBy: $updatedBy) { id email } }`,
      variables: body,
    },
  };
};

runCases("a deleted user's email", client, [
  apiCase({
    name: 'is taken by a new user of the tenant (201), in any letter case; the deleted record stays',
    arrange: () => member('deleted'),
    caller: () => ({ token: admin.token }),
    operation: ({ user }) => createUser(user.email.toUpperCase()),
    expect: {
      status: 201,
      db: async ({ user }) => {
        const records = await app.db.collection('users').find({ tenant_id: TENANT, email: { $in: [user.email, user.email.toUpperCase()] } }).toArray();
        expect(records.map((record) => record.status ?? 'active').sort()).toEqual(['active', 'deleted']);
      },
    },
  }),
  apiCase({
    name: 'is still refused (409) while a live user holds it',
    arrange: () => member('active'),
    caller: () => ({ token: admin.token }),
    operation: ({ user }) => createUser(user.email),
    expect: { status: 409, code: 'CONFLICT', fieldErrors: [{ field: 'email', rule: 'unique' }] },
  }),
]);

describe("two concurrent creates of a deleted user's email", () => {
  it.each(SURFACES)('over %s: exactly one 201, the other 409', async (surface) => {
    const { user } = await member('deleted');
    const outcomes = await Promise.all([0, 1].map(() => callOperation(app, surface, createUser(user.email), { token: admin.token })));
    const statuses = outcomes.map((outcome) => (surface === 'graphql' && outcome.status === 200 ? 201 : outcome.status));
    expect(statuses.sort()).toEqual([201, 409]);
    expect(await app.db.collection('users').countDocuments({ tenant_id: TENANT, email: user.email, deletedAt: null })).toBe(1);
  });
});

// ---------------------------------------------------------------- the audit trail

describe('the audit records of disable, enable and delete', () => {
  let seq = 0;
  async function audited(surface: Surface, operation: Operation, who: Caller): Promise<Document[]> {
    seq += 1;
    const requestId = `audit-status-${surface}-${seq}`;
    const outcome = await callOperation(app, surface, operation, { ...who, headers: { 'x-request-id': requestId } });
    expect(outcome.status, JSON.stringify(outcome.raw.body)).toBe(200);
    return app.db.collection('auditevents').find({ requestId }).toArray();
  }
  const asAdmin = () => ({ token: admin.token });

  it.each(SURFACES)('over %s: one success record each, naming the user and the arguments given, never the reason', async (surface) => {
    const { user } = await member('active');
    const disable: Operation = {
      rest: { method: 'PATCH', path: `/access-control/users/${user.id}/disable`, body: { reason: 'Confidential reason' } },
      graphql: { query: 'mutation($id: ID!, $reason: String) { disableUser(id: $id, reason: $reason) { id } }', variables: { id: user.id, reason: 'Confidential reason' } },
    };
    const enable: Operation = {
      rest: { method: 'PATCH', path: `/access-control/users/${user.id}/enable` },
      graphql: { query: 'mutation($id: ID!) { enableUser(id: $id) { id } }', variables: { id: user.id } },
    };
    const remove: Operation = {
      rest: { method: 'DELETE', path: `/access-control/users/${user.id}` },
      graphql: { query: 'mutation($id: ID!) { deleteUser(id: $id) { id revokedKeys } }', variables: { id: user.id } },
    };
    const records = [...(await audited(surface, disable, asAdmin())), ...(await audited(surface, enable, asAdmin())), ...(await audited(surface, remove, asAdmin()))];
    expect(records.map((record) => [record.action, record.target, record.tenant_id, record.outcome, record.changes, record.actor])).toEqual([
      ['users.disable', { type: 'User', id: user.id }, TENANT, 'success', ['reason'], { type: 'user', id: admin.id }],
      ['users.enable', { type: 'User', id: user.id }, TENANT, 'success', [], { type: 'user', id: admin.id }],
      ['users.delete', { type: 'User', id: user.id }, TENANT, 'success', [], { type: 'user', id: admin.id }],
    ]);
    expect(JSON.stringify(records)).not.toMatch(/Confidential reason|argon2|Passw0rd/);
  });

  it('a refused disable (oneself) leaves one failure record', async () => {
    const requestId = `audit-status-self-${unique()}`;
    const answer = await app.rest('PATCH', `/access-control/users/${admin.id}/disable`, { token: admin.token, headers: { 'x-request-id': requestId } });
    expect(answer.status).toBe(403);
    const records = await app.db.collection('auditevents').find({ requestId }).toArray();
    expect(records.map((record) => [record.action, record.target.id, record.outcome])).toEqual([['users.disable', admin.id, 'failure']]);
  });
});
