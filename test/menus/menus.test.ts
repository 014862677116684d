import { ObjectId, type Document } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { apiCase, callOperation, runCases, type ApiCase, type Caller, type Operation, type Surface } from '../support/surfaces.js';

/**
 * Restaurant meal menus, every route and every refusal, over REST and GraphQL.
 * Each mutation case checks the stored record afterwards through the native
 * driver (`mealmenus` collection), not through the API.
 */

let app: TestApp;
const client = () => app;

/** Callers, created once. Tenants are plain ids. */
const TENANT = 'tenant-menus';
const OTHER_TENANT = 'tenant-elsewhere';
const LIST_TENANT = 'tenant-menu-lists';
let admin: Caller & { id: string }; // TENANT, built-in admin role (`*`)
let member: Caller; // TENANT, built-in member role (menus:read only)
let outsider: Caller; // OTHER_TENANT admin
let platform: Caller; // platform administrator, no tenant
let listAdmin: Caller; // LIST_TENANT admin
let listMember: Caller; // LIST_TENANT member
let roleless: Caller; // TENANT, no role at all (not even menus:read)
let tenantless: Caller; // no tenant, member role: not a platform administrator
const nobody: Caller = {};
const badToken: Caller = { token: 'not-a-valid-credential' };

// ---------------------------------------------------------------- operations

const MENU_FIELDS = `id name description date mealType items { name description allergens }
  estimatedPortions tenant_id createdBy updatedBy deletedAt createdAt updatedAt`;

interface ListArgs {
  limit?: number;
  cursor?: string;
  date?: string;
  mealType?: string;
  includeDeleted?: boolean;
}

const op = {
  list(args: ListArgs = {}): Operation {
    const query = new URLSearchParams(Object.entries(args).map(([k, v]) => [k, String(v)])).toString();
    return {
      rest: { method: 'GET', path: `/restaurant/meal-menus${query ? `?${query}` : ''}` },
      graphql: {
        query: `query($limit: Int, $cursor: String, $date: String, $mealType: MealType, $includeDeleted: Boolean) {
          mealMenus(limit: $limit, cursor: $cursor, date: $date, mealType: $mealType, includeDeleted: $includeDeleted) {
            items { ${MENU_FIELDS} } nextCursor } }`,
        variables: { ...args },
      },
    };
  },
  get(id: string): Operation {
    return {
      rest: { method: 'GET', path: `/restaurant/meal-menus/${id}` },
      graphql: { query: `query($id: ID!) { mealMenu(id: $id) { ${MENU_FIELDS} } }`, variables: { id } },
    };
  },
  create(body: Record<string, unknown>): Operation {
    return {
      rest: { method: 'POST', path: '/restaurant/meal-menus', body },
      graphql: {
        query: `mutation($name: String!, $description: String, $date: String!, $mealType: MealType!,
            $items: [MealMenuItemInput!], $estimatedPortions: Int, $tenant_id: String) {
          createMealMenu(name: $name, description: $description, date: $date, mealType: $mealType,
            items: $items, estimatedPortions: $estimatedPortions, tenant_id: $tenant_id) { ${MENU_FIELDS} } }`,
        variables: body,
      },
    };
  },
  /** `portions` is sent as given: REST puts it in the path, GraphQL in a variable. */
  updatePortions(id: string, portions: unknown): Operation {
    return {
      rest: { method: 'PATCH', path: `/restaurant/meal-menus/${id}/estimated-portions/${String(portions)}` },
      graphql: {
        query: `mutation($id: ID!, $portions: Int!) {
          updateEstimatedPortions(id: $id, portions: $portions) { ${MENU_FIELDS} } }`,
        variables: { id, portions },
      },
    };
  },
  delete(id: string): Operation {
    return {
      rest: { method: 'DELETE', path: `/restaurant/meal-menus/${id}` },
      graphql: {
        query: 'mutation($id: ID!) { deleteMealMenu(id: $id) { id mode deletedAt } }',
        variables: { id },
      },
    };
  },
};

/** A 401 on either surface names the scheme to use. */
const UNAUTHENTICATED = { status: 401, code: 'UNAUTHENTICATED', headers: { 'www-authenticate': /^Bearer/ } };

/** The two 401 cases every operation answers: no credential, and one that is not valid. */
function credentialRefusals(operation: () => Operation): ApiCase[] {
  return [
    apiCase({ name: 'refuses a call without a credential (401)', caller: () => nobody, operation, expect: UNAUTHENTICATED }),
    apiCase({ name: 'refuses a bad credential (401)', caller: () => badToken, operation, expect: UNAUTHENTICATED }),
  ];
}

// ------------------------------------------------------------------ fixtures

function menuBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'Tuesday lunch',
    description: 'Seasonal set menu',
    date: '2026-03-03',
    mealType: 'lunch',
    items: [{ name: 'Lentil soup', description: 'With cumin', allergens: ['celery'] }],
    estimatedPortions: 120,
    ...overrides,
  };
}

// The collection name is part of the data contract: importers plant legacy records there.
const menus = () => app.db.collection('mealmenus');
const stored = (id: string) => menus().findOne({ _id: new ObjectId(id) });
const countMenus = () => menus().countDocuments({});

/** A menu created through the service (so it stores `deletedAt: null`). */
async function createMenu(as: Caller = admin, overrides: Record<string, unknown> = {}): Promise<string> {
  const outcome = await callOperation(app, 'rest', op.create(menuBody(overrides)), as);
  if (outcome.status !== 201) throw new Error(`fixture create failed: ${JSON.stringify(outcome.raw.body)}`);
  return (outcome.data as { id: string }).id;
}

