import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawExchange, type RawAnswer } from '../support/raw-http.js';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

/**
 * A Host header that is no host (fetch always sends a good one, so these go
 * over a raw socket): nothing builds a URL from it, so every surface answers
 * as usual, never 500.
 */

let app: TestApp;
let user: TestUser;
beforeAll(async () => {
  app = await startTestApp();
  user = await app.createUser({ tenantId: null });
});
afterAll(() => app?.close());

/** One raw HTTP request: the head lines as given, then the body. */
function rawRequest(head: string[], body = ''): Promise<RawAnswer> {
  const length = body ? [`Content-Length: ${Buffer.byteLength(body)}`] : [];
  return rawExchange(app.baseUrl, `${[...head, ...length, 'Connection: close'].join('\r\n')}\r\n\r\n${body}`);
}

const MALFORMED_HOSTS = ['[', '[::1', 'a b', 'http://x/y', '%zz', 'x:y:z', 'example.com:abc', 'example.com:99999', ''];

describe.each(MALFORMED_HOSTS)('Host: %j', (host) => {
  const bearer = () => `Authorization: Bearer ${user.token}`;

  it('REST answers a read as usual', async () => {
    const answer = await rawRequest([`GET /api/v1/auth/me HTTP/1.1`, `Host: ${host}`, bearer()]);
    expect([answer.status, JSON.parse(answer.body).id]).toEqual([200, user.id]);
  });

  it('REST answers a sign-in as usual', async () => {
    const body = JSON.stringify({ email: user.email, password: user.password });
    const answer = await rawRequest([`POST /api/v1/auth/login HTTP/1.1`, `Host: ${host}`, 'Content-Type: application/json'], body);
    expect([answer.status, JSON.parse(answer.body).tokenType]).toEqual([200, 'Bearer']);
  });

  it('REST answers a refusal as problem+json, not 500', async () => {
    const answer = await rawRequest([`GET /api/v1/restaurant/meal-menus/nope HTTP/1.1`, `Host: ${host}`, bearer()]);
    expect([answer.status, JSON.parse(answer.body).code]).toEqual([400, 'BAD_USER_INPUT']);
  });

  it('GraphQL answers a POST as usual', async () => {
    const body = JSON.stringify({ query: '{ me { id } }' });
    const answer = await rawRequest([`POST /graphql HTTP/1.1`, `Host: ${host}`, 'Content-Type: application/json', bearer()], body);
    expect([answer.status, JSON.parse(answer.body).data?.me?.id]).toEqual([200, user.id]);
  });

  it('GraphQL answers a GET as usual', async () => {
    // Apollo's CSRF prevention wants a non-simple header on a GET.
    const head = [`GET /graphql?query=${encodeURIComponent('{ me { id } }')} HTTP/1.1`, `Host: ${host}`, bearer(), 'Apollo-Require-Preflight: true'];
    const answer = await rawRequest(head);
    expect([answer.status, JSON.parse(answer.body).data?.me?.id]).toEqual([200, user.id]);
  });

  it('the pages answer as usual', async () => {
    const paths = ['/', '/graphiql', '/api/v1/docs', '/api/v1/openapi.json'];
    const statuses = await Promise.all(paths.map(async (path) => (await rawRequest([`GET ${path} HTTP/1.1`, `Host: ${host}`])).status));
    expect(statuses).toEqual([200, 200, 301, 200]);
  });
});

describe('no Host header at all', () => {
  it('is answered on HTTP/1.0 (which needs none), not 500', async () => {
    const answer = await rawRequest([`GET /api/v1/auth/me HTTP/1.0`, bearer()]);
    expect(answer.status).toBe(200);
  });

  function bearer(): string {
    return `Authorization: Bearer ${user.token}`;
  }
});
