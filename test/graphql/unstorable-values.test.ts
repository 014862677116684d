import { ObjectId } from 'mongodb';
import { afterAll, beforeAll, expect } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';
import { apiCase, runCases, type Operation } from '../support/surfaces.js';

/**
 * Values storage would not keep as sent are refused for every operation
 * (src/graphql/storable-values.ts), 400 naming the field and the rule,
 * nothing written: a string with a lone surrogate (rule `wellFormed`; the
 * database would hold U+FFFD instead) and, in free-form JSON, a number that
 * is not finite (rule `finite`; `1e400` reads as Infinity, answered as null).
 * GraphQL variables carry them as JSON does; so do REST bodies.
 */

let app: TestApp;
const client = () => app;
const TENANT = 'tenant-unstorable';
let admin: TestUser;

/** JSON text for a number JSON.stringify cannot write (Infinity would become null). */
const rawNumber = (text: string) => (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON(text);

const LONE_HIGH = '\ud800';
const LONE_LOW = '\udc00';

const keyCount = () => app.db.collection('apikeys').countDocuments({ tenant_id: TENANT });
const menuCount = () => app.db.collection('mealmenus').countDocuments({ tenant_id: TENANT });

const op = {
  createKey(body: Record<string, unknown>): Operation {
    return {
      rest: { method: 'POST', path: '/api-keys', body },
      graphql: {
        query: `mutation($name: String!, $scopes: [String!]!, $rateLimit: Int, $metadata: JSONObject) {
          createApiKey(name: $name, scopes: $scopes, rateLimit: $rateLimit, metadata: $metadata) { id name metadata } }`,
        variables: body,
      },
    };
  },
  createMenu(body: Record<string, unknown>): Operation {
    return {
      rest: { method: 'POST', path: '/restaurant/meal-menus', body },
      graphql: {
        query: `mutation($name: String!, $date: String!, $mealType: MealType!, $items: [MealMenuItemInput!]) {
          createMealMenu(name: $name, date: $date, mealType: $mealType, items: $items) { id } }`,
        variables: body,
      },
    };
  },
  updateUser(id: string, body: Record<string, unknown>): Operation {
    return {
      rest: { method: 'PATCH', path: `/access-control/users/${id}`, body },
      graphql: {
        query: `mutation($id: ID!, $firstName: String, $updatedBy: String!) { updateUser(id: $id, firstName: $firstName, updatedBy: $updatedBy) { id firstName } }`,
        variables: { id, ...body },
      },
    };
  },
};

const unchangedKeys = { db: async (before: number) => expect(await keyCount()).toBe(before) };

beforeAll(async () => {
  app = await startTestApp();
  admin = await app.createUser({ tenantId: TENANT, roles: ['admin'] });
});

afterAll(async () => {
  await app?.close();
});

runCases('values storage would not keep as sent', client, [
  apiCase({
    name: 'an API key name with a lone surrogate: 400 name/wellFormed, nothing stored',
    arrange: keyCount,
    caller: () => ({ token: admin.token }),
    operation: () => op.createKey({ name: `${LONE_HIGH}x`, scopes: ['menus:read'] }),
    expect: { status: 400, code: 'BAD_USER_INPUT', fieldErrors: [{ field: 'name', rule: 'wellFormed' }], ...unchangedKeys },
  }),
  apiCase({
    name: 'a lone surrogate in a metadata value or key: 400 metadata/wellFormed, the value not repeated',
    arrange: keyCount,
    caller: () => ({ token: admin.token }),
    operation: () => op.createKey({ name: 'fine', scopes: ['menus:read'], metadata: { k: LONE_LOW, nested: { [`a${LONE_HIGH}`]: 1 } } }),
    expect: {
      status: 400,
      code: 'BAD_USER_INPUT',
      fieldErrors: [{ field: 'metadata', rule: 'wellFormed' }],
      data: (_data, _before, outcome) => {
        const answered = JSON.stringify(outcome.raw.body);
        // JSON.stringify writes a lone surrogate as a \uXXXX escape: neither value sent comes back.
        for (const sent of [JSON.stringify(LONE_LOW), JSON.stringify(`a${LONE_HIGH}`)]) expect(answered).not.toContain(sent.slice(1, -1));
      },
      ...unchangedKeys,
    },
  }),
  apiCase({
    name: 'a metadata number beyond the finite (1e400): 400 metadata/finite, nothing stored',
    arrange: keyCount,
    caller: () => ({ token: admin.token }),
    operation: () => op.createKey({ name: 'fine', scopes: ['menus:read'], metadata: { a: rawNumber('1e400'), b: [rawNumber('-1e400')] } }),
    expect: { status: 400, code: 'BAD_USER_INPUT', fieldErrors: [{ field: 'metadata', rule: 'finite' }], ...unchangedKeys },
  }),
  apiCase({
    name: 'is named with every other failing rule at once',
    arrange: keyCount,
    caller: () => ({ token: admin.token }),
    operation: () => op.createKey({ name: `${LONE_HIGH}x`, scopes: ['menus:read'], rateLimit: 0, metadata: { a: rawNumber('1e400') } }),
    expect: {
      status: 400,
      code: 'BAD_USER_INPUT',
      fieldErrors: [
        { field: 'name', rule: 'wellFormed' },
        { field: 'rateLimit', rule: 'min' },
        { field: 'metadata', rule: 'finite' },
      ],
      ...unchangedKeys,
    },
  }),
  apiCase({
    name: 'a paired surrogate (an emoji) is well-formed: stored and answered as sent',
    caller: () => ({ token: admin.token }),
    operation: () => op.createKey({ name: 'chef 🍳', scopes: ['menus:read'], metadata: { '🍳': 'é😀' } }),
    expect: {
      status: 201,
      data: async (key) => {
        expect([key.name, key.metadata]).toEqual(['chef 🍳', { '🍳': 'é😀' }]);
        const stored = await app.db.collection('apikeys').findOne({ _id: new ObjectId(key.id ?? key._id) });
        expect([stored?.name, stored?.metadata]).toEqual(['chef 🍳', { '🍳': 'é😀' }]);
      },
    },
  }),
  apiCase({
    name: "a menu item's name with a lone surrogate: 400 items.0.name/wellFormed, with a type refusal beside it",
    arrange: menuCount,
    caller: () => ({ token: admin.token }),
    operation: () => op.createMenu({ name: 'Lunch', date: '2030-01-02', mealType: 'brunch', items: [{ name: `soup${LONE_LOW}` }] }),
    expect: {
      status: 400,
      code: 'BAD_USER_INPUT',
      fieldErrors: [
        { field: 'mealType', rule: 'type' },
        { field: 'items.0.name', rule: 'wellFormed' },
      ],
      db: async (before) => expect(await menuCount()).toBe(before),
    },
  }),
  apiCase({
    name: "a user's firstName with a lone surrogate: 400 firstName/wellFormed, the record unchanged",
    arrange: async () => app.createUser({ tenantId: TENANT, roles: ['member'] }),
    caller: () => ({ token: admin.token }),
    operation: (user) => op.updateUser(user.id, { firstName: `Ada${LONE_HIGH}`, updatedBy: admin.id }),
    expect: {
      status: 400,
      code: 'BAD_USER_INPUT',
      fieldErrors: [{ field: 'firstName', rule: 'wellFormed' }],
      db: async (user) => {
        const stored = await app.db.collection('users').findOne({ _id: new ObjectId(user.id) });
        expect(stored?.firstName).not.toContain('\ufffd');
        expect(stored?.updatedAt?.getTime()).toBe(stored?.createdAt?.getTime());
      },
    },
  }),
]);

runCases('free-form JSON written inline in a GraphQL document', client, [
  apiCase({
    name: 'a metadata literal 1e400: 400 metadata/finite',
    arrange: keyCount,
    caller: () => ({ token: admin.token }),
    operation: () => ({
      rest: { method: 'POST', path: '/api-keys', body: { name: 'inline', scopes: ['menus:read'], metadata: { a: rawNumber('1e400') } } },
      graphql: { query: 'mutation { createApiKey(name: "inline", scopes: ["menus:read"], metadata: {a: 1e400}) { id } }' },
    }),
    expect: { status: 400, code: 'BAD_USER_INPUT', fieldErrors: [{ field: 'metadata', rule: 'finite' }], ...unchangedKeys },
  }),
]);