/** A menu soft-deleted through the service. */
async function createDeletedMenu(as: Caller = admin, overrides: Record<string, unknown> = {}): Promise<string> {
  const id = await createMenu(as, overrides);
  const outcome = await callOperation(app, 'rest', op.delete(id), as);
  if (outcome.status !== 200) throw new Error(`fixture delete failed: ${JSON.stringify(outcome.raw.body)}`);
  return id;
}

/**
 * An imported/legacy record: planted by the native driver WITHOUT a deletedAt
 * field. An override of `undefined` leaves that field out too.
 */
async function plantLegacyMenu(tenant = TENANT, overrides: Document = {}): Promise<string> {
  const now = new Date();
  const record: Document = {
    _id: new ObjectId(),
    name: 'Imported dinner',
    date: '2025-12-24',
    mealType: 'dinner',
    items: [{ name: 'Roast', allergens: [] }],
    estimatedPortions: 40,
    tenant_id: tenant,
    createdBy: admin.id,
    updatedBy: admin.id,
    createdAt: now,
    updatedAt: now,
    ...overrides,
  };
  for (const [field, value] of Object.entries(record)) if (value === undefined) delete record[field];
  await menus().insertOne(record);
  return (record._id as ObjectId).toHexString();
}

const unknownId = () => new ObjectId().toHexString();

/** A stored time well before any test runs. */
const LONG_AGO = new Date('2020-01-01T00:00:00Z');

/**
 * A legacy record that stores only the required fields: no deletedAt, no
 * description, an item without description or allergens (or, with
 * `withoutItems`, no items at all). Read back, each missing field answers
 * its declared default (null, [] ...), as a record created here would.
 */
const SPARSE_DAY = '2019-07-07';
const SPARSE_CREATED = new Date('2019-07-01T08:05:03.007Z');
const SPARSE_UPDATED = new Date('2019-07-02T00:00:00.000Z');
async function plantSparseMenu({ withoutItems = false } = {}): Promise<string> {
  const _id = new ObjectId();
  const record: Document = {
    _id,
    name: 'Sparse import',
    date: SPARSE_DAY,
    mealType: 'breakfast',
    items: [{ name: 'Porridge' }],
    estimatedPortions: 5,
    tenant_id: TENANT,
    createdBy: admin.id,
    updatedBy: admin.id,
    createdAt: SPARSE_CREATED,
    updatedAt: SPARSE_UPDATED,
  };
  if (withoutItems) delete record.items;
  await menus().insertOne(record);
  return _id.toHexString();
}

/** The whole answer for a sparse record: every default filled, dates as ISO 8601 UTC with milliseconds. */
const sparseAnswer = (id: string, items: unknown[]) => ({
  id,
  name: 'Sparse import',
  description: null,
  date: SPARSE_DAY,
  mealType: 'breakfast',
  items,
  estimatedPortions: 5,
  tenant_id: TENANT,
  createdBy: admin.id,
  updatedBy: admin.id,
  deletedAt: null,
  createdAt: '2019-07-01T08:05:03.007Z',
  updatedAt: '2019-07-02T00:00:00.000Z',
});
const PORRIDGE = [{ name: 'Porridge', description: null, allergens: [] }];

/** Fixture for "bad input changes nothing": the menu and its stored state before. */
async function menuWithSnapshot(): Promise<{ id: string; before: Document | null }> {
  const id = await createMenu();
  return { id, before: await stored(id) };
}

beforeAll(async () => {
  app = await startTestApp();
  const [a, m, o, p, la, lm, r] = await Promise.all([
    app.createUser({ tenantId: TENANT, roles: ['admin'] }),
    app.createUser({ tenantId: TENANT, roles: ['member'] }),
    app.createUser({ tenantId: OTHER_TENANT, roles: ['admin'] }),
    app.createUser({ tenantId: null }),
    app.createUser({ tenantId: LIST_TENANT, roles: ['admin'] }),
    app.createUser({ tenantId: LIST_TENANT, roles: ['member'] }),
    app.createUser({ tenantId: TENANT, roles: [] }),
  ]);
  admin = { token: a.token, id: a.id };
  member = { token: m.token };
  outsider = { token: o.token };
  platform = { token: p.token };
  listAdmin = { token: la.token };
  listMember = { token: lm.token };
  roleless = { token: r.token };
  tenantless = { token: (await app.createUser({ tenantId: null, roles: ['member'] })).token };

  // The list tenant: three live menus over two days, one soft-deleted; nobody changes them.
  for (const [date, mealType] of [
    ['2026-04-01', 'lunch'],
    ['2026-04-01', 'dinner'],
    ['2026-04-02', 'lunch'],
  ]) {
    await createMenu(listAdmin, { date, mealType, name: `${mealType} ${date}` });
  }
  await createDeletedMenu(listAdmin, { date: '2026-04-02', mealType: 'breakfast', name: 'withdrawn' });
});

afterAll(async () => {
  await app?.close();
});

type Menu = {
  id: string;
  name: string;
  date: string;
  mealType: string;
  estimatedPortions: number;
  tenant_id: string;
  deletedAt: string | null;
  createdAt: string;
  updatedAt: string;
};
type MenuPage = { items: Menu[]; nextCursor: string | null };

// -------------------------------------------------------------------- create

