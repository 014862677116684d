import { ObjectId, type Document } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';
import { callOperation, SURFACES, type Operation } from '../support/surfaces.js';

/**
 * A list answer is bounded in bytes (issue 27, item 10): menus are accepted
 * up to the body limit each (some 730 KB with every field at its largest), so
 * a page of 100 was some 74 MB and aliases of the list multiplied it. A page
 * ends early, with its nextCursor, once its request's PAGE_BYTE_BUDGET is
 * spent; every page holds at least one record, and following the cursors
 * reaches every record once. Aliases in one GraphQL request share the budget.
 */

const TENANT = 'tenant-page-bytes';
const BUDGET = 2 * 1024 * 1024;
const LARGE_MENUS = 12;
/** A tenant of two menus of 360 dishes each, each menu over the budget. */
const HUGE_TENANT = 'tenant-page-bytes-huge';
let app: TestApp;
let admin: TestUser;
let seeded: string[];

/** A menu with every field at its largest (the inputs' limits), about 730 KB, planted as stored. */
function largeMenu(index: number): Document {
  const text = (length: number) => `${index}`.padEnd(length, 'x');
  const now = new Date();
  return {
    _id: new ObjectId(),
    name: text(200),
    description: text(2000),
    date: '2026-03-03',
    mealType: 'lunch',
    items: Array.from({ length: 100 }, () => ({ name: text(200), description: text(2000), allergens: Array.from({ length: 50 }, () => text(100)) })),
    estimatedPortions: index,
    tenant_id: TENANT,
    createdBy: admin.id,
    updatedBy: admin.id,
    deletedAt: null,
    createdAt: now,
    updatedAt: now,
  };
}

const EVERY_FIELD = 'id name description date mealType items { name description allergens } estimatedPortions tenant_id createdBy updatedBy deletedAt createdAt updatedAt';

function page(cursor: string | null): Operation {
  return {
    rest: { method: 'GET', path: `/restaurant/meal-menus?limit=100${cursor ? `&cursor=${cursor}` : ''}` },
    graphql: {
      query: `query($cursor: String) { mealMenus(limit: 100, cursor: $cursor) { items { ${EVERY_FIELD} } nextCursor } }`,
      variables: { cursor },
    },
  };
}

beforeAll(async () => {
  app = await startTestApp({ env: { PAGE_BYTE_BUDGET: String(BUDGET) } });
  admin = await app.createUser({ tenantId: TENANT, roles: ['admin'] });
  const menus = Array.from({ length: LARGE_MENUS }, (_, i) => largeMenu(i));
  await app.db.collection('mealmenus').insertMany(menus);
  seeded = menus.map((menu) => String(menu._id));
  const huge = [1, 2].map((i) => largeMenu(i)).map((menu) => ({ ...menu, tenant_id: HUGE_TENANT, items: [...menu.items, ...menu.items, ...menu.items, ...menu.items.slice(0, 60)] }));
  await app.db.collection('mealmenus').insertMany(huge);
});
afterAll(() => app?.close());

describe.each(SURFACES)('a page of large menus over %s', (surface) => {
  it('ends early within the byte budget, with a nextCursor, and the cursors reach every menu once, in order', async () => {
    const pages: { count: number; bytes: number; nextCursor: string | null }[] = [];
    const reached: string[] = [];
    let cursor: string | null = null;
    do {
      const outcome = await callOperation(app, surface, page(cursor), { token: admin.token });
      expect(outcome.status, JSON.stringify(outcome.raw.body).slice(0, 300)).toBe(200);
      const { items, nextCursor } = outcome.data as { items: { id: string }[]; nextCursor: string | null };
      pages.push({ count: items.length, bytes: Buffer.byteLength(JSON.stringify(items)), nextCursor });
      reached.push(...items.map((item) => item.id));
      cursor = nextCursor;
    } while (cursor && pages.length <= LARGE_MENUS);
    expect(reached).toEqual(seeded);
    // Two large menus fit 2 MiB, a third would not: six pages, each within the budget.
    expect(pages.map(({ count }) => count)).toEqual([2, 2, 2, 2, 2, 2]);
    for (const { bytes } of pages) expect(bytes).toBeLessThan(BUDGET * 1.05);
    expect(pages.at(-1)!.nextCursor).toBeNull();
  });

  it('still answers one record when that record alone is over the budget', async () => {
    // Imported records are bounded only by MongoDB's 16 MiB: this one is some 2.6 MB.
    const owner = await app.createUser({ tenantId: HUGE_TENANT, roles: ['admin'] });
    const outcome = await callOperation(app, surface, page(null), { token: owner.token });
    const { items, nextCursor } = outcome.data as { items: unknown[]; nextCursor: string | null };
    expect([outcome.status, items.length, typeof nextCursor]).toEqual([200, 1, 'string']);
  });
});

describe('aliases of the same list in one GraphQL request', () => {
  it('share one budget: the answer stays within it, each alias with a cursor to go on from', async () => {
    const aliases = ['a', 'b', 'c'].map((alias) => `${alias}: mealMenus(limit: 100) { items { ${EVERY_FIELD} } nextCursor }`).join(' ');
    const response = await app.graphql(`{ ${aliases} }`, undefined, { token: admin.token });
    expect(response.status, JSON.stringify(response.body).slice(0, 600)).toBe(200);
    const pages = Object.values(response.body.data as Record<string, { items: unknown[]; nextCursor: string | null }>);
    expect(pages.map(({ nextCursor }) => typeof nextCursor)).toEqual(['string', 'string', 'string']);
    // Two records fill the budget; each alias holds at least one.
    expect(pages.reduce((sum, { items }) => sum + items.length, 0)).toBeLessThanOrEqual(4);
    const recordBytes = Buffer.byteLength(JSON.stringify((pages[0]!.items as unknown[])[0]));
    expect(Buffer.byteLength(JSON.stringify(response.body))).toBeLessThan(BUDGET + 3 * recordBytes);
  });
});
