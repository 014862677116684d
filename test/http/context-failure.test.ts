import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';

/** When resolving the caller itself fails (e.g. the database is down), both surfaces answer a masked 500. */

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({
    resolveActor: async () => {
      throw new Error('users collection unreachable at db-9');
    },
  });
});
afterAll(() => app?.close());

describe('a failure while resolving the caller', () => {
  it('is a masked 500 on REST', async () => {
    const response = await app.rest('GET', '/access-control/permissions', { token: 'x' });
    expect([response.status, response.body.code, JSON.stringify(response.body).includes('db-9')]).toEqual([500, 'INTERNAL_SERVER_ERROR', false]);
  });

  it('is a masked 500 on GraphQL', async () => {
    const response = await app.graphql('{ permissions }', undefined, { token: 'x' });
    expect([response.status, response.body.errors?.[0]?.extensions?.code, JSON.stringify(response.body).includes('db-9')]).toEqual([
      500,
      'INTERNAL_SERVER_ERROR',
      false,
    ]);
  });
});