runCases('Creating a meal menu (POST /restaurant/meal-menus, createMealMenu)', client, [
  apiCase({
    name: 'stores the menu in the caller tenant with deletedAt null and answers it (201)',
    caller: () => admin,
    operation: () => op.create(menuBody()),
    expect: {
      status: 201,
      data: (menu: Menu & Record<string, unknown>) => {
        expect(menu).toMatchObject({
          name: 'Tuesday lunch',
          date: '2026-03-03',
          mealType: 'lunch',
          estimatedPortions: 120,
          tenant_id: TENANT,
          createdBy: admin.id,
          updatedBy: admin.id,
          deletedAt: null,
          items: [{ name: 'Lentil soup', description: 'With cumin', allergens: ['celery'] }],
        });
        expect(menu.id).toMatch(/^[0-9a-f]{24}$/);
      },
      db: async (_f, outcome) => {
        const record = await stored((outcome.data as Menu).id);
        expect(record).toMatchObject({ tenant_id: TENANT, estimatedPortions: 120, deletedAt: null });
        expect(record && 'deletedAt' in record).toBe(true);
      },
    },
  }),
  apiCase({
    name: 'gives an item sent without allergens the declared default, an empty list',
    caller: () => admin,
    operation: () => op.create(menuBody({ items: [{ name: 'Plain rice' }] })),
    expect: {
      status: 201,
      data: (menu: Menu & Record<string, unknown>) => expect(menu.items).toEqual([{ name: 'Plain rice', description: null, allergens: [] }]),
      db: async (_f, outcome) => expect((await stored((outcome.data as Menu).id))?.["items"]).toMatchObject([{ name: 'Plain rice', allergens: [] }]),
    },
  }),
  apiCase({
    name: 'lets a platform administrator create in the tenant it names',
    caller: () => platform,
    operation: () => op.create(menuBody({ tenant_id: OTHER_TENANT })),
    expect: {
      status: 201,
      data: (menu: Menu) => expect(menu.tenant_id).toBe(OTHER_TENANT),
      db: async (_f, outcome) => expect(await stored((outcome.data as Menu).id)).toMatchObject({ tenant_id: OTHER_TENANT }),
    },
  }),
  apiCase({
    name: 'refuses a platform administrator who names no tenant (400 tenant_id), storing nothing',
    arrange: countMenus,
    caller: () => platform,
    operation: () => op.create(menuBody()),
    expect: {
      status: 400,
      code: 'BAD_USER_INPUT',
      fieldErrors: [{ field: 'tenant_id', rule: 'required' }],
      db: async (before) => expect(await countMenus()).toBe(before),
    },
  }),
  ...['  ', 'x\u0000y', 'a b'].map((tenant) =>
    apiCase({
      name: `refuses a tenant id outside the tenant rule (${JSON.stringify(tenant)}: 400 tenant_id), storing nothing`,
      arrange: countMenus,
      caller: () => platform,
      operation: () => op.create(menuBody({ tenant_id: tenant })),
      expect: {
        status: 400,
        code: 'BAD_USER_INPUT',
        fieldErrors: [{ field: 'tenant_id', rule: 'matches' }],
        db: async (before) => expect(await countMenus()).toBe(before),
      },
    }),
  ),
  apiCase({
    name: 'refuses a tenant member naming another tenant (403), storing nothing',
    arrange: countMenus,
    caller: () => admin,
    operation: () => op.create(menuBody({ tenant_id: OTHER_TENANT })),
    expect: { status: 403, code: 'FORBIDDEN', db: async (before) => expect(await countMenus()).toBe(before) },
  }),
  ...(
    [
      ['negative estimatedPortions', { estimatedPortions: -1 }, 'estimatedPortions', 'min'],
      ['a day that does not exist', { date: '2026-02-30' }, 'date', 'isCalendarDate'],
      ['a date-time instead of a day', { date: '2026-03-03T12:00:00Z' }, 'date', 'isCalendarDate'],
      ['an empty name', { name: '' }, 'name', 'isLength'],
      ['an item without a name', { items: [{ name: '', allergens: [] }] }, 'items.0.name', 'isLength'],
    ] as const
  ).map(([why, overrides, field, rule]) =>
    apiCase({
      name: `refuses ${why} (400 ${field}/${rule}), storing nothing`,
      arrange: countMenus,
      caller: () => admin,
      operation: () => op.create(menuBody(overrides)),
      expect: {
        status: 400,
        code: 'BAD_USER_INPUT',
        fieldErrors: [{ field, rule }],
        db: async (before) => expect(await countMenus()).toBe(before),
      },
    }),
  ),
  apiCase({
    name: 'refuses an unknown meal type (400)',
    arrange: countMenus,
    caller: () => admin,
    operation: () => op.create(menuBody({ mealType: 'brunch' })),
    expect: { status: 400, code: 'BAD_USER_INPUT', db: async (before) => expect(await countMenus()).toBe(before) },
  }),
  apiCase({
    name: 'refuses a caller without menus:write (403)',
    arrange: countMenus,
    caller: () => member,
    operation: () => op.create(menuBody()),
    expect: { status: 403, code: 'FORBIDDEN', db: async (before) => expect(await countMenus()).toBe(before) },
  }),
  ...credentialRefusals(() => op.create(menuBody())),
]);

// ---------------------------------------------------------------------- read

