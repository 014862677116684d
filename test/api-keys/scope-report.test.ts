import { expect } from 'vitest';
import { apiCase, runCases, type Operation } from '../support/surfaces.js';
import { admin, app, client, exactMessage, makeKey, member, otherMember, outsider, queryString, reader, useApiKeysApp, VIEW_REFUSAL } from './api-key-fixtures.js';

/** `apiKeyScopeReport` / GET /api-keys/{id}/scope-report: what a key's logged uses needed (from the resolvers' @Authorized), against its scopes. */

useApiKeysApp();

const report = (id: string, args: { days?: unknown } = {}): Operation => ({
  rest: { method: 'GET', path: `/api-keys/${id}/scope-report${queryString(args as Record<string, number>)}` },
  graphql: {
    query: `query($id: ID!, $days: Int) {
      apiKeyScopeReport(id: $id, days: $days) { days operations neededScopes unusedScopes missingScopes suggestedScopes } }`,
    variables: { id, ...args },
  },
});

/** Polls the log until `count` uses of the key are written (usage is written within a second). */
async function logged(id: string, count: number): Promise<void> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    if ((await app.db.collection('apikeyusages').countDocuments({ apiKeyId: id })) >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the uses of ${id} were not logged`);
}

/** A key of `creator` holding more than it uses: menus read over both surfaces, one create refused for the scope it lacks. */
async function usedKey(creator = admin) {
  const made = await makeKey(creator, { scopes: ['menus:read', 'api-keys:read', 'users:read'] });
  await app.rest('GET', '/restaurant/meal-menus?limit=1', { token: made.key });
  await app.graphql('query Menus { mealMenus(limit: 1) { items { id } } }', undefined, { token: made.key });
  await app.rest('POST', '/restaurant/meal-menus', { token: made.key, body: { name: 'x', date: '2026-05-05', mealType: 'lunch' } });
  await logged(made.id, 3);
  return made;
}

runCases("reporting an API key's scopes", client, [
  apiCase({
    name: 'names the scopes the uses needed, those never needed, those missing and the smallest set that would have served',
    arrange: () => usedKey(),
    caller: () => admin,
    operation: ({ id }) => report(id),
    expect: {
      status: 200,
      data: (answer) =>
        expect(answer).toEqual({
          days: 30,
          operations: ['Mutation.createMealMenu', 'Query.mealMenus'],
          neededScopes: ['menus:read', 'menus:write'],
          unusedScopes: ['api-keys:read', 'users:read'],
          missingScopes: ['menus:write'],
          suggestedScopes: ['menus:read'],
        }),
    },
  }),
  apiCase({
    name: 'reports nothing needed for a key never used',
    arrange: () => makeKey(member),
    caller: () => member,
    operation: ({ id }) => report(id, { days: 1 }),
    expect: {
      status: 200,
      data: (answer) => expect(answer).toEqual({ days: 1, operations: [], neededScopes: [], unusedScopes: ['menus:read'], missingScopes: [], suggestedScopes: [] }),
    },
  }),
  apiCase({
    name: 'is allowed to a holder of api-keys:read',
    arrange: () => makeKey(member),
    caller: () => reader,
    operation: ({ id }) => report(id),
    expect: { status: 200, data: (answer) => expect(answer.unusedScopes).toEqual(['menus:read']) },
  }),
  apiCase({
    name: 'refuses days beyond the rollup retention (400 naming days)',
    arrange: () => makeKey(member),
    caller: () => member,
    operation: ({ id }) => report(id, { days: 401 }),
    expect: { status: 400, code: 'BAD_USER_INPUT', fieldErrors: [{ field: 'days', rule: 'max' }] },
  }),
  apiCase({
    name: 'refuses 0 days (400 naming days)',
    arrange: () => makeKey(member),
    caller: () => member,
    operation: ({ id }) => report(id, { days: 0 }),
    expect: { status: 400, code: 'BAD_USER_INPUT', fieldErrors: [{ field: 'days', rule: 'min' }] },
  }),
  apiCase({
    name: 'refuses anyone else of the tenant with the 403 of viewing',
    arrange: () => makeKey(member),
    caller: () => otherMember,
    operation: ({ id }) => report(id),
    expect: { status: 403, code: 'FORBIDDEN', data: exactMessage(VIEW_REFUSAL) },
  }),
  apiCase({
    name: "answers 404 for another tenant's key",
    arrange: () => makeKey(member),
    caller: () => outsider,
    operation: ({ id }) => report(id),
    expect: { status: 404, code: 'NOT_FOUND' },
  }),
]);
