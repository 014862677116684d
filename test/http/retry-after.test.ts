import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errors } from '../../src/errors/index.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * A credential refused with 429 carries Retry-After on both surfaces. The app
 * gets a credential strategy that always answers "too many requests".
 */

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({
    resolveActor: async (header) => {
      if (header('authorization')) throw errors.rateLimited(42);
      return null;
    },
  });
});
afterAll(() => app?.close());

describe('rate-limited credentials (429)', () => {
  it('carry Retry-After on REST', async () => {
    const response = await app.rest('GET', '/access-control/permissions', { token: 'anything' });
    expect([response.status, response.body.code, response.headers.get('retry-after')]).toEqual([429, 'RATE_LIMITED', '42']);
  });

  it('carry the same Retry-After on GraphQL', async () => {
    const response = await app.graphql('query { permissions }', undefined, { token: 'anything' });
    expect([response.status, response.body.errors[0].extensions.code, response.headers.get('retry-after')]).toEqual([
      429,
      'RATE_LIMITED',
      '42',
    ]);
  });
});
