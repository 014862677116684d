import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { isEmail, isURL } from 'class-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';
import { apiCase, callOperation, runCases, SURFACES, type Caller, type Operation } from '../support/surfaces.js';

/**
 * Schemas by name (description 4.7, contract "Schemas"): the JSON Schema of
 * each type, derived from the declarations GraphQL and validation use, over
 * REST and GraphQL; and real records read through the API validate against
 * their own schema.
 */

let app: TestApp;
const client = () => app;
const TENANT = 'tenant-schemas';
let admin: TestUser;
let member: TestUser;
let roleless: TestUser;

const as = (user: TestUser): Caller => ({ token: user.token });

const op = {
  names(): Operation {
    return { rest: { method: 'GET', path: '/schemas' }, graphql: { query: 'query { schemaNames }' } };
  },
  schema(schemaName: string): Operation {
    return {
      rest: { method: 'GET', path: `/schemas/${encodeURIComponent(schemaName)}` },
      graphql: { query: 'query($schemaName: String!) { schema(schemaName: $schemaName) }', variables: { schemaName } },
    };
  },
};

beforeAll(async () => {
  app = await startTestApp();
  [admin, member, roleless] = await Promise.all([
    app.createUser({ tenantId: TENANT, roles: ['admin'] }),
    app.createUser({ tenantId: TENANT, roles: ['member'] }),
    app.createUser({ tenantId: TENANT, roles: [] }),
  ]);
});

afterAll(async () => {
  await app?.close();
});

type Schema = { properties: Record<string, Record<string, any>>; required?: string[] };

const REF_PREFIX = '#/components/schemas/';

/** The names a schema refers to (`$ref: '#/components/schemas/<name>'`). */
function referencedNames(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(referencedNames);
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) =>
    key === '$ref' && typeof inner === 'string' && inner.startsWith(REF_PREFIX) ? [inner.slice(REF_PREFIX.length)] : referencedNames(inner),
  );
}

/** A schema the lookup answered, by name, for a check inside a case. */
const lookedUp = async (name: string) => (await callOperation(client(), 'rest', op.schema(name), as(member))).data as Schema;

