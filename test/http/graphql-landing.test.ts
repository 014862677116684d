import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.close());

describe('GraphQL outside production', () => {
  it('shows Apollo Sandbox to a browser at /graphql', async () => {
    const response = await app.http('GET', '/graphql', { headers: { accept: 'text/html' } });
    expect([response.status, /sandbox/i.test(String(response.body))]).toEqual([200, true]);
  });

  it('links the offline GraphiQL IDE from the Sandbox page (Sandbox needs Apollo\'s CDN)', async () => {
    const response = await app.http('GET', '/graphql', { headers: { accept: 'text/html' } });
    expect(String(response.body)).toContain('<a href="/graphiql">');
  });

  it.each(['/graphql/', '/GraphQL', '/graphql/x'])('answers only at exactly /graphql (%s is 404, not 500)', async (path) => {
    const response = await app.http('POST', path, { body: { query: '{ __typename }' } });
    expect(response.status).toBe(404);
  });

  it('answers introspection', async () => {
    const response = await app.graphql('{ __schema { queryType { name } } }');
    expect(response.body.data?.__schema.queryType.name).toBe('Query');
  });
});
