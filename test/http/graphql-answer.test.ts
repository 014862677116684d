import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.close());

/** The raw answer: its bytes, to compare with Content-Length. */
async function raw(path: string, init: RequestInit): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const response = await fetch(`${app.baseUrl}${path}`, init);
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

// /graphql writes a POST's answer itself (src/http/apollo.ts), not through express's res.send.
describe('the HTTP answer of /graphql', () => {
  it('POST: JSON with its length in bytes, a non-ASCII answer too', async () => {
    const user = await app.createUser({ tenantId: 'tenant-answer', firstName: 'Zoë Ünïcödé' });
    const answer = await raw('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${user.token}` },
      body: JSON.stringify({ query: '{ me { firstName } }' }),
    });
    expect([answer.status, answer.bytes.toString('utf8')]).toEqual([200, '{"data":{"me":{"firstName":"Zoë Ünïcödé"}}}\n']);
    expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(Number(answer.headers.get('content-length'))).toBe(answer.bytes.length);
    // The app's own headers are kept alongside Apollo's.
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('another method: 405 with Allow, and a body that says 405 too (METHOD_NOT_ALLOWED)', async () => {
    for (const method of ['PUT', 'DELETE', 'PATCH']) {
      const answer = await raw('/graphql', { method, headers: { 'content-type': 'application/json' }, body: '{"query":"{ permissions }"}' });
      const body = JSON.parse(answer.bytes.toString('utf8'));
      expect([answer.status, answer.headers.get('allow'), body.errors?.[0]?.extensions?.code, body.errors?.[0]?.extensions?.http?.status], method).toEqual([
        405,
        'GET, POST, HEAD, OPTIONS',
        'METHOD_NOT_ALLOWED',
        405,
      ]);
    }
    const options = await raw('/graphql', { method: 'OPTIONS' });
    expect([options.status, options.headers.get('allow'), options.bytes.length]).toEqual([204, 'GET, POST, HEAD, OPTIONS', 0]);
    // HEAD is the GET without its body.
    const get = await raw('/graphql?query=%7B__typename%7D', { method: 'GET' });
    const head = await raw('/graphql?query=%7B__typename%7D', { method: 'HEAD' });
    expect([head.status, head.headers.get('content-type'), head.bytes.length]).toEqual([get.status, get.headers.get('content-type'), 0]);
  });

  it('POST: the status from the errors', async () => {
    const user = await app.createUser({ tenantId: 'tenant-answer' });
    const answer = await raw('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${user.token}` },
      body: JSON.stringify({ query: 'query($limit: Int) { mealMenus(limit: $limit) { nextCursor } }', variables: { limit: 'many' } }),
    });
    const body = JSON.parse(answer.bytes.toString('utf8'));
    expect([answer.status, body.errors?.[0]?.extensions?.code]).toEqual([400, 'BAD_USER_INPUT']);
    expect(Number(answer.headers.get('content-length'))).toBe(answer.bytes.length);
  });

  it('POST: the headers the errors imply (WWW-Authenticate on a 401)', async () => {
    const answer = await raw('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ mealMenus(limit: 1) { nextCursor } }' }),
    });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(Number(answer.headers.get('content-length'))).toBe(answer.bytes.length);
  });

  it('POST: a successful answer is the JSON of the result and a newline, as Apollo writes it', async () => {
    const answer = await raw('/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ __typename }' }) });
    expect([answer.status, answer.bytes.toString('utf8')]).toEqual([200, '{"data":{"__typename":"Query"}}\n']);
    expect(Number(answer.headers.get('content-length'))).toBe(answer.bytes.length);
  });

  it('GET: a query is answered through express\'s res.send (ETag included)', async () => {
    const path = `/graphql?query=${encodeURIComponent('{ __typename }')}`;
    const headers = { 'apollo-require-preflight': 'true' };
    const first = await raw(path, { headers });
    expect([first.status, first.bytes.toString('utf8')]).toEqual([200, '{"data":{"__typename":"Query"}}\n']);
    expect(first.headers.get('etag')).toMatch(/^W\/"/);
  });

  it('GET: reads a query string sent with raw braces as the escaped one', async () => {
    const headers = { 'apollo-require-preflight': 'true' };
    const rawBraces = await raw('/graphql?query={__typename}', { headers });
    const escaped = await raw(`/graphql?query=${encodeURIComponent('{__typename}')}`, { headers });
    expect([rawBraces.status, rawBraces.bytes.toString('utf8')]).toEqual([200, '{"data":{"__typename":"Query"}}\n']);
    expect(rawBraces.bytes.toString('utf8')).toBe(escaped.bytes.toString('utf8'));
  });
});
