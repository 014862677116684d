import { ObjectId } from 'mongodb';
import { afterAll, beforeAll, expect } from 'vitest';
import { API_KEY_PREFIX, createActorResolver, type Actor, type CredentialStrategy } from '../../src/auth/index.js';
import { apiCase, runCases, type Operation, type Surface } from '../api/surfaces.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * A call made with an API key is recorded under the key, not its creator.
 * The api-keys area has not landed yet: a stand-in strategy accepts one
 * secret and answers the actor that area will build.
 */

let app: TestApp;
const client = () => app;

const TENANT = 'tenant-audited-keys';
const SECRET = `${API_KEY_PREFIX}stand-in-secret`;
const API_KEY_ID = new ObjectId().toHexString();
const CREATOR_ID = new ObjectId().toHexString();

const keyActor: Actor = {
  userId: CREATOR_ID,
  tenantId: TENANT,
  permissions: new Set(['menus:write']),
  roles: [],
  via: { kind: 'api-key', apiKeyId: API_KEY_ID, keyId: 'stand-in' },
};

const standInKeys: CredentialStrategy = {
  name: 'stand-in api keys',
  recognises: (credential) => credential.from === 'x-api-key',
  authenticate: async (credential) => {
    if (credential.value !== SECRET) throw new Error('unexpected secret');
    return keyActor;
  },
};

beforeAll(async () => {
  app = await startTestApp({ resolveActor: createActorResolver([standInKeys]) });
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
    arrange: (surface: Surface) => ({ requestId: `audit-key-${surface}-${(counter += 1)}` }),
    caller: (f) => ({ headers: { 'x-api-key': SECRET, 'x-request-id': f.requestId } }),
    operation: () => createMenu,
    expect: {
      status: 201,
      db: async (f, outcome) => {
        const records = await app.db.collection('auditevents').find({ requestId: f.requestId }).toArray();
        expect(records).toHaveLength(1);
        expect(records[0]).toMatchObject({
          actor: { type: 'apiKey', id: API_KEY_ID },
          tenant_id: TENANT,
          action: 'menus.create',
          target: { type: 'MealMenu', id: (outcome.data as { id: string }).id },
          outcome: 'success',
        });
      },
    },
  }),
]);
