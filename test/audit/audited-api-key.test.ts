import { afterAll, beforeAll, expect } from 'vitest';
import { apiCase, runCases, type Operation, type Surface } from '../support/surfaces.js';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

/** A call made with an API key is recorded under the key, not its creator. */

let app: TestApp;
const client = () => app;
const TENANT = 'tenant-audited-keys';
let creator: TestUser;

beforeAll(async () => {
  app = await startTestApp();
  creator = await app.createUser({ tenantId: TENANT, roles: ['admin'] });
});

afterAll(async () => {
  await app?.close();
});

const createMenu: Operation = {
  rest: { method: 'POST', path: '/restaurant/meal-menus', body: { name: 'Key lunch', date: '2026-07-01', mealType: 'lunch' } },
  graphql: {
    query: 'mutation($name: String!, $date: String!, $mealType: MealType!) { createMealMenu(name: $name, date: $date, mealType: $mealType) { id } }',
    variables: { name: 'Key lunch', date: '2026-07-01', mealType: 'lunch' },
  },
};

let counter = 0;

runCases('Recording a change made with an API key', client, [
  apiCase({
    name: 'names the key as the actor (type apiKey, the key id), in the key tenant',
    arrange: async (surface: Surface) => {
      const made = await app.rest('POST', '/api-keys', { token: creator.token, body: { name: 'audited', scopes: ['menus:write'] } });
      expect(made.status).toBe(201);
      return { requestId: `audit-key-${surface}-${(counter += 1)}`, keyId: made.body._id as string, secret: made.body.key as string };
    },
    caller: (f) => ({ headers: { 'x-api-key': f.secret, 'x-request-id': f.requestId } }),
    operation: () => createMenu,
    expect: {
      status: 201,
      db: async (f, outcome) => {
        const records = await app.db.collection('auditevents').find({ requestId: f.requestId }).toArray();
        expect(records).toHaveLength(1);
        expect(records[0]).toMatchObject({
          actor: { type: 'apiKey', id: f.keyId },
          tenant_id: TENANT,
          action: 'menus.create',
          target: { type: 'MealMenu', id: (outcome.data as { id: string }).id },
          outcome: 'success',
        });
      },
    },
  }),
]);
