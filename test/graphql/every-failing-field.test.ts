import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';
import { apiCase, assertOutcome, callOperation, runCases, type ApiCase, type Operation, type Outcome } from '../support/surfaces.js';

/**
 * A refusal names every failing field at once, with its rule, also when one
 * of them is an enum or a scalar that GraphQL coercion refuses before any
 * class-validator rule runs; and it changes nothing. Each case runs over REST,
 * over GraphQL with variables (refused at variable coercion) and over GraphQL
 * with the same values written inline (refused by validation's
 * ValuesOfCorrectTypeRule), and asserts the exact fields and rules named and
 * that no collection of the database changed.
 */

let app: TestApp;
const client = () => app;
let admin: TestUser; // tenant admin (`*`)
let menuId: string;
let userId: string;

const TENANT = 'tenant-every-field';

// ---------------------------------------------------------------- operations

/** One operation of the table: REST form, GraphQL argument types, the selection. */
interface Shape {
  rest: (args: Record<string, unknown>) => Operation['rest'];
  field: string;
  types: Record<string, string>;
  selection: string;
}

/** Enum types: their values are written bare in an inline GraphQL document. */
const ENUMS = new Set(['MealType', 'IdentificationType']);

const shapes = {
  createMealMenu: {
    rest: (body) => ({ method: 'POST', path: '/restaurant/meal-menus', body }),
    field: 'createMealMenu',
    types: {
      name: 'String!', description: 'String', date: 'String!', mealType: 'MealType!', items: '[MealMenuItemInput!]',
      estimatedPortions: 'Int', tenant_id: 'String',
    },
    selection: 'id',
  },
  updateEstimatedPortions: {
    rest: ({ id, portions }) => ({ method: 'PATCH', path: `/restaurant/meal-menus/${String(id)}/estimated-portions/${String(portions)}` }),
    field: 'updateEstimatedPortions',
    types: { id: 'ID!', portions: 'Int!' },
    selection: 'id',
  },
  createUser: {
    rest: (body) => ({ method: 'POST', path: '/access-control/users', body }),
    field: 'createUser',
    types: {
      email: 'String!', password: 'String!', firstName: 'String!', lastName: 'String', mobile: 'String',
      identificationType: 'IdentificationType', social: 'SocialLinksInput', roles: '[String!]',
      createdBy: 'String!', updatedBy: 'String!', tenant_id: 'String',
    },
    selection: 'id',
  },
  updateUser: {
    rest: ({ id, ...body }) => ({ method: 'PATCH', path: `/access-control/users/${String(id)}`, body }),
    field: 'updateUser',
    types: {
      id: 'ID!', email: 'String', firstName: 'String', mobile: 'String', identificationType: 'IdentificationType',
      roles: '[String!]', updatedBy: 'String!',
    },
    selection: 'id',
  },
  createApiKey: {
    rest: (body) => ({ method: 'POST', path: '/api-keys', body }),
    field: 'createApiKey',
    types: {
      name: 'String!', description: 'String', scopes: '[String!]!', allowedOrigins: '[String!]', allowedIPs: '[String!]',
      expiresAt: 'DateTimeISO', rateLimit: 'Int', metadata: 'JSONObject',
    },
    selection: 'id',
  },
} satisfies Record<string, Shape>;

/** The operation with GraphQL variables. */
function withVariables(shape: Shape, args: Record<string, unknown>): Operation {
  const names = Object.keys(args);
  const declared = names.map((name) => `$${name}: ${shape.types[name]}`).join(', ');
  const passed = names.map((name) => `${name}: $${name}`).join(', ');
  return {
    rest: shape.rest(args),
    graphql: { query: `mutation(${declared}) { ${shape.field}(${passed}) { ${shape.selection} } }`, variables: args },
  };
}

/** The same operation with every value written inline in the document. */
function withLiterals(shape: Shape, args: Record<string, unknown>): Operation {
  const passed = Object.entries(args).map(
    ([name, value]) => `${name}: ${literal(value, ENUMS.has(shape.types[name]!.replace(/!$/, '')))}`,
  );
  return { rest: shape.rest(args), graphql: { query: `mutation { ${shape.field}(${passed.join(', ')}) { ${shape.selection} } }` } };
}

function literal(value: unknown, isEnum: boolean): string {
  if (isEnum && typeof value === 'string' && /^[_A-Za-z]\w*$/.test(value)) return value;
  if (Array.isArray(value)) return `[${value.map((item) => literal(item, isEnum)).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value).map(([key, item]) => `${key}: ${literal(item, false)}`).join(', ')}}`;
  }
  return JSON.stringify(value);
}

