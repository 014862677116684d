import type { Document } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY_COLLECTION, ApiKeyModel } from '../../src/api-keys/index.js';
import { MEAL_MENU_COLLECTION, MealMenuModel } from '../../src/menus/index.js';
import { UserModel } from '../../src/users/index.js';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

/**
 * The list pages read one index in order (issue 12): menus, users and API
 * keys have `{tenant_id: 1, _id: 1}`, so the query a page sends (tenant
 * filter, sorted by `_id`, limit + 1; the next page adds `_id > cursor`) is
 * answered without a sort and stops after the page. Walking the pages over
 * REST and GraphQL still gives every live record once, in `_id` order.
 */

const TENANT = 'tenant-sorted-lists';
let app: TestApp;
let admin: TestUser;
let liveIds: string[];

beforeAll(async () => {
  app = await startTestApp();
  await Promise.all([MealMenuModel.init(), UserModel.init(), ApiKeyModel.init()]);
  admin = await app.createUser({ tenantId: TENANT });
  const created: string[] = [];
  for (let i = 0; i < 13; i++) {
    const res = await app.rest('POST', '/restaurant/meal-menus', {
      token: admin.token,
      body: { name: `Menu ${i}`, date: `2026-12-${String(1 + (i % 5)).padStart(2, '0')}`, mealType: 'lunch' },
    });
    expect(res.status).toBe(201);
    created.push(res.body.id);
  }
  // Two soft-deleted menus early in the order: the page's scan reads past them.
  for (const id of [created[1]!, created[3]!]) expect((await app.rest('DELETE', `/restaurant/meal-menus/${id}`, { token: admin.token })).status).toBe(200);
  liveIds = created.filter((id) => id !== created[1] && id !== created[3]).sort();
});

afterAll(async () => app?.close());

/** Stage names from the root down, and the index scan. */
function summary(explained: Document): Document {
  const names: string[] = [];
  let scan: Document | undefined;
  for (let stage: Document | undefined = explained.queryPlanner.winningPlan; stage; stage = stage.inputStage) {
    names.push(stage.stage);
    if (stage.stage === 'IXSCAN') scan = stage;
  }
  const s = explained.executionStats;
  return { stages: names, index: scan?.indexName, bounds: scan?.indexBounds, keys: s.totalKeysExamined, docs: s.totalDocsExamined, returned: s.nReturned };
}

const explain = (find: Document) => app.db.command({ explain: find, verbosity: 'executionStats' });

describe('list pages read {tenant_id, _id} in order', () => {
  it('REST pages of 4 walk every live menu once, in _id order', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await app.rest('GET', `/restaurant/meal-menus?limit=4${cursor ? `&cursor=${cursor}` : ''}`, { token: admin.token });
      expect(res.status).toBe(200);
      seen.push(...res.body.items.map((m: { id: string }) => m.id));
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(liveIds);
  });

  it('GraphQL pages of 5 walk every live menu once, in _id order', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await app.graphql('query($cursor: String) { mealMenus(limit: 5, cursor: $cursor) { items { id } nextCursor } }', { cursor }, { token: admin.token });
      expect(res.body.errors).toBeUndefined();
      seen.push(...res.body.data.mealMenus.items.map((m: { id: string }) => m.id));
      cursor = res.body.data.mealMenus.nextCursor;
    } while (cursor);
    expect(seen).toEqual(liveIds);
  });

  it("the menus page query uses the index's order and stops after the page", async () => {
    const first = summary(await explain({ find: MEAL_MENU_COLLECTION, filter: { tenant_id: TENANT, deletedAt: null }, sort: { _id: 1 }, limit: 5 }));
    // Five live menus lie within the first seven ids (two of those are deleted).
    expect(first).toEqual({
      stages: ['LIMIT', 'FETCH', 'IXSCAN'],
      index: 'tenant_id_1__id_1',
      bounds: { tenant_id: [`["${TENANT}", "${TENANT}"]`], _id: ['[MinKey, MaxKey]'] },
      keys: 7,
      docs: 7,
      returned: 5,
    });
  });

  it('the next page bounds the index on the tenant and after the cursor: no rescan of earlier pages', async () => {
    const after = (await app.db.collection(MEAL_MENU_COLLECTION).findOne({ name: 'Menu 8' }))!._id;
    const next = summary(
      await explain({ find: MEAL_MENU_COLLECTION, filter: { $and: [{ tenant_id: TENANT, deletedAt: null }, { _id: { $gt: after } }] }, sort: { _id: 1 }, limit: 5 }),
    );
    expect(next).toEqual({
      stages: ['LIMIT', 'FETCH', 'IXSCAN'],
      index: 'tenant_id_1__id_1',
      bounds: { tenant_id: [`["${TENANT}", "${TENANT}"]`], _id: [`(ObjectId('${after.toHexString()}'), ObjectId('ffffffffffffffffffffffff')]`] },
      keys: 4,
      docs: 4,
      returned: 4,
    });
  });

  it('the users and API keys page queries read their own tenant index in order', async () => {
    const users = summary(await explain({ find: 'users', filter: { tenant_id: TENANT }, sort: { _id: 1 }, limit: 21 }));
    expect(users).toMatchObject({ stages: ['LIMIT', 'FETCH', 'IXSCAN'], index: 'tenant_id_1__id_1', keys: 1, docs: 1 });
    const allKeys = summary(await explain({ find: API_KEY_COLLECTION, filter: { tenant_id: TENANT }, sort: { _id: 1 }, limit: 21 }));
    expect(allKeys).toMatchObject({ stages: ['LIMIT', 'FETCH', 'IXSCAN'], index: 'tenant_id_1__id_1' });
    const ownKeys = summary(await explain({ find: API_KEY_COLLECTION, filter: { tenant_id: TENANT, createdBy: admin.id }, sort: { _id: 1 }, limit: 21 }));
    expect(ownKeys).toMatchObject({ stages: ['LIMIT', 'FETCH', 'IXSCAN'], index: 'tenant_id_1_createdBy_1__id_1' });
  });
});
