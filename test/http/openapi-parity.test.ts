import SwaggerParser from '@apidevtools/swagger-parser';
import { isInputObjectType, isNonNullType, isObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServiceSchema, restRoutes } from '../../src/service.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Parity of the surfaces: every GraphQL operation has its REST route and its
 * OpenAPI entry (operationId = the operation), and the OpenAPI document
 * describes nothing else; the document passes an OpenAPI validator and
 * documents each route's problem+json refusals.
 */

let app: TestApp;
let document: { paths: Record<string, Record<string, { operationId?: string; tags?: string[]; responses: Record<string, any> }>>; components: { schemas: Record<string, unknown> } };
beforeAll(async () => {
  app = await startTestApp();
  document = (await app.http('GET', '/api/v1/openapi.json')).body;
});
afterAll(() => app?.close());

const schema = await buildServiceSchema();
const operations = [
  ...Object.keys(schema.getQueryType()?.getFields() ?? {}).map((name) => `Query.${name}`),
  ...Object.keys(schema.getMutationType()?.getFields() ?? {}).map((name) => `Mutation.${name}`),
];

/** A body or property schema, its `$ref` followed to the component. */
const resolved = (value: any): any => (value?.$ref ? document.components.schemas[value.$ref.slice('#/components/schemas/'.length)] : value);

/** JSON Schema 2020-12's null: a `null` type, or an `anyOf` branch of it (a reference that may be null). */
const takesNull = (property: any): boolean =>
  (Array.isArray(property?.type) && property.type.includes('null')) || (Array.isArray(property?.anyOf) && property.anyOf.some((branch: any) => branch.type === 'null'));

const documented = () =>
  Object.entries(document.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ path, method, operation })));

const bodyOf = (path: string, method: string) => resolved((document.paths[path] as any)[method].requestBody.content['application/json'].schema);

