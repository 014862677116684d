import { describe, expect, it } from 'vitest';
import { apiCase, callOperation, runCases, type Surface } from '../support/surfaces.js';
import {
  client,
  listAdmin,
  listKeys,
  listMemberA,
  listMemberB,
  listReader,
  nobody,
  op,
  otherTenantKeyId,
  platform,
  useApiKeysApp,
} from './api-key-fixtures.js';

/** Listing API keys (`GET /api-keys`, `apiKeys`) and paging through them, over both surfaces. */

useApiKeysApp();

// ---------------------------------------------------------------- list

const idsOf = (page: { items: { _id: string }[] }) => page.items.map((key) => key._id);

runCases('listing API keys', client, [
  apiCase({
    name: 'shows a holder of api-keys:read every key of the tenant, oldest first',
    caller: () => listReader,
    operation: () => op.list({ limit: 100 }),
    expect: {
      status: 200,
      data: (page) => {
        expect(idsOf(page)).toEqual([listKeys.aActive, listKeys.aRevoked, listKeys.bExpired, listKeys.adminActive]);
        expect(page.nextCursor).toBeNull();
        expect(JSON.stringify(page)).not.toMatch(/secrets|hash|rateWindow/);
      },
    },
  }),
  apiCase({
    name: 'shows anyone else only the keys they created',
    caller: () => listMemberA,
    operation: () => op.list(),
    expect: { status: 200, data: (page) => expect(idsOf(page)).toEqual([listKeys.aActive, listKeys.aRevoked]) },
  }),
  apiCase({
    name: 'shows a tenant administrator every key of the tenant and none of another',
    caller: () => listAdmin,
    operation: () => op.list(),
    expect: {
      status: 200,
      data: (page) => {
        expect(idsOf(page)).toHaveLength(4);
        expect(idsOf(page)).not.toContain(otherTenantKeyId);
      },
    },
  }),
  apiCase({
    name: 'shows a platform administrator the keys of every tenant',
    caller: () => platform,
    operation: () => op.list({ limit: 100 }),
    expect: { status: 200, data: (page) => expect(idsOf(page)).toEqual(expect.arrayContaining([listKeys.adminActive, otherTenantKeyId])) },
  }),
  apiCase({
    name: 'filters by status active (neither revoked nor expired)',
    caller: () => listReader,
    operation: () => op.list({ status: 'active' }),
    expect: {
      status: 200,
      data: (page) => {
        expect(idsOf(page)).toEqual([listKeys.aActive, listKeys.adminActive]);
        expect(page.items.every((key: { status: string }) => key.status === 'active')).toBe(true);
      },
    },
  }),
  apiCase({
    name: 'filters by status revoked',
    caller: () => listReader,
    operation: () => op.list({ status: 'revoked' }),
    expect: { status: 200, data: (page) => expect(page.items.map((k: any) => [k._id, k.status])).toEqual([[listKeys.aRevoked, 'revoked']]) },
  }),
  apiCase({
    name: 'filters by status expired',
    caller: () => listReader,
    operation: () => op.list({ status: 'expired' }),
    expect: { status: 200, data: (page) => expect(page.items.map((k: any) => [k._id, k.status])).toEqual([[listKeys.bExpired, 'expired']]) },
  }),
  apiCase({
    name: 'combines the status filter with creator-only visibility',
    caller: () => listMemberB,
    operation: () => op.list({ status: 'active' }),
    expect: { status: 200, data: (page) => expect(page.items).toEqual([]) },
  }),
  apiCase({
    name: 'refuses an unknown status (400 naming status)',
    caller: () => listReader,
    operation: () => op.list({ status: 'paused' }),
    expect: { status: 400, fieldErrors: [{ field: 'status', rule: 'type' }] },
  }),
  apiCase({
    name: 'refuses a limit over 100 (400 naming limit)',
    caller: () => listReader,
    operation: () => op.list({ limit: 101 }),
    expect: { status: 400, fieldErrors: [{ field: 'limit', rule: 'max' }] },
  }),
  apiCase({
    name: 'refuses a request without a credential with 401',
    caller: () => nobody,
    operation: () => op.list(),
    expect: { status: 401, code: 'UNAUTHENTICATED' },
  }),
]);

describe('paging through API keys', () => {
  it.each(['rest', 'graphql'] as Surface[])('visits every visible key exactly once, one at a time, over %s', async (surface) => {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page += 1) {
      const outcome = await callOperation(client(), surface, op.list({ limit: 1, ...(cursor ? { cursor } : {}) }), listReader);
      const data = outcome.data as { items: { _id: string }[]; nextCursor: string | null };
      seen.push(...idsOf(data));
      if (!data.nextCursor) break;
      cursor = data.nextCursor;
    }
    expect(seen).toEqual([listKeys.aActive, listKeys.aRevoked, listKeys.bExpired, listKeys.adminActive]);
  });
});