// ------------------------------------------------------------------- cases

interface FailingCase {
  name: string;
  shape: Shape;
  args: () => Record<string, unknown>;
  /** Every field the refusal must name, with exactly these rules. */
  fields: Record<string, string[]>;
}

const failing: FailingCase[] = [
  {
    name: 'createMealMenu: an unknown mealType, a day that does not exist and negative portions',
    shape: shapes.createMealMenu,
    args: () => ({ name: 'Lunch', date: '2026-02-30', mealType: 'brunch', estimatedPortions: -1 }),
    fields: { mealType: ['type'], date: ['isCalendarDate'], estimatedPortions: ['min'] },
  },
  {
    name: 'createMealMenu: portions that are no integer, an unknown mealType, an empty name, an unnamed dish',
    shape: shapes.createMealMenu,
    args: () => ({ name: '', date: '2026-03-03', mealType: 'BRUNCH', estimatedPortions: 'many', items: [{ name: '', allergens: [] }] }),
    fields: { estimatedPortions: ['type'], mealType: ['type'], name: ['isLength'], 'items.0.name': ['isLength'] },
  },
  {
    name: 'updateEstimatedPortions: a malformed id and portions that are no integer',
    shape: shapes.updateEstimatedPortions,
    args: () => ({ id: 'not-an-id', portions: 'x' }),
    fields: { id: ['isMongoId'], portions: ['type'] },
  },
  {
    name: 'updateEstimatedPortions: portions that are no integer on an existing menu',
    shape: shapes.updateEstimatedPortions,
    args: () => ({ id: menuId, portions: 1.5 }),
    fields: { portions: ['type'] },
  },
  {
    name: 'createUser: an unknown identificationType, an unknown social key and four broken rules',
    shape: shapes.createUser,
    args: () => ({
      email: 'not-an-email',
      password: 'short',
      firstName: 'Ada',
      mobile: '12',
      identificationType: 'DNI',
      social: { myspace: 'https://myspace.example.test/ada' },
      createdBy: 'nope',
      updatedBy: admin.id,
    }),
    fields: {
      email: ['isEmail'],
      password: ['isAcceptablePassword'],
      mobile: ['matches'],
      identificationType: ['type'],
      'social.myspace': ['unknown'],
      createdBy: ['isMongoId'],
    },
  },
  {
    name: 'updateUser: an unknown identificationType, roles that are no list of strings, a cleared firstName, a bad email and updatedBy',
    shape: shapes.updateUser,
    args: () => ({ id: userId, identificationType: 'XX', roles: [7, { admin: true }], firstName: null, email: 'bad', updatedBy: 'nope' }),
    fields: {
      identificationType: ['type'],
      'roles.0': ['type'],
      'roles.1': ['type'],
      firstName: ['isDefined'],
      email: ['isEmail'],
      updatedBy: ['isMongoId'],
    },
  },
  {
    name: 'updateUser: an unknown role id and a mobile that is no string',
    shape: shapes.updateUser,
    args: () => ({ id: userId, roles: ['superuser'], mobile: 5550100, updatedBy: admin.id }),
    fields: { roles: ['matches'], mobile: ['type'] },
  },
  {
    name: 'createApiKey: an expiresAt, rateLimit and metadata of the wrong type, no scopes, an empty name, a bad IP',
    shape: shapes.createApiKey,
    args: () => ({ name: '', scopes: [], allowedIPs: ['999.1.1.1'], expiresAt: 'next week', rateLimit: 1.5, metadata: ['a', 'b'] }),
    fields: {
      expiresAt: ['type'],
      rateLimit: ['type'],
      metadata: ['type'],
      name: ['isLength'],
      scopes: ['arrayMinSize'],
      allowedIPs: ['isIpOrCidr'],
    },
  },
  {
    name: 'createApiKey: a name that is no string and a missing scopes list, with an expiresAt in the past',
    shape: shapes.createApiKey,
    args: () => ({ name: 42, expiresAt: '2001-01-01T00:00:00Z' }),
    fields: { name: ['type'], scopes: ['required'], expiresAt: ['isFutureDate'] },
  },
];

/**
 * Every document of every collection, to prove a refusal wrote nothing anywhere; but the webhook
 * fan-out's watermark, stored up to a second after the events of an earlier case whatever the
 * request (a busy machine stored it during a refused call).
 */