describe('parity of GraphQL, REST and OpenAPI', () => {
  it('documents every operation under its route, with the operation as operationId', () => {
    const missing = operations.filter((key) => {
      const route = restRoutes[key as keyof typeof restRoutes];
      const entry = document.paths[(route?.path ?? '').replace(/:(\w+)/g, '{$1}')]?.[(route?.method ?? 'GET').toLowerCase()];
      return entry?.operationId !== key.split('.')[1];
    });
    expect(missing).toEqual([]);
  });

  it('documents no route that is no operation', () => {
    const names = new Set(operations.map((key) => key.split('.')[1]));
    expect(documented().filter(({ operation }) => !names.has(operation.operationId ?? '')).map(({ path, method }) => `${method} ${path}`)).toEqual([]);
  });

  it('uses one tag style (lower-case, hyphenated)', () => {
    const tags = new Set(documented().flatMap(({ operation }) => operation.tags ?? []));
    expect([...tags].filter((tag) => !/^[a-z]+(-[a-z]+)*$/.test(tag))).toEqual([]);
  });

  it('documents the problem+json refusals of each route (400 and 500 everywhere, 401 where a credential is needed)', () => {
    const lacking = documented().filter(({ path, operation }) => {
      const statuses = Object.keys(operation.responses);
      const needsCredential = path !== '/auth/login';
      return !statuses.includes('400') || !statuses.includes('500') || (needsCredential && !statuses.includes('401'));
    });
    expect(lacking.map(({ path, method }) => `${method} ${path}`)).toEqual([]);
    expect(document.paths['/access-control/users/{id}'].patch.responses['404'].content['application/problem+json'].schema).toEqual({
      $ref: '#/components/schemas/Problem',
    });
  });

  it('shows the validation rules of each body field (declared once on the classes)', () => {
    const body = bodyOf('/access-control/users', 'post').properties;
    expect(body.password).toMatchObject({ minLength: 6, maxLength: 50 });
    expect(body.mobile.pattern).toBe('^\\+?\\d{7,15}$');
    expect(body.email.format).toBe('idn-email');
    const menu = bodyOf('/restaurant/meal-menus', 'post').properties;
    expect(menu.estimatedPortions.minimum).toBe(0);
    // GraphQL's Int is 32-bit: a larger number is refused before any rule.
    expect(menu.estimatedPortions.maximum).toBe(2 ** 31 - 1);
  });

  it('documents sign-in failure as its one 401, and no 403 or 409 for it', () => {
    const login = document.paths['/auth/login'].post.responses;
    expect(login['401'].description).toBe('Invalid email or password');
    expect(Object.keys(login)).not.toContain('403');
    expect(Object.keys(login)).not.toContain('409');
  });

  it('lets every nullable field be null, in answers and in bodies, and no other', () => {
    const schemas = document.components.schemas as Record<string, { properties?: Record<string, unknown> }>;
    const wrong: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if ((!isObjectType(type) && !isInputObjectType(type)) || !schemas[type.name]?.properties) continue;
      for (const [name, field] of Object.entries(type.getFields())) {
        const property = schemas[type.name]!.properties![name];
        // An input field whose class refuses null (IsDefined) is the exception: the bodies' test below.
        if (property && takesNull(property) !== !isNonNullType(field.type) && !(isInputObjectType(type) && /null is refused/.test(field.description ?? ''))) {
          wrong.push(`${type.name}.${name}`);
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(takesNull(schemas.MealMenu!.properties!.deletedAt)).toBe(true);
    const body = (path: string, method: string) => bodyOf(path, method).properties;
    expect(takesNull(body('/auth/login', 'post').tenantId)).toBe(true);
    expect(takesNull(body('/auth/login', 'post').email)).toBe(false);
    expect(takesNull(body('/access-control/users/{id}', 'patch').mobile)).toBe(true);
  });

  it('describes every body and input type as closed (unknown fields are refused), and the service refuses them', async () => {
    const open = documented()
      .filter(({ operation }) => (operation as any).requestBody)
      .filter(({ operation }) => resolved((operation as any).requestBody.content['application/json'].schema).additionalProperties !== false);
    expect(open.map(({ path, method }) => `${method} ${path}`)).toEqual([]);
    const components = document.components.schemas as Record<string, { additionalProperties?: boolean }>;
    const inputs = Object.values(schema.getTypeMap()).filter(isInputObjectType);
    expect(inputs.map((type) => type.name)).toEqual(expect.arrayContaining(['MealMenuItemInput', 'SocialLinksInput']));
    expect(inputs.filter((type) => components[type.name]?.additionalProperties !== false).map((type) => type.name)).toEqual([]);

    const admin = await app.createUser({ tenantId: 't-openapi', roles: ['admin'] });
    const menu = { name: 'Lunch', date: '2026-03-03', mealType: 'lunch' };
    for (const body of [{ ...menu, spicy: true }, { ...menu, items: [{ name: 'Soup', spicy: true }] }]) {
      expect((await app.rest('POST', '/restaurant/meal-menus', { token: admin.token, body })).status).toBe(400);
    }
  });

  it('requires of an input type only the fields without a default, as the service does', async () => {
    const components = document.components.schemas as Record<string, { required?: string[] }>;
    for (const type of Object.values(schema.getTypeMap()).filter(isInputObjectType)) {
      const required = Object.values(type.getFields()).filter((field) => isNonNullType(field.type) && field.defaultValue === undefined).map((field) => field.name);
      expect([type.name, components[type.name]?.required ?? []]).toEqual([type.name, required]);
    }
    expect(components.MealMenuItemInput!.required).toEqual(['name']);
    const admin = await app.createUser({ tenantId: 't-openapi', roles: ['admin'] });
    const created = await app.rest('POST', '/restaurant/meal-menus', {
      token: admin.token,
      body: { name: 'Lunch', date: '2026-03-03', mealType: 'lunch', items: [{ name: 'Soup' }] },
    });
    expect([created.status, created.body.items]).toEqual([201, [expect.objectContaining({ name: 'Soup', allergens: [] })]]);
  });

  it('shows the validation rules of the fields of nested input types, as of top-level arguments', () => {
    const components = document.components.schemas as Record<string, any>;
    expect(components.MealMenuItemInput.properties.name).toMatchObject({ minLength: 1, maxLength: 200 });
    expect(components.MealMenuItemInput.properties.description).toMatchObject({ maxLength: 2000, type: ['string', 'null'] });
    expect(components.MealMenuItemInput.properties.allergens).toMatchObject({ maxItems: 50, default: [], items: { minLength: 1, maxLength: 100 } });
    const body = bodyOf('/access-control/users', 'post').properties;
    for (const network of ['twitter', 'instagram', 'linkedin']) {
      const link = components.SocialLinksInput.properties[network];
      expect(link).toMatchObject({ maxLength: 2048, type: ['string', 'null'], pattern: body.profilePicture.pattern, format: body.profilePicture.format });
    }
  });

  it('marks a body field nullable exactly where the service takes null (updateUser: required fields may be absent, not null)', async () => {
    const admin = await app.createUser({ tenantId: 't-openapi', roles: ['admin'] });
    const target = await app.createUser({ tenantId: 't-openapi', roles: ['member'] });
    const properties = bodyOf('/access-control/users/{id}', 'patch').properties as Record<string, unknown>;
    const documentedNull: [string, boolean][] = [];
    const served: [string, boolean][] = [];
    for (const [name, property] of Object.entries(properties)) {
      if (name === 'updatedBy') continue;
      const answer = await app.rest('PATCH', `/access-control/users/${target.id}`, { token: admin.token, body: { [name]: null, updatedBy: admin.id } });
      expect(answer.status, name).toBeLessThan(500);
      documentedNull.push([name, takesNull(property)]);
      served.push([name, answer.status === 200]);
    }
    expect(documentedNull).toEqual(served);
    expect(Object.fromEntries(documentedNull)).toMatchObject({ email: false, password: false, firstName: false, createdBy: false, tenant_id: false, mobile: true });
  });

  it('says in the GraphQL description that null is refused where GraphQL must type an optional argument nullable', () => {
    const properties = bodyOf('/access-control/users/{id}', 'patch').properties as Record<string, unknown>;
    const args = schema.getMutationType()!.getFields().updateUser!.args;
    const refusingNull = args.filter((arg) => !isNonNullType(arg.type) && properties[arg.name] && !takesNull(properties[arg.name]));
    expect(refusingNull.map((arg) => arg.name).sort()).toEqual(['createdBy', 'email', 'firstName', 'password', 'tenant_id']);
    expect(refusingNull.filter((arg) => !/null is refused/.test(arg.description ?? '')).map((arg) => arg.name)).toEqual([]);
  });

  it('has no Query or Mutation pseudo-components', () => {
    expect(Object.keys(document.components.schemas).filter((name) => name === 'Query' || name === 'Mutation')).toEqual([]);
  });

  it('passes an OpenAPI validator', async () => {
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined();
  });
});