runCases('schemas by name', client, [
  apiCase({
    name: 'lists the names: the types, and each mutation input',
    caller: () => as(member),
    operation: () => op.names(),
    expect: {
      status: 200,
      data: (names: string[]) => {
        expect(names).toEqual(expect.arrayContaining(['ApiKey', 'User', 'CreateUserInput', 'UpdateUserInput', 'MealMenu', 'AuditEvent', 'Role']));
        expect(names).toEqual([...names].sort());
        expect(names.filter((name) => ['Query', 'Mutation'].includes(name) || name.startsWith('__'))).toEqual([]);
      },
    },
  }),
  apiCase({
    name: "answers CreateUserInput with every rule of 2.2 and the required list",
    caller: () => as(member),
    operation: () => op.schema('CreateUserInput'),
    expect: {
      status: 200,
      data: async (schema: Schema) => {
        expect(schema.required).toEqual(['email', 'password', 'firstName', 'createdBy', 'updatedBy']);
        const p = schema.properties;
        expect(p.email).toMatchObject({ type: 'string', format: 'idn-email' });
        expect(p.password).toMatchObject({ minLength: 6, maxLength: 50, format: 'password' });
        expect(new RegExp(p.password.pattern).test('abcdef1')).toBe(false);
        expect(new RegExp(p.password.pattern).test('Abcdef1')).toBe(true);
        expect(p.firstName).toMatchObject({ minLength: 1 });
        expect(p.mobile.pattern).toBe('^\\+?\\d{7,15}$');
        expect(p.profilePicture).toMatchObject({ format: 'iri' });
        expect(JSON.stringify(p.identificationType)).toContain('"enum":["CC","CE","PA","TI","NIT"]');
        expect(p.createdBy.pattern).toBe('^[0-9a-fA-F]{24}$');
        expect(p.roles).toMatchObject({ maxItems: 20, items: { pattern: '^(admin|member|[0-9a-f]{24})$' } });
        // A nested input is its own schema, referred to as the OpenAPI document's component of that name.
        expect(referencedNames(p.social)).toEqual(['SocialLinksInput']);
        expect((await lookedUp('SocialLinksInput')).properties.twitter).toMatchObject({ format: 'iri' });
        expect((schema as { additionalProperties?: boolean }).additionalProperties).toBe(false);
      },
    },
  }),
  apiCase({
    name: 'answers UpdateUserInput (the REST body: the id is in the path): the same rules, only updatedBy required',
    caller: () => as(member),
    operation: () => op.schema('UpdateUserInput'),
    expect: {
      status: 200,
      data: (schema: Schema) => {
        expect(schema.required).toEqual(['updatedBy']);
        expect(Object.keys(schema.properties)).not.toContain('id');
        expect(schema.properties.password).toMatchObject({ minLength: 6, maxLength: 50 });
      },
    },
  }),
  apiCase({
    name: 'answers bounds, enums, defaults and formats of the menu input',
    caller: () => as(member),
    operation: () => op.schema('CreateMealMenuInput'),
    expect: {
      status: 200,
      data: async (schema: Schema) => {
        expect(schema.properties.estimatedPortions).toMatchObject({ type: 'integer', minimum: 0 });
        expect(schema.properties.date).toMatchObject({ format: 'date' });
        expect(schema.properties.mealType).toMatchObject({ $ref: `${REF_PREFIX}MealType` });
        expect(await lookedUp('MealType')).toMatchObject({ enum: ['breakfast', 'lunch', 'dinner', 'snack'] });
        expect(schema.properties.items).toMatchObject({ type: 'array', default: [] });
      },
    },
  }),
  apiCase({
    name: "gives a record type's fields the rules of the inputs that write them, not only GraphQL's Int range",
    caller: () => as(member),
    operation: () => op.schema('MealMenu'),
    expect: {
      status: 200,
      data: async (schema: Schema) => {
        expect(schema.properties.estimatedPortions).toMatchObject({ type: 'integer', minimum: 0 });
        expect(schema.properties.name).toMatchObject({ minLength: 1, maxLength: 200 });
        expect(schema.properties.date).toMatchObject({ format: 'date' });
        expect((await lookedUp('MealMenuItem')).properties.allergens).toMatchObject({ maxItems: 50, items: { minLength: 1, maxLength: 100 } });
      },
    },
  }),
  apiCase({
    name: 'gives an API key and the key answered with its secret the same rules (rateLimit 1 to 1000000)',
    caller: () => as(member),
    operation: () => op.schema('ApiKeyWithSecret'),
    expect: {
      status: 200,
      data: async (schema: Schema) => {
        const record = (await callOperation(client(), 'rest', op.schema('ApiKey'), as(member))).data as Schema;
        for (const found of [schema, record]) expect(found.properties.rateLimit).toMatchObject({ type: 'integer', minimum: 1, maximum: 1_000_000 });
      },
    },
  }),
  apiCase({
    name: 'answers every listed name, and no record schema exposes a password, a hash or a key secret',
    caller: () => as(member),
    operation: () => op.names(),
    expect: {
      status: 200,
      data: async (names: string[]) => {
        for (const name of names) {
          const outcome = await callOperation(client(), 'rest', op.schema(name), as(member));
          expect([name, outcome.status, typeof outcome.raw.body.type === 'string' || Array.isArray(outcome.raw.body.enum)]).toEqual([name, 200, true]);
          if (name.endsWith('Input') || name === 'ApiKeyWithSecret' || name === 'CreatedWebhook' || name === 'AccessToken') continue;
          expect(JSON.stringify(Object.keys(outcome.raw.body.properties ?? {})), name).not.toMatch(/password|hash|secret/i);
        }
      },
    },
  }),
  apiCase({
    name: 'answers 404 naming the known schemas for an unknown name',
    caller: () => as(member),
    operation: () => op.schema('NoSuchThing'),
    expect: {
      status: 404,
      code: 'NOT_FOUND',
      data: (_data, _f, outcome) => expect(outcome.message).toMatch(/NoSuchThing.*known schemas: .*CreateUserInput.*User/),
    },
  }),
  apiCase({
    name: 'needs schemas:read (403 without)',
    caller: () => as(roleless),
    operation: () => op.schema('User'),
    expect: { status: 403, code: 'FORBIDDEN' },
  }),
  apiCase({
    name: 'needs a credential (401)',
    caller: () => ({}),
    operation: () => op.names(),
    expect: { status: 401, code: 'UNAUTHENTICATED' },
  }),
]);