async function snapshot(): Promise<Record<string, unknown[]>> {
  const collections = (await app.db.listCollections({}, { nameOnly: true }).toArray()).filter(({ name }) => name !== 'webhookcursors');
  const entries = await Promise.all(
    collections.map(async ({ name }) => [name, await app.db.collection(name).find().sort({ _id: 1 }).toArray()] as const),
  );
  return Object.fromEntries(entries.sort(([a], [b]) => a.localeCompare(b)));
}

/** The fields named, each with the rules it broke (sorted, so the comparison is exact). */
function namedFields(outcome: Outcome): Record<string, string[]> {
  const named: Record<string, string[]> = {};
  for (const { field, rule } of outcome.fieldErrors) (named[field] ??= []).push(rule);
  return Object.fromEntries(Object.entries(named).map(([field, rules]) => [field, rules.sort()]));
}

function asApiCase(c: FailingCase, form: (shape: Shape, args: Record<string, unknown>) => Operation): ApiCase<Record<string, unknown[]>> {
  return apiCase({
    name: `${c.name}: one 400 naming ${Object.keys(c.fields).join(', ')}`,
    arrange: snapshot,
    caller: () => admin,
    operation: () => form(c.shape, c.args()),
    expect: {
      status: 400,
      code: 'BAD_USER_INPUT',
      db: async (before, outcome) => {
        const why = JSON.stringify(outcome.raw.body);
        // The HTTP status too, on both surfaces; GraphQL answers one error, carrying the whole list.
        expect(outcome.raw.status, why).toBe(400);
        if (outcome.surface === 'graphql') expect((outcome.raw.body as { errors: unknown[] }).errors, why).toHaveLength(1);
        const expected = Object.fromEntries(Object.entries(c.fields).map(([field, rules]) => [field, [...rules].sort()]));
        expect(namedFields(outcome), why).toEqual(expected);
        for (const error of outcome.fieldErrors) expect(error.message, why).toEqual(expect.any(String));
        expect(await snapshot()).toEqual(before);
      },
    },
  });
}

runCases(
  'Every failing field at once (REST; GraphQL with variables)',
  client,
  failing.map((c) => asApiCase(c, withVariables)),
);

describe('Every failing field at once (GraphQL with inline values)', () => {
  for (const c of failing) {
    const apiCaseOf = asApiCase(c, withLiterals);
    it(apiCaseOf.name, async () => {
      const before = await snapshot();
      const outcome = await callOperation(client(), 'graphql', apiCaseOf.operation(before), apiCaseOf.caller(before));
      await assertOutcome(outcome, apiCaseOf.expect, before);
    });
  }
});

