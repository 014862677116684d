import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { UserModel } from '../../src/users/user.model.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/** In development only, a masked error says what really happened (in `debug`). */

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ env: { NODE_ENV: 'development' } });
});
afterAll(() => app?.close());
afterEach(() => vi.restoreAllMocks());

function breakTheDatabase() {
  vi.spyOn(UserModel, 'find').mockImplementation(() => {
    throw new Error('db-7 is down');
  });
}

const credentials = { email: 'a@example.test', password: 'x' };

describe('unexpected errors in development', () => {
  it('carry the original message in debug on REST', async () => {
    breakTheDatabase();
    const response = await app.rest('POST', '/auth/login', { body: credentials });
    expect([response.status, response.body.debug]).toEqual([500, 'db-7 is down']);
  });

  it('carry the original message in extensions.debug on GraphQL', async () => {
    breakTheDatabase();
    const response = await app.graphql('mutation($email: String!, $password: String!) { login(email: $email, password: $password) { accessToken } }', credentials);
    expect(response.body.errors[0].extensions.debug).toBe('db-7 is down');
  });

  it('still show no stack', async () => {
    breakTheDatabase();
    const response = await app.rest('POST', '/auth/login', { body: credentials });
    expect(JSON.stringify(response.body)).not.toMatch(/\bat [\w./]+:\d+/);
  });
});