describe('real records against their own schema', () => {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats.default(ajv);
  // JSON Schema's own formats for absolute IRIs and internationalised addresses, which ajv-formats
  // leaves out (and ajv would ignore, with a warning each compile): checked as the service checks them.
  ajv.addFormat('iri', (value: string) => isURL(value, { require_protocol: true, require_valid_protocol: false }));
  ajv.addFormat('idn-email', (value: string) => isEmail(value));

  async function schemaOf(name: string, surface: (typeof SURFACES)[number] = 'rest') {
    return (await callOperation(client(), surface, op.schema(name), as(member))).data as Schema;
  }

  /**
   * A validator of one schema as a client builds it from the lookup alone
   * (docs/api.md): the schema and every schema it refers to, each read by
   * name, under `components.schemas` of one document, so the references
   * resolve as in the OpenAPI document.
   */
  let documents = 0;
  async function validatorOf(name: string, surface: (typeof SURFACES)[number] = 'rest') {
    const schemas: Record<string, unknown> = {};
    const pending = [name];
    while (pending.length > 0) {
      const next = pending.pop()!;
      if (next in schemas) continue;
      schemas[next] = await schemaOf(next, surface);
      pending.push(...referencedNames(schemas[next]));
    }
    const id = `lookup-${surface}-${++documents}`;
    ajv.addSchema({ components: { schemas } }, id);
    return ajv.getSchema(`${id}${REF_PREFIX}${name}`)!;
  }

  it.each(SURFACES)('a user, a meal menu, an API key, a role and an audit event validate against the schema read over %s', async (surface) => {
    const created = await app.rest('POST', '/access-control/users', {
      token: admin.token,
      body: {
        email: `valid.${surface}@example.test`,
        password: 'Str0ng-Pass',
        firstName: 'Ada',
        mobile: '+573001234567',
        identificationType: 'CC',
        social: { twitter: 'https://twitter.com/ada' },
        createdBy: admin.id,
        updatedBy: admin.id,
      },
    });
    const menu = await app.rest('POST', '/restaurant/meal-menus', {
      token: admin.token,
      body: { name: 'Lunch', date: '2026-03-03', mealType: 'lunch', items: [{ name: 'Soup', allergens: ['celery'] }], estimatedPortions: 40 },
    });
    const key = await app.rest('POST', '/api-keys', { token: admin.token, body: { name: 'valid', scopes: ['menus:read'], metadata: { team: 'kitchen' } } });
    const role = await app.rest('POST', '/access-control/roles', { token: admin.token, body: { name: `valid-${surface}`, permissions: ['menus:read'] } });
    const audit = await app.rest('GET', '/audit-events?limit=1', { token: admin.token });
    const records: [string, unknown][] = [
      ['User', created.body],
      ['MealMenu', menu.body],
      ['ApiKeyWithSecret', key.body],
      ['ApiKey', (await app.rest('GET', `/api-keys/${key.body._id}`, { token: admin.token })).body],
      ['Role', role.body],
      ['AuditEvent', audit.body.items[0]],
    ];
    for (const [name, record] of records) {
      const validate = await validatorOf(name, surface);
      expect([name, validate(record) ? [] : validate.errors]).toEqual([name, []]);
    }
  });

  /**
   * Every record type against the input that creates it: each field both
   * have carries the same rules (the type's Int range only where no rule is
   * narrower). AuditEvent has no such input: the service alone writes it.
   */
  it.each(SURFACES)('every record type carries the rules of the input that writes its fields (%s)', async (surface) => {
    const RULES = ['minimum', 'maximum', 'minLength', 'maxLength', 'pattern', 'format', 'maxItems', 'uniqueItems'];
    const rulesOf = (property: Record<string, any> | undefined): Record<string, unknown> => {
      const typed = property?.anyOf?.[0] ?? property ?? {};
      const own = Object.fromEntries(RULES.filter((rule) => rule in typed).map((rule) => [rule, typed[rule]]));
      return typed.items ? { ...own, items: rulesOf(typed.items) } : own;
    };
    const pairs = [['User', 'CreateUserInput'], ['MealMenu', 'CreateMealMenuInput'], ['ApiKey', 'CreateApiKeyInput'], ['Role', 'CreateRoleInput']];
    for (const [record, input] of pairs) {
      const [recordSchema, inputSchema] = (await Promise.all([schemaOf(record!, surface), schemaOf(input!, surface)])) as unknown as Schema[];
      const shared = Object.keys(inputSchema!.properties).filter((field) => field in recordSchema!.properties);
      expect(shared.length, record).toBeGreaterThan(2);
      for (const field of shared) {
        expect([record, field, rulesOf(recordSchema!.properties[field])]).toEqual([record, field, rulesOf(inputSchema!.properties[field])]);
      }
    }
  });

  it('the built-in roles validate against the Role schema too (they are answered, never written)', async () => {
    const validate = await validatorOf('Role');
    const { body } = await app.rest('GET', '/access-control/roles?limit=100', { token: admin.token });
    const builtIn = body.items.filter((role: { builtIn: boolean }) => role.builtIn);
    expect(builtIn.map((role: { name: string }) => role.name)).toEqual(['admin', 'member']);
    for (const role of builtIn) expect([role.name, validate(role) ? [] : validate.errors]).toEqual([role.name, []]);
  });

  /**
   * The same values sent to the service and checked against the derived
   * schema of the same input: each pair of verdicts must agree. A row is the
   * schema (the REST body), one field and its value; the rest of the body is
   * valid.
   */
  it('takes and refuses the same values as the service does', async () => {
    const target = await app.createUser({ tenantId: TENANT, roles: ['member'] });
    let n = 0;
    const bodies: Record<string, () => { method: 'POST' | 'PATCH'; path: string; body: Record<string, unknown> }> = {
      CreateUserInput: () => ({
        method: 'POST',
        path: '/access-control/users',
        body: { email: `agree${n++}@example.test`, password: 'Str0ng-Pass', firstName: 'A', createdBy: admin.id, updatedBy: admin.id },
      }),
      // The path carries the id; the schema is the body, without it.
      UpdateUserInput: () => ({ method: 'PATCH', path: `/access-control/users/${target.id}`, body: { updatedBy: admin.id } }),
      CreateMealMenuInput: () => ({ method: 'POST', path: '/restaurant/meal-menus', body: { name: 'Lunch', date: '2026-03-03', mealType: 'lunch' } }),
      CreateApiKeyInput: () => ({ method: 'POST', path: '/api-keys', body: { name: `agree${n++}`, scopes: ['menus:read'] } }),
    };
    const cases: [keyof typeof bodies, string, unknown][] = [
      ['CreateUserInput', 'profilePicture', 'https://cdn.example.com/ada.png'],
      ['CreateUserInput', 'profilePicture', 'http://203.0.113.7/ada.png'],
      ['CreateUserInput', 'profilePicture', 'https://example.com:8443/a?b=c#d'],
      ['CreateUserInput', 'profilePicture', 'javascript:alert(1)'],
      ['CreateUserInput', 'profilePicture', 'ftp://files.example.com/a.png'],
      ['CreateUserInput', 'profilePicture', 'http://localhost/a.png'],
      ['CreateUserInput', 'profilePicture', 'https://'],
      ['CreateUserInput', 'profilePicture', 'http://a.co:99999/x'],
      ['CreateUserInput', 'profilePicture', 'http://a.co:65535/x'],
      ['CreateUserInput', 'profilePicture', 'HTTP://a.co/x'],
      ['CreateUserInput', 'profilePicture', 'https://ü.example.test/a.png'],
      ['CreateUserInput', 'profilePicture', 'http://999.1.1.1/x'],
      ['CreateUserInput', 'profilePicture', 'http://[::1]:8080/x'],
      ['CreateUserInput', 'social', { twitter: 'HTTP://twitter.com/ada' }],
      ['CreateUserInput', 'social', { twitter: 'https://twitter.com:99999/ada' }],
      ['CreateUserInput', 'social', { mastodon: 'https://mastodon.social/@ada' }],
      ['CreateUserInput', 'email', 'ada@example.test'],
      ['CreateUserInput', 'email', 'ü@example.test'],
      ['CreateUserInput', 'email', 'a@b.c'],
      ['CreateUserInput', 'email', 'no-at-sign.example.test'],
      ['CreateUserInput', 'email', 'a..b@b.co'],
      ['CreateUserInput', 'email', '.a@b.co'],
      ['CreateUserInput', 'email', 'a.b@b-.co'],
      ['CreateUserInput', 'email', `${'a'.repeat(65)}@b.co`],
      ['CreateUserInput', 'email', '"a b"@b.co'],
      ['CreateUserInput', 'password', 'Abc\nde1'],
      ['CreateUserInput', 'password', 'Abcdef'],
      ['CreateUserInput', 'password', 'abc de1'],
      ['CreateUserInput', 'nickname', 'x'],
      ['UpdateUserInput', 'email', null],
      ['UpdateUserInput', 'password', null],
      ['UpdateUserInput', 'firstName', null],
      ['UpdateUserInput', 'createdBy', null],
      ['UpdateUserInput', 'tenant_id', null],
      ['UpdateUserInput', 'mobile', null],
      ['UpdateUserInput', 'lastName', null],
      ['UpdateUserInput', 'firstName', 'Grace'],
      ['CreateMealMenuInput', 'estimatedPortions', 2147483647],
      ['CreateMealMenuInput', 'estimatedPortions', 2147483648],
      ['CreateMealMenuInput', 'estimatedPortions', -1],
      ['CreateMealMenuInput', 'date', '0000-01-01'],
      ['CreateMealMenuInput', 'date', '0099-12-31'],
      ['CreateMealMenuInput', 'date', '0100-01-01'],
      ['CreateMealMenuInput', 'date', '2024-02-29'],
      ['CreateMealMenuInput', 'date', '2026-02-29'],
      ['CreateMealMenuInput', 'items', [{ name: 'Soup' }]],
      ['CreateMealMenuInput', 'items', [{ name: 'Soup', spicy: true }]],
      ['CreateMealMenuInput', 'items', [{ name: '' }]],
      ['CreateMealMenuInput', 'items', [{ name: 'Soup', allergens: ['x'.repeat(101)] }]],
      ['CreateApiKeyInput', 'allowedOrigins', ['https://a.co']],
      ['CreateApiKeyInput', 'allowedOrigins', ['https://A.co']],
      ['CreateApiKeyInput', 'allowedOrigins', ['https://a.co/']],
      ['CreateApiKeyInput', 'allowedOrigins', ['https://a.co:443']],
      ['CreateApiKeyInput', 'allowedOrigins', ['http://a.co:443']],
      ['CreateApiKeyInput', 'allowedOrigins', ['http://localhost:3000']],
      ['CreateApiKeyInput', 'allowedOrigins', ['http://1.2.3']],
      ['CreateApiKeyInput', 'allowedIPs', ['10.0.0.1']],
      ['CreateApiKeyInput', 'allowedIPs', ['999.1.1.1']],
      ['CreateApiKeyInput', 'allowedIPs', ['10.0.0.0/33']],
      ['CreateApiKeyInput', 'allowedIPs', ['2001:db8::/32']],
      ['CreateApiKeyInput', 'allowedIPs', ['2001:db8::/129']],
      ['CreateApiKeyInput', 'allowedIPs', ['::ffff:10.0.0.1']],
      ['CreateApiKeyInput', 'allowedIPs', ['fe80::1%eth0']],
      ['CreateApiKeyInput', 'rateLimit', 2147483648],
    ];
    const validators = new Map<string, Awaited<ReturnType<typeof validatorOf>>>();
    const verdicts: [string, string, unknown, boolean][] = [];
    const expected: [string, string, unknown, boolean][] = [];
    for (const [schemaName, field, value] of cases) {
      if (!validators.has(schemaName)) validators.set(schemaName, await validatorOf(schemaName));
      const { method, path, body } = bodies[schemaName]!();
      const answer = await app.rest(method, path, { token: admin.token, body: { ...body, [field]: value } });
      expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(500);
      verdicts.push([schemaName, field, value, validators.get(schemaName)!({ ...body, [field]: value }) as boolean]);
      expected.push([schemaName, field, value, answer.status < 300]);
    }
    expect(verdicts).toEqual(expected);
  });

  it('a record that breaks a rule does not validate (the schema carries the rule)', async () => {
    const validate = await validatorOf('CreateUserInput');
    const valid = { email: 'a@example.test', password: 'Str0ng-Pass', firstName: 'A', createdBy: admin.id, updatedBy: admin.id };
    expect(validate(valid)).toBe(true);
    for (const broken of [{ mobile: '12' }, { password: 'weak' }, { email: 'nope' }, { identificationType: 'XX' }, { nickname: 'x' }]) {
      expect(validate({ ...valid, ...broken }), JSON.stringify(broken)).toBe(false);
    }
  });
});
