import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { UserModel } from '../../src/users/user.model.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ env: { NODE_ENV: 'production', LOG_LEVEL: 'silent' } });
});
afterAll(() => app?.close());

describe('GraphQL in production', () => {
  it('shows no landing page', async () => {
    const response = await app.http('GET', '/graphql', { headers: { accept: 'text/html' } });
    expect(/sandbox/i.test(String(response.body))).toBe(false);
  });

  it('keeps the strict Content-Security-Policy on /graphql (no Sandbox page to leave it to)', async () => {
    const response = await app.http('GET', '/graphql', { headers: { accept: 'text/html' } });
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self';");
  });

  it('refuses introspection', async () => {
    const response = await app.graphql('{ __schema { queryType { name } } }');
    expect([response.status, response.body.errors?.[0]?.extensions?.code]).toEqual([400, 'GRAPHQL_VALIDATION_FAILED']);
  });

  it('hides field suggestions ("Did you mean ...?"), which would spell out the schema', async () => {
    const user = await app.createUser({ tenantId: 'tenant-prod' });
    const response = await app.graphql('{ permission }', undefined, { token: user.token });
    expect([response.status, response.body.errors?.[0]?.message]).toEqual([400, 'Cannot query field "permission" on type "Query".']);
  });

  it('still serves operations', async () => {
    const user = await app.createUser({ tenantId: 'tenant-prod' });
    const response = await app.graphql('{ permissions }', undefined, { token: user.token });
    expect(response.status).toBe(200);
  });
});

describe('unexpected errors in production', () => {
  it('carry no debug detail', async () => {
    vi.spyOn(UserModel, 'find').mockImplementation(() => {
      throw new Error('db-7 is down');
    });
    const response = await app.rest('POST', '/auth/login', { body: { email: 'a@example.test', password: 'x' } });
    vi.restoreAllMocks();
    expect([response.status, response.body.debug]).toEqual([500, undefined]);
  });
});