runCases('Reading one meal menu (GET /restaurant/meal-menus/{id}, mealMenu)', client, [
  apiCase({
    name: 'answers a menu of the caller tenant to a reader',
    arrange: () => createMenu(),
    caller: () => member,
    operation: (id) => op.get(id),
    expect: {
      status: 200,
      data: (menu: Menu, id) => expect(menu).toMatchObject({ id, tenant_id: TENANT, deletedAt: null }),
    },
  }),
  apiCase({
    name: 'answers an imported record whose day is stored as a BSON date with that day (UTC), as YYYY-MM-DD',
    arrange: () => plantLegacyMenu(TENANT, { date: new Date('2030-05-01T00:00:00Z') }),
    caller: () => admin,
    operation: (id) => op.get(id),
    expect: { status: 200, data: (menu: Menu, id) => expect(menu).toMatchObject({ id, date: '2030-05-01' }) },
  }),
  apiCase({
    name: 'answers a legacy record without deletedAt as live',
    arrange: () => plantLegacyMenu(),
    caller: () => admin,
    operation: (id) => op.get(id),
    expect: { status: 200, data: (menu: Menu, id) => expect(menu).toMatchObject({ id, name: 'Imported dinner' }) },
  }),
  apiCase({
    name: 'answers text beyond ASCII as it was stored (accents, emoji, a quote)',
    arrange: () => createMenu(admin, { name: 'Crème brûlée 🍮 "du chef"', items: [{ name: 'Smørrebrød', allergens: ['gluten'] }] }),
    caller: () => member,
    operation: (id) => op.get(id),
    expect: {
      status: 200,
      data: (menu: Menu & Record<string, unknown>) => {
        expect(menu.name).toBe('Crème brûlée 🍮 "du chef"');
        expect(menu.items).toEqual([{ name: 'Smørrebrød', description: null, allergens: ['gluten'] }]);
      },
    },
  }),
  apiCase({
    name: "answers a stored record's missing fields with their defaults (deletedAt, description, allergens)",
    arrange: () => plantSparseMenu(),
    caller: () => member,
    operation: (id) => op.get(id),
    expect: { status: 200, data: (menu: Menu, id) => expect(menu).toEqual(sparseAnswer(id, PORRIDGE)) },
  }),
  apiCase({
    name: 'answers a stored record without items with an empty list',
    arrange: () => plantSparseMenu({ withoutItems: true }),
    caller: () => member,
    operation: (id) => op.get(id),
    expect: { status: 200, data: (menu: Menu, id) => expect(menu).toEqual(sparseAnswer(id, [])) },
  }),
  apiCase({
    name: 'answers a masked 500, not a 400, when a stored record holds a value the schema cannot represent',
    // A tenant of its own: the broken record must not reach the other cases' lists.
    arrange: () => plantLegacyMenu('tenant-broken-data', { mealType: 'brunch' }),
    caller: () => platform,
    operation: (id) => op.get(id),
    expect: {
      status: 500,
      code: 'INTERNAL_SERVER_ERROR',
      data: (_data, _id, outcome) => expect(JSON.stringify(outcome.raw.body)).not.toContain('brunch'),
    },
  }),
  apiCase({
    name: 'refuses a member stored without a tenant instead of showing it every tenant',
    caller: () => tenantless,
    operation: () => op.list(),
    expect: { status: 403, code: 'FORBIDDEN' },
  }),
  apiCase({
    name: "refuses a member stored without a tenant one tenant's menu",
    arrange: () => createMenu(),
    caller: () => tenantless,
    operation: (id) => op.get(id),
    expect: { status: 403, code: 'FORBIDDEN' },
  }),
  apiCase({
    name: "lets a platform administrator read any tenant's menu",
    arrange: () => createMenu(),
    caller: () => platform,
    operation: (id) => op.get(id),
    expect: { status: 200, data: (menu: Menu) => expect(menu.tenant_id).toBe(TENANT) },
  }),
  apiCase({
    name: "answers 404 for another tenant's menu",
    arrange: () => createMenu(),
    caller: () => outsider,
    operation: (id) => op.get(id),
    expect: { status: 404, code: 'NOT_FOUND' },
  }),
  apiCase({
    name: 'answers 404 for a soft-deleted menu',
    arrange: () => createDeletedMenu(),
    caller: () => admin,
    operation: (id) => op.get(id),
    expect: { status: 404, code: 'NOT_FOUND' },
  }),
  apiCase({
    name: 'answers 404 for an unknown id',
    caller: () => admin,
    operation: () => op.get(unknownId()),
    expect: { status: 404, code: 'NOT_FOUND' },
  }),
  apiCase({
    name: 'answers 400 for a malformed id, naming the field and rule',
    caller: () => admin,
    operation: () => op.get('not-an-id'),
    expect: { status: 400, code: 'BAD_USER_INPUT', fieldErrors: [{ field: 'id', rule: 'isMongoId' }] },
  }),
  apiCase({
    name: 'refuses a caller without menus:read (403)',
    arrange: () => createMenu(),
    caller: () => roleless,
    operation: (id) => op.get(id),
    expect: { status: 403, code: 'FORBIDDEN' },
  }),
  ...credentialRefusals(() => op.get(unknownId())),
]);

// ---------------------------------------------------------------------- list

const names = (page: MenuPage) => page.items.map((m) => m.name).sort();

/** The first page of `args`, fetched over the same surface, to read its cursor. */
async function firstPage(surface: Surface, args: ListArgs): Promise<MenuPage> {
  const outcome = await callOperation(app, surface, op.list(args), listAdmin);
  return outcome.data as MenuPage;
}

