import { Collection } from 'mongodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { listReadTimeLimit } from '../../src/shared/pagination.js';
import { callOperation, SURFACES, type Operation } from '../support/surfaces.js';
import { admin, app, client, makeKey, TENANT, useApiKeysApp } from '../api-keys/api-key-fixtures.js';

/**
 * `includeTotal=true` (REST) / selecting `totalCount` (GraphQL) on every list:
 * the count of the whole list (the caller's tenant, the list's filter), and no
 * count at all otherwise (every count goes through the driver's countDocuments).
 */

useApiKeysApp();

interface List {
  /** The GraphQL root field. */
  field: string;
  rest: (query: string) => string;
  /** The GraphQL arguments, declared and passed. */
  args?: { declared: string; passed: string; variables: () => Record<string, unknown> };
  /** The expected total, read from the database. */
  expected: () => Promise<number>;
}

let keyId = '';
const count = (collection: string, filter: Record<string, unknown>) => app.db.collection(collection).countDocuments(filter);

const LISTS: List[] = [
  { field: 'apiKeys', rest: (q) => `/api-keys${q}`, expected: () => count('apikeys', { tenant_id: TENANT }) },
  {
    field: 'apiKeyUsageLogs',
    rest: (q) => `/api-keys/${keyId}/usage-logs${q}`,
    args: { declared: '$id: ID!', passed: 'id: $id', variables: () => ({ id: keyId }) },
    expected: () => count('apikeyusages', { apiKeyId: keyId }),
  },
  { field: 'users', rest: (q) => `/access-control/users${q}`, expected: () => count('users', { tenant_id: TENANT }) },
  // The built-in admin and member come first, then the tenant's own roles.
  { field: 'roles', rest: (q) => `/access-control/roles${q}`, expected: async () => 2 + (await count('roles', { tenant_id: TENANT })) },
  { field: 'mealMenus', rest: (q) => `/restaurant/meal-menus${q}`, expected: () => count('mealmenus', { tenant_id: TENANT, deletedAt: null }) },
  { field: 'auditEvents', rest: (q) => `/audit-events${q}`, expected: () => count('auditevents', { tenant_id: TENANT }) },
];

function listing(list: List, withTotal: boolean): Operation {
  const args = list.args;
  const declared = ['$limit: Int', ...(args ? [args.declared] : [])].join(', ');
  const passed = ['limit: $limit', ...(args ? [args.passed] : [])].join(', ');
  return {
    rest: { method: 'GET', path: list.rest(withTotal ? '?limit=1&includeTotal=true' : '?limit=1') },
    graphql: {
      query: `query(${declared}) { ${list.field}(${passed}) { nextCursor ${withTotal ? 'totalCount' : ''} } }`,
      variables: { limit: 1, ...args?.variables() },
    },
  };
}

const counts = () => vi.spyOn(Collection.prototype, 'countDocuments');

afterEach(() => vi.restoreAllMocks());

describe('totalCount on every list', () => {
  for (const surface of SURFACES) {
    for (const list of LISTS) {
      it(`${list.field} over ${surface}: the whole list's count when asked`, async () => {
        keyId ||= (await makeKey(admin)).id;
        const spy = counts();
        const outcome = await callOperation(client(), surface, listing(list, true), admin);
        expect(outcome.status).toBe(200);
        expect(spy).toHaveBeenCalledTimes(1);
        // Within the list read time limit, as a page's read.
        expect(spy.mock.calls[0]![1]).toMatchObject({ maxTimeMS: listReadTimeLimit() });
        spy.mockRestore();
        expect((outcome.data as { totalCount: number }).totalCount).toBe(await list.expected());
      });

      it(`${list.field} over ${surface}: no count and no totalCount when not asked`, async () => {
        keyId ||= (await makeKey(admin)).id;
        const spy = counts();
        const outcome = await callOperation(client(), surface, listing(list, false), admin);
        expect(outcome.status).toBe(200);
        expect(outcome.data).not.toHaveProperty('totalCount');
        expect(spy).not.toHaveBeenCalled();
      });
    }
  }
});
