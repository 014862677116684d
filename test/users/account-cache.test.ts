import { afterAll, beforeAll, expect } from 'vitest';
import { apiCase, runCases, type Operation } from '../support/surfaces.js';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

/**
 * Credentials reuse a user's account (roles, token version) for up to a
 * second instead of reading it on every request. The instance that changes
 * a user answers by the change at once: each case below first uses the
 * credential (so its account is held), then changes the user through the
 * API, then uses the same credential again on the same instance.
 * (Other instances: test/users/account-cache-instances.test.ts.)
 */

const TENANT = 'tenant-account-cache';
let app: TestApp;
let boss: TestUser;

beforeAll(async () => {
  app = await startTestApp();
  boss = await app.createUser({ tenantId: TENANT, roles: ['admin'] });
});
afterAll(() => app?.close());

/** Needs `menus:read`, which the built-in `member` role grants. */
const readMenus: Operation = {
  rest: { method: 'GET', path: '/restaurant/meal-menus' },
  graphql: { query: 'query { mealMenus { items { id } } }' },
};

/** Uses the token once (so the account is held), expecting it to work. */
async function useToken(token: string): Promise<void> {
  const response = await app.rest('GET', '/restaurant/meal-menus', { token });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
}

async function updateUser(by: TestUser, id: string, fields: Record<string, unknown>): Promise<void> {
  const response = await app.rest('PATCH', `/access-control/users/${id}`, { token: by.token, body: { ...fields, updatedBy: by.id } });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
}

async function createKey(creator: TestUser): Promise<string> {
  const response = await app.rest('POST', '/api-keys', { token: creator.token, body: { name: 'cached creator', scopes: ['menus:read'] } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.key;
}

runCases('a change to a user, on the instance that made it', () => app, [
  apiCase({
    name: 'a role taken away applies to the next request (403)',
    arrange: async () => {
      const cook = await app.createUser({ tenantId: TENANT, roles: ['member'] });
      await useToken(cook.token);
      await updateUser(boss, cook.id, { roles: [] });
      return cook;
    },
    caller: (cook) => ({ token: cook.token }),
    operation: () => readMenus,
    expect: { status: 403, code: 'FORBIDDEN' },
  }),
  apiCase({
    name: 'a role given applies to the next request',
    arrange: async () => {
      const cook = await app.createUser({ tenantId: TENANT, roles: [] });
      expect((await app.rest('GET', '/restaurant/meal-menus', { token: cook.token })).status).toBe(403);
      await updateUser(boss, cook.id, { roles: ['member'] });
      return cook;
    },
    caller: (cook) => ({ token: cook.token }),
    operation: () => readMenus,
    expect: { status: 200 },
  }),
  apiCase({
    name: "a password change refuses the user's older tokens on the next request (401)",
    arrange: async () => {
      const cook = await app.createUser({ tenantId: TENANT, roles: ['member'] });
      await useToken(cook.token);
      await updateUser(cook, cook.id, { password: 'N3w-Passw0rd!', currentPassword: cook.password });
      return cook;
    },
    caller: (cook) => ({ token: cook.token }),
    operation: () => readMenus,
    expect: {
      status: 401,
      code: 'UNAUTHENTICATED',
      data: (_data, _cook, outcome) => expect(outcome.message).toBe("Access token revoked: the password changed or the user's sessions were ended"),
    },
  }),
  apiCase({
    name: "an API key loses what its creator's role change took, on the next request (403)",
    arrange: async () => {
      const creator = await app.createUser({ tenantId: TENANT, roles: ['member'] });
      const key = await createKey(creator);
      await useToken(key);
      await updateUser(boss, creator.id, { roles: [] });
      return key;
    },
    caller: (key) => ({ token: key }),
    operation: () => readMenus,
    expect: { status: 403, code: 'FORBIDDEN' },
  }),
]);