runCases('Listing meal menus (GET /restaurant/meal-menus, mealMenus)', client, [
  apiCase({
    name: "lists the live menus of the caller's tenant, soft-deleted ones hidden",
    caller: () => listMember,
    operation: () => op.list(),
    expect: {
      status: 200,
      data: (page: MenuPage) => {
        expect(names(page)).toEqual(['dinner 2026-04-01', 'lunch 2026-04-01', 'lunch 2026-04-02']);
        expect(page.nextCursor).toBeNull();
      },
    },
  }),
  apiCase({
    name: 'pages by limit, handing out a nextCursor',
    caller: () => listMember,
    operation: () => op.list({ limit: 2 }),
    expect: {
      status: 200,
      data: (page: MenuPage) => {
        expect(page.items).toHaveLength(2);
        expect(page.nextCursor).toEqual(expect.any(String));
      },
    },
  }),
  apiCase({
    name: 'continues after the cursor, with a null nextCursor on the last page',
    arrange: (surface) => firstPage(surface, { limit: 2 }),
    caller: () => listMember,
    operation: (first) => op.list({ limit: 2, cursor: first.nextCursor ?? '' }),
    expect: {
      status: 200,
      data: (page: MenuPage, first) => {
        expect(page.items).toHaveLength(1);
        expect(page.nextCursor).toBeNull();
        expect(first.items.map((m) => m.id)).not.toContain(page.items[0]?.id);
      },
    },
  }),
  apiCase({
    name: "answers listed records' missing fields with their defaults, as a read of one does",
    arrange: async () => ({ sparse: await plantSparseMenu(), bare: await plantSparseMenu({ withoutItems: true }) }),
    caller: () => member,
    operation: () => op.list({ date: SPARSE_DAY, limit: 100 }),
    expect: {
      status: 200,
      data: (page: MenuPage, { sparse, bare }) => {
        expect(page.items.find((menu) => menu.id === sparse)).toEqual(sparseAnswer(sparse, PORRIDGE));
        expect(page.items.find((menu) => menu.id === bare)).toEqual(sparseAnswer(bare, []));
      },
    },
  }),
  apiCase({
    name: 'walks every page once: the cursors of limit 1 reach each menu in id order, then null',
    caller: () => listMember,
    operation: () => op.list({ limit: 100 }),
    expect: {
      status: 200,
      data: async (whole: MenuPage) => {
        for (const surface of ['rest', 'graphql'] as const) {
          const walked: string[] = [];
          let cursor: string | undefined;
          for (let page = 0; page < 10; page += 1) {
            const outcome = await callOperation(app, surface, op.list({ limit: 1, ...(cursor ? { cursor } : {}) }), listMember);
            const { items, nextCursor } = outcome.data as MenuPage;
            walked.push(...items.map((menu) => menu.id));
            if (!nextCursor) break;
            cursor = nextCursor;
          }
          expect(walked).toEqual(whole.items.map((menu) => menu.id));
        }
        expect(whole.items.map((menu) => menu.id)).toEqual(whole.items.map((menu) => menu.id).sort());
      },
    },
  }),
  apiCase({
    name: 'filters by service day',
    caller: () => listMember,
    operation: () => op.list({ date: '2026-04-01' }),
    expect: { status: 200, data: (page: MenuPage) => expect(names(page)).toEqual(['dinner 2026-04-01', 'lunch 2026-04-01']) },
  }),
  apiCase({
    name: 'filters by meal type',
    caller: () => listMember,
    operation: () => op.list({ mealType: 'lunch' }),
    expect: { status: 200, data: (page: MenuPage) => expect(names(page)).toEqual(['lunch 2026-04-01', 'lunch 2026-04-02']) },
  }),
  apiCase({
    name: 'includes soft-deleted menus for a menus:delete holder asking includeDeleted',
    caller: () => listAdmin,
    operation: () => op.list({ includeDeleted: true }),
    expect: {
      status: 200,
      data: (page: MenuPage) => {
        expect(names(page)).toContain('withdrawn');
        expect(page.items.find((m) => m.name === 'withdrawn')?.deletedAt).toEqual(expect.any(String));
      },
    },
  }),
  apiCase({
    name: 'refuses includeDeleted to a caller without menus:delete (403)',
    caller: () => listMember,
    operation: () => op.list({ includeDeleted: true }),
    expect: { status: 403, code: 'FORBIDDEN' },
  }),
  apiCase({
    name: "never shows another tenant's menus",
    caller: () => outsider,
    operation: () => op.list({ date: '2026-04-01' }),
    expect: { status: 200, data: (page: MenuPage) => expect(page.items).toEqual([]) },
  }),
  ...(
    [
      ['a limit of 0', { limit: 0 }, 'limit', 'min'],
      ['a limit over 100', { limit: 101 }, 'limit', 'max'],
      ['a cursor it did not hand out', { cursor: 'garbage' }, 'cursor', 'isPageCursor'],
      ['a malformed day', { date: '04/01/2026' }, 'date', 'isCalendarDate'],
    ] as const
  ).map(([why, args, field, rule]) =>
    apiCase({
      name: `refuses ${why} (400 ${field}/${rule})`,
      caller: () => listMember,
      operation: () => op.list(args),
      expect: { status: 400, code: 'BAD_USER_INPUT', fieldErrors: [{ field, rule }] },
    }),
  ),
  // The list reads with the driver's find, which neither casts nor sanitizes its filter: a
  // value that is not of the argument's type must be refused before it, as any wrong type is.
  ...(
    [
      ['date', { $ne: '2026-04-01' }],
      ['mealType', { $in: ['lunch'] }],
      ['cursor', { $gt: '' }],
    ] as const
  ).map(([field, value]) =>
    apiCase({
      name: `refuses an operator object as ${field} (400)`,
      caller: () => listMember,
      operation: () => {
        const [[operator, operand]] = Object.entries(value);
        const list = op.list();
        return {
          rest: { ...list.rest, path: `${list.rest.path}?${field}[${operator}]=${encodeURIComponent(String(operand))}` },
          graphql: { ...list.graphql, variables: { [field]: value } },
        };
      },
      expect: { status: 400, code: 'BAD_USER_INPUT' },
    }),
  ),
  apiCase({
    name: 'refuses a caller without menus:read (403)',
    caller: () => roleless,
    operation: () => op.list(),
    expect: { status: 403, code: 'FORBIDDEN' },
  }),
  ...credentialRefusals(() => op.list()),
]);