describe('Every failing field at once: how the fields are named', () => {
  /** The refusal's fields and rules, from a GraphQL document or a REST call; asserts one 400 and nothing written. */
  async function refusedFields(call: () => Promise<Outcome>): Promise<Record<string, string[]>> {
    const before = await snapshot();
    const outcome = await call();
    expect([outcome.status, outcome.code], JSON.stringify(outcome.raw.body)).toEqual([400, 'BAD_USER_INPUT']);
    expect(await snapshot()).toEqual(before);
    return namedFields(outcome);
  }
  const graphql = (query: string, variables?: Record<string, unknown>) => () =>
    callOperation(client(), 'graphql', { rest: { method: 'GET', path: '/' }, graphql: { query, variables } }, admin);

  it('a variable is named by the argument it is, whatever the variable is called', async () => {
    const fields = await refusedFields(
      graphql('mutation($p: Int!, $which: ID!) { updateEstimatedPortions(id: $which, portions: $p) { id } }', { p: 'x', which: 'nope' }),
    );
    expect(fields).toEqual({ portions: ['type'], id: ['isMongoId'] });
  });

  it('an enum written as a string literal, an item missing its name and a variable of the wrong type, in one document', async () => {
    const fields = await refusedFields(
      graphql(
        `mutation($portions: Int) { createMealMenu(name: "", date: "2026-03-03", mealType: "lunch",
          items: [{description: "x"}], estimatedPortions: $portions) { id } }`,
        { portions: 'ten' },
      ),
    );
    expect(fields).toEqual({ mealType: ['type'], 'items.0.name': ['required'], estimatedPortions: ['type'], name: ['isLength'] });
  });

  it('a nullable variable given null where the argument is non-null is named by the argument, not refused as a document', async () => {
    const fields = await refusedFields(graphql('query($l: Int) { mealMenus(limit: $l) { nextCursor } }', { l: null }));
    expect(fields).toEqual({ limit: ['required'] });
    const spread = await refusedFields(
      graphql('query($l: Int) { ...Menus } fragment Menus on Query { mealMenus(limit: $l) { nextCursor } }', { l: null }),
    );
    expect(spread).toEqual({ limit: ['required'] });
    const inline = await refusedFields(graphql('query($l: Int) { ... on Query { mealMenus(limit: $l) { nextCursor } } }', { l: null }));
    expect(inline).toEqual({ limit: ['required'] });
    const withRules = await refusedFields(
      graphql('mutation($items: [MealMenuItemInput!]) { createMealMenu(name: "", date: "2026-03-03", mealType: lunch, items: $items) { id } }', { items: null }),
    );
    expect(withRules).toEqual({ items: ['required'], name: ['isLength'] });
  });

  it('over REST, an unknown body field is named with the values that fail', async () => {
    const rest = shapes.createMealMenu.rest({ nme: 'Lunch', date: '2026-02-30', mealType: 'brunch' });
    const fields = await refusedFields(() => callOperation(client(), 'rest', { rest, graphql: { query: '' } }, admin));
    expect(fields).toEqual({ nme: ['unknown'], name: ['required'], mealType: ['type'], date: ['isCalendarDate'] });
  });

  it('over REST, an unknown body field is named with the rules the other values break', async () => {
    // Every value reads (no type failure): the rules would otherwise wait for the client to drop `nme`.
    const rest = shapes.createMealMenu.rest({ nme: 'Lunch', name: '', date: '2026-02-30', mealType: 'lunch' });
    const fields = await refusedFields(() => callOperation(client(), 'rest', { rest, graphql: { query: '' } }, admin));
    expect(fields).toEqual({ nme: ['unknown'], name: ['isLength'], date: ['isCalendarDate'] });
  });

  it('over REST, a misplaced argument is named with the rules the others break, and not checked itself', async () => {
    const rest = { ...shapes.createMealMenu.rest({ name: '', date: '2026-03-03', mealType: 'lunch' }) };
    rest.path = `${rest.path}?estimatedPortions=-5`;
    const fields = await refusedFields(() => callOperation(client(), 'rest', { rest, graphql: { query: '' } }, admin));
    expect(fields).toEqual({ estimatedPortions: ['inBody'], name: ['isLength'] });
  });

  it('says what a value must be, not what was sent', async () => {
    const body = {
      email: 'a@b.test',
      password: 12345678,
      firstName: 'Ada',
      identificationType: 'DNI',
      createdBy: admin.id,
      updatedBy: admin.id,
    };
    const outcome = await callOperation(client(), 'rest', withVariables(shapes.createUser, body), admin);
    expect(outcome.fieldErrors).toEqual([
      { field: 'password', rule: 'type', message: 'password must be a string' },
      { field: 'identificationType', rule: 'type', message: 'identificationType must be one of CC, CE, PA, TI, NIT' },
    ]);
    expect(JSON.stringify(outcome.raw.body)).not.toContain('12345678');
  });
});

describe('Every failing field at once: what stays as it was', () => {
  it('a document error that is no argument value keeps graphql-js own answer', async () => {
    const document = `mutation { createMealMenu(name: "x", date: "2026-03-03", mealType: brunch) { id nope } }`;
    const response = await app.graphql(document, undefined, { token: admin.token });
    const codes = (response.body.errors as { extensions: { code: string } }[]).map((error) => error.extensions.code);
    expect(codes, JSON.stringify(response.body)).toContain('GRAPHQL_VALIDATION_FAILED');
  });

  it('values that all read still meet authorization first (403 before the rules)', async () => {
    const member = await app.createUser({ tenantId: TENANT, roles: ['member'] });
    const outcome = await callOperation(
      client(),
      'graphql',
      withVariables(shapes.createMealMenu, { name: '', date: '2026-02-30', mealType: 'lunch', estimatedPortions: -1 }),
      { token: member.token },
    );
    expect(outcome.code).toBe('FORBIDDEN');
  });
});

beforeAll(async () => {
  app = await startTestApp();
  admin = await app.createUser({ tenantId: TENANT, roles: ['admin'] });
  const menu = await app.rest('POST', '/restaurant/meal-menus', {
    token: admin.token,
    body: { name: 'Standing menu', date: '2026-03-03', mealType: 'lunch', estimatedPortions: 10 },
  });
  if (menu.status !== 201) throw new Error(`createMealMenu answered ${menu.status}: ${JSON.stringify(menu.body)}`);
  menuId = menu.body.id;
  const user = await app.createUser({ tenantId: TENANT, roles: ['member'], firstName: 'Grace' });
  userId = user.id;
});

afterAll(async () => {
  await app?.close();
});
