import { Writable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

/** One JSON line per request, and never a credential in any line. */

const lines: string[] = [];
const sink = new Writable({
  write(chunk, _encoding, done) {
    lines.push(...String(chunk).split('\n').filter(Boolean));
    done();
  },
});

let app: TestApp;
let user: TestUser;
beforeAll(async () => {
  app = await startTestApp({ logger: createLogger({ logLevel: 'info' }, sink) });
  user = await app.createUser({ tenantId: 'tenant-logs' });
});
afterAll(() => app?.close());
beforeEach(() => {
  lines.length = 0;
});

/** Log lines are written when the response finishes; wait for the one of this request id. */
async function linesOf(requestId: string): Promise<Record<string, any>[]> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const found = lines.map((line) => JSON.parse(line)).filter((entry) => entry.req?.id === requestId);
    if (found.length > 0) return found;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return [];
}

describe('request logging', () => {
  it('writes one JSON line per request with its request id and status', async () => {
    await app.http('GET', '/healthz', { headers: { 'x-request-id': 'log-1' } });
    const entries = await linesOf('log-1');
    expect(entries.map((e) => [e.req.method, e.req.url, e.res.statusCode])).toEqual([['GET', '/healthz', 200]]);
  });

  it('never logs the bearer token', async () => {
    await app.rest('GET', '/access-control/permissions', { token: user.token, headers: { 'x-request-id': 'log-2' } });
    await linesOf('log-2');
    expect(lines.join('\n')).not.toContain(user.token.split('.')[2]);
  });

  it('never logs an X-API-Key', async () => {
    await app.rest('GET', '/access-control/permissions', { headers: { 'x-api-key': 'ak_supersecretvalue', 'x-request-id': 'log-3' } });
    await linesOf('log-3');
    expect(lines.join('\n')).not.toContain('supersecretvalue');
  });

  it('never logs a password sent in a query string', async () => {
    await app.rest('POST', `/auth/login?password=Hunter2Secret&email=${encodeURIComponent(user.email)}`, {
      headers: { 'x-request-id': 'log-4' },
    });
    await linesOf('log-4');
    expect(lines.join('\n')).not.toContain('Hunter2Secret');
  });

  it('never logs a password inside a GraphQL GET query or its variables', async () => {
    const query = encodeURIComponent('mutation($email: String!) { login(email: $email, password: "Inl1ne-Secret") { accessToken } }');
    const variables = encodeURIComponent(JSON.stringify({ email: user.email, password: 'Var1able-Secret' }));
    await app.http('GET', `/graphql?query=${query}&variables=${variables}`, { headers: { 'x-request-id': 'log-7' } });
    const entries = await linesOf('log-7');
    expect(entries).toHaveLength(1);
    expect(lines.join('\n')).not.toMatch(/Inl1ne-Secret|Var1able-Secret/);
  });

  it('never logs the password of a login body', async () => {
    await app.rest('POST', '/auth/login', { body: { email: user.email, password: 'Wr0ng-Secret-Pw' }, headers: { 'x-request-id': 'log-5' } });
    await linesOf('log-5');
    expect(lines.join('\n')).not.toContain('Wr0ng-Secret-Pw');
  });

  it('never logs the access token a login answers', async () => {
    const response = await app.rest('POST', '/auth/login', {
      body: { email: user.email, password: user.password },
      headers: { 'x-request-id': 'log-6' },
    });
    await linesOf('log-6');
    expect(lines.join('\n')).not.toContain(response.body.accessToken.split('.')[2]);
  });
});

describe('redaction of structured log fields', () => {
  it('replaces password, token and key fields wherever they appear', () => {
    const captured: string[] = [];
    const logger = createLogger(
      { logLevel: 'info' },
      new Writable({
        write(chunk, _e, done) {
          captured.push(String(chunk));
          done();
        },
      }),
    );
    logger.info({ password: 'p1', user: { password: 'p2', token: 't1', key: 'k1' }, accessToken: 'a1' }, 'x');
    expect(captured.join('')).not.toMatch(/"(p1|p2|t1|k1|a1)"/);
  });
});