// ---------------------------------------------------- update estimated portions

const unchanged = async ({ id, before }: { id: string; before: Document | null }) =>
  expect(await stored(id)).toEqual(before);

runCases(
  'Updating estimated portions (PATCH /restaurant/meal-menus/{id}/estimated-portions/{portions}, updateEstimatedPortions)',
  client,
  [
    apiCase({
      name: 'sets the portions and answers the updated menu',
      arrange: () => createMenu(),
      caller: () => admin,
      operation: (id) => op.updatePortions(id, 42),
      expect: {
        status: 200,
        data: (menu: Menu, id) => expect(menu).toMatchObject({ id, estimatedPortions: 42 }),
        db: async (id) => expect(await stored(id)).toMatchObject({ estimatedPortions: 42, updatedBy: admin.id }),
      },
    }),
    apiCase({
      name: 'accepts zero',
      arrange: () => createMenu(),
      caller: () => admin,
      operation: (id) => op.updatePortions(id, 0),
      expect: { status: 200, db: async (id) => expect(await stored(id)).toMatchObject({ estimatedPortions: 0 }) },
    }),
    apiCase({
      name: 'moves updatedAt to the time of the change, keeps createdAt, and answers both as stored',
      arrange: () => plantLegacyMenu(TENANT, { deletedAt: null, createdAt: LONG_AGO, updatedAt: LONG_AGO }),
      caller: () => admin,
      operation: (id) => op.updatePortions(id, 9),
      expect: {
        status: 200,
        data: (menu: Menu) => expect(new Date(String(menu.updatedAt)).getTime()).toBeGreaterThan(LONG_AGO.getTime()),
        db: async (id, outcome) => {
          const record = await stored(id);
          expect(record!['createdAt']).toEqual(LONG_AGO);
          expect((record!['updatedAt'] as Date).getTime()).toBeGreaterThan(LONG_AGO.getTime());
          expect(new Date(String((outcome.data as Menu).updatedAt))).toEqual(record!['updatedAt']);
        },
      },
    }),
    apiCase({
      name: 'updates a legacy record without adding deletedAt to it',
      arrange: () => plantLegacyMenu(),
      caller: () => admin,
      operation: (id) => op.updatePortions(id, 7),
      expect: {
        status: 200,
        db: async (id) => {
          const record = await stored(id);
          expect(record).toMatchObject({ estimatedPortions: 7 });
          expect(record).not.toHaveProperty('deletedAt');
        },
      },
    }),
    ...(
      [
        ['a negative number', -1],
        ['a fraction', 1.5],
        ['a word', 'abc'],
        // Number('0x10') is 16 and Number('1e2') 100: GraphQL refuses both, so REST must too.
        ['a hexadecimal number', '0x10'],
        ['an exponent', '1e2'],
        ['a signed number', '+5'],
      ] as const
    ).map(([why, portions]) =>
      apiCase({
        name: `refuses ${why} as portions (400) and changes nothing`,
        arrange: menuWithSnapshot,
        caller: () => admin,
        operation: ({ id }) => op.updatePortions(id, portions),
        expect: { status: 400, code: 'BAD_USER_INPUT', db: unchanged },
      }),
    ),
    apiCase({
      name: 'names the field and rule of a negative number (portions/min)',
      arrange: menuWithSnapshot,
      caller: () => admin,
      operation: ({ id }) => op.updatePortions(id, -1),
      expect: { status: 400, code: 'BAD_USER_INPUT', fieldErrors: [{ field: 'portions', rule: 'min' }] },
    }),
    // A value that is no integer at all says the field's own rule too, not GraphQL's Int range.
    ...(
      [
        ['a negative number', -5, 'min'],
        ['a word', 'abc', 'type'],
        ['a fraction', 1.5, 'type'],
      ] as const
    ).map(([why, portions, rule]) =>
      apiCase({
        name: `says the real rule for ${why}: portions must be an integer >= 0`,
        arrange: menuWithSnapshot,
        caller: () => admin,
        operation: ({ id }) => op.updatePortions(id, portions),
        expect: { status: 400, code: 'BAD_USER_INPUT', fieldErrors: [{ field: 'portions', rule, message: 'portions must be an integer >= 0' }], db: unchanged },
      }),
    ),
    apiCase({
      name: 'answers 404 for a soft-deleted menu and changes nothing',
      arrange: async () => {
        const id = await createDeletedMenu();
        return { id, before: await stored(id) };
      },
      caller: () => admin,
      operation: ({ id }) => op.updatePortions(id, 5),
      expect: { status: 404, code: 'NOT_FOUND', db: unchanged },
    }),
    apiCase({
      name: "answers 404 for another tenant's menu and changes nothing",
      arrange: menuWithSnapshot,
      caller: () => outsider,
      operation: ({ id }) => op.updatePortions(id, 5),
      expect: { status: 404, code: 'NOT_FOUND', db: unchanged },
    }),
    apiCase({
      name: 'answers 404 for an unknown id',
      caller: () => admin,
      operation: () => op.updatePortions(unknownId(), 5),
      expect: { status: 404, code: 'NOT_FOUND' },
    }),
    apiCase({
      name: 'answers 400 for a malformed id',
      caller: () => admin,
      operation: () => op.updatePortions('123', 5),
      expect: { status: 400, code: 'BAD_USER_INPUT', fieldErrors: [{ field: 'id', rule: 'isMongoId' }] },
    }),
    apiCase({
      name: 'refuses a caller without menus:write (403) and changes nothing',
      arrange: menuWithSnapshot,
      caller: () => member,
      operation: ({ id }) => op.updatePortions(id, 5),
      expect: { status: 403, code: 'FORBIDDEN', db: unchanged },
    }),
    ...credentialRefusals(() => op.updatePortions(unknownId(), 5)),
  ],
);

