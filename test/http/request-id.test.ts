import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.close());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('request ids', () => {
  it('echoes the X-Request-Id the client sent', async () => {
    const response = await app.http('GET', '/healthz', { headers: { 'x-request-id': 'client-id-123' } });
    expect(response.headers.get('x-request-id')).toBe('client-id-123');
  });

  it('generates one when the client sent none', async () => {
    const response = await app.http('GET', '/healthz');
    expect(response.headers.get('x-request-id')).toMatch(UUID);
  });

  it('replaces a client id that is not a short plain token', async () => {
    const response = await app.http('GET', '/healthz', { headers: { 'x-request-id': 'x'.repeat(300) } });
    expect(response.headers.get('x-request-id')).toMatch(UUID);
  });

  it('puts the request id in a REST problem', async () => {
    const response = await app.rest('GET', '/no-such-route', { headers: { 'x-request-id': 'rest-problem-1' } });
    expect(response.body.requestId).toBe('rest-problem-1');
  });

  it('puts the request id in a REST error raised while executing the operation', async () => {
    const response = await app.rest('GET', '/access-control/permissions', { headers: { 'x-request-id': 'rest-problem-2' } });
    expect(response.body.requestId).toBe('rest-problem-2');
  });

  it('puts the request id in each GraphQL error', async () => {
    const response = await app.graphql('query { permissions }', undefined, { headers: { 'x-request-id': 'gql-error-1' } });
    expect(response.body.errors[0].extensions.requestId).toBe('gql-error-1');
  });
});
