import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.close());

describe('OpenAPI document', () => {
  it('is served at /api/v1/openapi.json without a credential', async () => {
    const response = await app.http('GET', '/api/v1/openapi.json');
    expect([response.status, typeof response.body.openapi]).toEqual([200, 'string']);
  });

  it('describes the REST routes under their exact method and path', async () => {
    const { body } = await app.http('GET', '/api/v1/openapi.json');
    expect(Object.keys(body.paths['/auth/login'] ?? body.paths['/api/v1/auth/login'] ?? {})).toEqual(['post']);
  });

  it('declares bearer and X-API-Key credentials', async () => {
    const { body } = await app.http('GET', '/api/v1/openapi.json');
    expect(Object.keys(body.components.securitySchemes).sort()).toEqual(['apiKey', 'bearerAuth']);
  });

  it('marks sign-in, and only sign-in, as needing no credential', async () => {
    const { body } = await app.http('GET', '/api/v1/openapi.json');
    expect(body.paths['/auth/login'].post.security).toEqual([]);
    expect(body.paths['/restaurant/meal-menus'].post.security).toBeUndefined();
  });

  it('asks for no body where every argument is in the path', async () => {
    const { body } = await app.http('GET', '/api/v1/openapi.json');
    expect(body.paths['/restaurant/meal-menus/{id}/estimated-portions/{portions}'].patch.requestBody).toBeUndefined();
  });

  it('marks arguments with a default as optional, in the query and in a body', async () => {
    const { body } = await app.http('GET', '/api/v1/openapi.json');
    const list = body.paths['/restaurant/meal-menus'].get.parameters;
    expect(list.filter((p: { required: boolean }) => p.required)).toEqual([]);
    const { $ref } = body.paths['/restaurant/meal-menus'].post.requestBody.content['application/json'].schema;
    const create = body.components.schemas[$ref.slice('#/components/schemas/'.length)];
    expect(create.required).toEqual(['name', 'date', 'mealType']);
  });

  it('never describes a password hash', async () => {
    const { body } = await app.http('GET', '/api/v1/openapi.json');
    expect(JSON.stringify(body)).not.toContain('passwordHash');
  });
});

describe('Swagger UI', () => {
  it('redirects /api/v1/docs to /api/v1/docs/', async () => {
    const response = await fetch(`${app.baseUrl}/api/v1/docs`, { redirect: 'manual' });
    expect([response.status, response.headers.get('location')]).toEqual([301, '/api/v1/docs/']);
  });

  it('serves its page from local assets', async () => {
    const response = await app.http('GET', '/api/v1/docs/');
    expect([response.status, String(response.body).includes('swagger-ui-bundle.js')]).toEqual([200, true]);
  });

  it('serves the Swagger UI bundle itself (no CDN)', async () => {
    const response = await fetch(`${app.baseUrl}/api/v1/docs/swagger-ui-bundle.js`);
    expect([response.status, response.headers.get('content-type')]).toEqual([200, expect.stringContaining('javascript')]);
  });

  it('points the page at our OpenAPI document', async () => {
    const response = await app.http('GET', '/api/v1/docs/swagger-initializer.js');
    expect(String(response.body)).toContain('"/api/v1/openapi.json"');
  });

  // API calls skip the page routers (app.ts); express matches page routes case-insensitively,
  // so a docs path in another casing must still reach them.
  it('serves its files under the REST base whatever the casing of docs, as express routes match', async () => {
    const response = await app.http('GET', '/api/v1/DOCS/swagger-initializer.js');
    expect([response.status, String(response.body).includes('"/api/v1/openapi.json"')]).toEqual([200, true]);
  });
});