// -------------------------------------------------------------------- delete

runCases('Deleting a meal menu (DELETE /restaurant/meal-menus/{id}, deleteMealMenu)', client, [
  apiCase({
    name: 'soft-deletes a menu that stores deletedAt: the record stays, marked',
    arrange: () => createMenu(),
    caller: () => admin,
    operation: (id) => op.delete(id),
    expect: {
      status: 200,
      data: (result: { id: string; mode: string; deletedAt: string }, id) => {
        expect(result).toMatchObject({ id, mode: 'soft' });
        expect(Number.isNaN(Date.parse(result.deletedAt))).toBe(false);
      },
      db: async (id, outcome) => {
        const record = await stored(id);
        expect(record?.['deletedAt']).toBeInstanceOf(Date);
        expect((record?.['deletedAt'] as Date).toISOString()).toBe((outcome.data as { deletedAt: string }).deletedAt);
      },
    },
  }),
  apiCase({
    name: 'hard-deletes a legacy record without deletedAt: the record is gone',
    arrange: () => plantLegacyMenu(),
    caller: () => admin,
    operation: (id) => op.delete(id),
    expect: {
      status: 200,
      data: (result: unknown, id) => expect(result).toEqual({ id, mode: 'hard', deletedAt: null }),
      db: async (id) => expect(await stored(id)).toBeNull(),
    },
  }),
  apiCase({
    name: 'answers 404 for a second delete of a soft-deleted menu, leaving deletedAt as it was',
    arrange: async () => {
      const id = await createDeletedMenu();
      return { id, before: await stored(id) };
    },
    caller: () => admin,
    operation: ({ id }) => op.delete(id),
    expect: { status: 404, code: 'NOT_FOUND', db: unchanged },
  }),
  apiCase({
    name: 'answers 404 for a second delete of a hard-deleted record',
    arrange: async () => {
      const id = await plantLegacyMenu();
      await callOperation(app, 'rest', op.delete(id), admin);
      return id;
    },
    caller: () => admin,
    operation: (id) => op.delete(id),
    expect: { status: 404, code: 'NOT_FOUND' },
  }),
  apiCase({
    name: "answers 404 for another tenant's menu and deletes nothing",
    arrange: menuWithSnapshot,
    caller: () => outsider,
    operation: ({ id }) => op.delete(id),
    expect: { status: 404, code: 'NOT_FOUND', db: unchanged },
  }),
  apiCase({
    name: "answers 404 for another tenant's legacy record and removes nothing",
    arrange: () => plantLegacyMenu(),
    caller: () => outsider,
    operation: (id) => op.delete(id),
    expect: { status: 404, code: 'NOT_FOUND', db: async (id) => expect(await stored(id)).not.toBeNull() },
  }),
  apiCase({
    name: 'answers 404 for an unknown id',
    caller: () => admin,
    operation: () => op.delete(unknownId()),
    expect: { status: 404, code: 'NOT_FOUND' },
  }),
  apiCase({
    name: 'answers 400 for a malformed id',
    caller: () => admin,
    operation: () => op.delete('zzzzzzzzzzzzzzzzzzzzzzzz'),
    expect: { status: 400, code: 'BAD_USER_INPUT', fieldErrors: [{ field: 'id', rule: 'isMongoId' }] },
  }),
  apiCase({
    name: 'refuses a caller without menus:delete (403) and deletes nothing',
    arrange: menuWithSnapshot,
    caller: () => member,
    operation: ({ id }) => op.delete(id),
    expect: { status: 403, code: 'FORBIDDEN', db: unchanged },
  }),
  apiCase({
    name: 'refuses a call without a credential (401) and deletes nothing',
    arrange: menuWithSnapshot,
    caller: () => nobody,
    operation: ({ id }) => op.delete(id),
    expect: { ...UNAUTHENTICATED, db: unchanged },
  }),
  apiCase({
    name: 'refuses a bad credential (401)',
    caller: () => badToken,
    operation: () => op.delete(unknownId()),
    expect: UNAUTHENTICATED,
  }),
]);

