import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { UserModel } from '../../src/users/user.model.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/** How errors look on each surface: problem+json on REST, extensions on GraphQL. */

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ env: { BODY_LIMIT: '1kb' } });
});
afterAll(() => app?.close());
afterEach(() => vi.restoreAllMocks());

const LOGIN = 'mutation($email: String!, $password: String!) { login(email: $email, password: $password) { accessToken } }';
const credentials = { email: 'someone@example.test', password: 'Passw0rd!' };

describe('REST problems (RFC 9457)', () => {
  it('answers application/problem+json', async () => {
    const response = await app.rest('GET', '/no-such-route');
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('carries type, title, status, detail, code and requestId', async () => {
    const response = await app.rest('GET', '/no-such-route');
    expect(Object.keys(response.body).sort()).toEqual(['code', 'detail', 'requestId', 'status', 'title', 'type']);
  });

  it('answers an unknown route with 404 NOT_FOUND', async () => {
    const response = await app.rest('GET', '/no-such-route');
    expect([response.status, response.body.code, response.body.status]).toEqual([404, 'NOT_FOUND', 404]);
  });

  it('answers a path outside every surface with a 404 problem too', async () => {
    const response = await app.http('GET', '/nowhere');
    expect([response.status, response.body.code]).toEqual([404, 'NOT_FOUND']);
  });

  it('answers malformed JSON with 400', async () => {
    const response = await app.rest('POST', '/auth/login', { rawBody: '{"email": ' });
    expect([response.status, response.body.code]).toEqual([400, 'BAD_USER_INPUT']);
  });

  it('answers a body that is not a JSON object with 400', async () => {
    const response = await app.rest('POST', '/auth/login', { body: ['a', 'b'] });
    expect([response.status, response.body.code]).toEqual([400, 'BAD_USER_INPUT']);
  });

  it('lists every unknown body field with rule "unknown"', async () => {
    const response = await app.rest('POST', '/auth/login', { body: { ...credentials, a: 1, b: 2 } });
    expect(response.body.errors.map((e: { field: string; rule: string }) => `${e.field}:${e.rule}`)).toEqual(['a:unknown', 'b:unknown']);
  });

  it('refuses arguments in the query string of a body route, asking for the JSON body', async () => {
    const response = await app.rest('POST', '/auth/login?password=x&email=y', {});
    expect(response.body.errors.map((e: { field: string; rule: string }) => `${e.field}:${e.rule}`).sort()).toEqual([
      'email:inBody',
      'password:inBody',
    ]);
  });

  it('lists every missing or mistyped argument in one 400', async () => {
    const response = await app.rest('POST', '/auth/login', { body: { email: 42 } });
    expect(response.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['email', 'password']);
  });
});

describe('bodies over BODY_LIMIT', () => {
  const big = { ...credentials, password: 'x'.repeat(4096) };

  it('are refused on REST with 413 PAYLOAD_TOO_LARGE', async () => {
    const response = await app.rest('POST', '/auth/login', { body: big });
    expect([response.status, response.body.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
  });

  it('are refused on GraphQL with 413 too, as a GraphQL error', async () => {
    const response = await app.graphql(LOGIN, big, { headers: { 'x-request-id': 'big-1' } });
    const [error] = response.body.errors;
    expect([response.status, error.extensions.code, error.extensions.http, error.extensions.requestId]).toEqual([
      413,
      'PAYLOAD_TOO_LARGE',
      { status: 413 },
      'big-1',
    ]);
  });
});

describe('GraphQL errors', () => {
  it('keep extensions.http.status', async () => {
    const response = await app.graphql(LOGIN, credentials);
    expect(response.body.errors[0].extensions.http).toEqual({ status: 401 });
  });

  it('set the HTTP status of the response to the error status', async () => {
    const response = await app.graphql(LOGIN, credentials);
    expect(response.status).toBe(401);
  });

  it('carry the validation field list in extensions.errors', async () => {
    const response = await app.graphql(LOGIN, { ...credentials, email: 'nope' });
    expect(response.body.errors[0].extensions.errors).toEqual([
      expect.objectContaining({ field: 'email', rule: 'isEmail' }),
    ]);
  });

  it('keep GRAPHQL_VALIDATION_FAILED for a query against the schema', async () => {
    const response = await app.graphql('query { noSuchField }');
    expect([response.status, response.body.errors[0].extensions.code]).toEqual([400, 'GRAPHQL_VALIDATION_FAILED']);
  });
});

describe('unexpected errors', () => {
  function breakTheDatabase() {
    vi.spyOn(UserModel, 'find').mockImplementation(() => {
      throw new Error('connection to shard-zeta failed at /srv/secret/path');
    });
  }

  it('are masked on REST as 500 INTERNAL_SERVER_ERROR without details', async () => {
    breakTheDatabase();
    const response = await app.rest('POST', '/auth/login', { body: credentials });
    expect([response.status, response.body.code, response.body.detail]).toEqual([500, 'INTERNAL_SERVER_ERROR', 'Internal server error']);
  });

  it('never show a stack or the original message on REST', async () => {
    breakTheDatabase();
    const response = await app.rest('POST', '/auth/login', { body: credentials });
    expect(JSON.stringify(response.body)).not.toMatch(/shard-zeta|secret|at \//);
  });

  it('are masked on GraphQL with the same code and a requestId', async () => {
    breakTheDatabase();
    const response = await app.graphql(LOGIN, credentials, { headers: { 'x-request-id': 'masked-1' } });
    const [error] = response.body.errors;
    expect([response.status, error.message, error.extensions.code, error.extensions.requestId]).toEqual([
      500,
      'Internal server error',
      'INTERNAL_SERVER_ERROR',
      'masked-1',
    ]);
  });

  it('never show a stack or the original message on GraphQL', async () => {
    breakTheDatabase();
    const response = await app.graphql(LOGIN, credentials);
    expect(JSON.stringify(response.body)).not.toMatch(/shard-zeta|secret|stacktrace/);
  });
});