// ------------------------------------------ imported records without timestamps

/** The service day of the timestamp-less records: no other case lists it. */
const UNSTAMPED_DAY = '2019-01-02';
/** When the ids of timestamp-less records were made (an ObjectId keeps seconds). */
const ID_TIME = new Date('2019-01-01T12:34:56.000Z');

/**
 * An imported record stored without `createdAt` and `updatedAt` (and, unless
 * `deletedAt` is given, without `deletedAt`), its id made at ID_TIME.
 */
async function plantUnstampedMenu(fields: Document = {}): Promise<string> {
  return plantLegacyMenu(TENANT, {
    _id: new ObjectId(ObjectId.generate(ID_TIME.getTime() / 1000)),
    name: 'Unstamped import',
    date: UNSTAMPED_DAY,
    items: undefined,
    estimatedPortions: 3,
    createdAt: undefined,
    updatedAt: undefined,
    ...fields,
  });
}

/** Both timestamps as an unstamped record answers them: the time of its id. */
const DERIVED = { createdAt: ID_TIME.toISOString(), updatedAt: ID_TIME.toISOString() };

runCases('Imported menus stored without createdAt/updatedAt (every operation answers them)', client, [
  apiCase({
    name: 'reads one: createdAt is when its id was made, updatedAt the same',
    arrange: () => plantUnstampedMenu(),
    caller: () => member,
    operation: (id) => op.get(id),
    expect: { status: 200, data: (menu: Menu, id) => expect(menu).toMatchObject({ id, deletedAt: null, ...DERIVED }) },
  }),
  apiCase({
    name: 'reads one stored with createdAt only: updatedAt is that createdAt',
    arrange: () => plantUnstampedMenu({ createdAt: LONG_AGO }),
    caller: () => member,
    operation: (id) => op.get(id),
    expect: {
      status: 200,
      data: (menu: Menu) => expect(menu).toMatchObject({ createdAt: LONG_AGO.toISOString(), updatedAt: LONG_AGO.toISOString() }),
    },
  }),
  apiCase({
    name: "lists a page holding one: the page answers (200) with the record's derived timestamps",
    arrange: () => plantUnstampedMenu(),
    caller: () => member,
    operation: () => op.list({ date: UNSTAMPED_DAY, limit: 100 }),
    expect: {
      status: 200,
      data: (page: MenuPage, id) => expect(page.items.find((menu) => menu.id === id)).toMatchObject(DERIVED),
    },
  }),
  apiCase({
    name: 'updates portions: answers 200 with updatedAt as stored by the write and createdAt from the id',
    arrange: () => plantUnstampedMenu(),
    caller: () => admin,
    operation: (id) => op.updatePortions(id, 7),
    expect: {
      status: 200,
      data: (menu: Menu) => {
        expect(menu).toMatchObject({ estimatedPortions: 7, createdAt: DERIVED.createdAt });
        expect(Date.parse(menu.updatedAt)).toBeGreaterThan(ID_TIME.getTime());
      },
      db: async (id, outcome) => {
        const record = await stored(id);
        expect(record).toMatchObject({ estimatedPortions: 7, updatedAt: new Date((outcome.data as Menu).updatedAt) });
        // A read stores nothing: createdAt stays derived, not written.
        expect(record).not.toHaveProperty('createdAt');
      },
    },
  }),
  apiCase({
    name: 'soft-deletes one that stores deletedAt: null',
    arrange: () => plantUnstampedMenu({ deletedAt: null }),
    caller: () => admin,
    operation: (id) => op.delete(id),
    expect: {
      status: 200,
      data: (result: { id: string; mode: string }, id) => expect(result).toMatchObject({ id, mode: 'soft' }),
      db: async (id) => expect((await stored(id))?.['deletedAt']).toBeInstanceOf(Date),
    },
  }),
  apiCase({
    name: 'hard-deletes one without deletedAt',
    arrange: () => plantUnstampedMenu(),
    caller: () => admin,
    operation: (id) => op.delete(id),
    expect: {
      status: 200,
      data: (result: unknown, id) => expect(result).toEqual({ id, mode: 'hard', deletedAt: null }),
      db: async (id) => expect(await stored(id)).toBeNull(),
    },
  }),
]);

describe('integer values that are no integer at all say the rule of their field', () => {
  const problemOf = (body: any) => (body.errors?.[0]?.extensions?.errors ?? body.errors ?? []) as { field: string; rule: string; message: string }[];

  it('as an inline GraphQL literal (portions: "abc")', async () => {
    const id = await createMenu();
    const response = await app.graphql(`mutation { updateEstimatedPortions(id: "${id}", portions: "abc") { id } }`, undefined, { token: admin.token });
    expect(problemOf(response.body)).toContainEqual({ field: 'portions', rule: 'type', message: 'portions must be an integer >= 0' });
  });

  it('for a list limit, over both surfaces (limit: an integer from 1 to 100)', async () => {
    const rest = await app.rest('GET', '/restaurant/meal-menus?limit=abc', { token: admin.token });
    const graphql = await app.graphql('query($limit: Int) { mealMenus(limit: $limit) { nextCursor } }', { limit: 'abc' }, { token: admin.token });
    const wanted = { field: 'limit', rule: 'type', message: 'limit must be an integer from 1 to 100' };
    expect([problemOf(rest.body), problemOf(graphql.body)]).toEqual([[wanted], [wanted]]);
  });
});
