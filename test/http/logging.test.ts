import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import express from 'express';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { useRequestLogging } from '../../src/http/use-request-logging.js';
import { generateApiKeySecret } from '../../src/auth/index.js';
import { createLogger } from '../../src/logger.js';
import { newWebhookSecret } from '../../src/webhooks/index.js';
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

  it('never logs the values of a GraphQL GET\'s variables, whatever their names', async () => {
    const query = encodeURIComponent('mutation($e: String!, $p: String!) { login(email: $e, password: $p) { accessToken } }');
    const variables = encodeURIComponent(JSON.stringify({ e: user.email, p: 'Inn0cent-Named-Secret' }));
    await app.http('GET', `/graphql?query=${query}&variables=${variables}`, { headers: { 'x-request-id': 'log-8' } });
    const [entry] = await linesOf('log-8');
    const logged = new URL(entry.req.url, 'http://x').searchParams;
    expect([lines.join('\n').includes('Inn0cent-Named-Secret'), JSON.parse(logged.get('variables')!)]).toEqual([
      false,
      { e: '[redacted]', p: '[redacted]' },
    ]);
  });

  it('keeps what is no secret of a GraphQL GET (the operation, a variable reference)', async () => {
    const query = encodeURIComponent('mutation($p: String!) { login(email: "a@b.test", password: $p) { accessToken } }');
    await app.http('GET', `/graphql?query=${query}`, { headers: { 'x-request-id': 'log-9' } });
    const [entry] = await linesOf('log-9');
    expect(new URL(entry.req.url, 'http://x').searchParams.get('query')).toBe(
      'mutation($p:String!){login(email:"a@b.test" password:$p){accessToken}}',
    );
  });

  it('redacts secret-like input fields and variable defaults of a GraphQL GET', async () => {
    const query = encodeURIComponent(
      'mutation($x: String = "Def4ult-Secret") { createUser(input: { email: "a@b.test", Password: "F1eld-Secret" }) { id } }',
    );
    await app.http('GET', `/graphql?query=${query}`, { headers: { 'x-request-id': 'log-10' } });
    await linesOf('log-10');
    expect(lines.join('\n')).not.toMatch(/Def4ult-Secret|F1eld-Secret/);
  });
});

/**
 * Issue 27 item 5: secrets under ordinary names (`search`, an `extensions`
 * field, a document literal, a path segment, X-Request-Id) were logged as
 * sent. The log redacts API key secrets (keeping their public key id) and
 * JWTs by their shape, anywhere in a line; the rest of the line stays.
 */
describe('request logging of credentials under ordinary names', () => {
  let secret: string;
  let keyId: string;
  beforeAll(async () => {
    const made = await app.rest('POST', '/api-keys', { token: user.token, body: { name: 'logged', scopes: ['users:read'] } });
    expect(made.status).toBe(201);
    [secret, keyId] = [made.body.key, made.body.keyId];
  });
  const redactedKey = () => `ak_${keyId}_[redacted]`;
  const secretPart = () => secret.slice(16);
  const jwtPart = () => user.token.split('.')[1];

  it('redacts a key secret in a REST query value, keeping the rest of the line', async () => {
    await app.rest('GET', `/access-control/users?search=${secret}&limit=5`, { token: user.token, headers: { 'x-request-id': 'shape-1' } });
    const [entry] = await linesOf('shape-1');
    expect([lines.join('\n').includes(secretPart()), entry.req.method, entry.req.url, entry.res.statusCode]).toEqual([
      false,
      'GET',
      `/api/v1/access-control/users?search=${redactedKey()}&limit=5`,
      200,
    ]);
  });

  it("redacts key secrets and JWTs in a GraphQL GET's extensions, document literals and variables", async () => {
    const query = encodeURIComponent(`query($limit: Int) { users(search: "${secret}", limit: $limit) { nextCursor } }`);
    const extensions = encodeURIComponent(JSON.stringify({ x: secret, y: { z: `Bearer ${user.token}` } }));
    // A variable's value is always redacted; its name was not.
    const variables = encodeURIComponent(JSON.stringify({ limit: 5 }));
    const response = await app.http('GET', `/graphql?query=${query}&extensions=${extensions}&variables=${variables}`, {
      token: user.token,
      headers: { 'x-request-id': 'shape-2', 'apollo-require-preflight': 'true' },
    });
    const [entry] = await linesOf('shape-2');
    const logged = new URL(entry.req.url, 'http://x').searchParams;
    expect([lines.join('\n').includes(secretPart()), lines.join('\n').includes(jwtPart())]).toEqual([false, false]);
    expect([response.status, logged.get('query'), JSON.parse(logged.get('extensions')!), entry.res.statusCode]).toEqual([
      200,
      `query($limit:Int){users(search:"${redactedKey()}" limit:$limit){nextCursor}}`,
      { x: redactedKey(), y: { z: 'Bearer [redacted]' } },
      200,
    ]);
  });

  it('redacts a key secret or a JWT sent as X-Request-Id, and logs and answers a request id of its own instead', async () => {
    const unsignedJwt = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from('{"sub":"x"}').toString('base64url')}.`;
    for (const sent of [secret, unsignedJwt]) {
      const response = await app.rest('GET', '/access-control/permissions', { token: user.token, headers: { 'x-request-id': sent } });
      const answered = response.headers.get('x-request-id')!;
      const [entry] = await linesOf(answered);
      expect([answered === sent, entry?.req.url, entry?.res.statusCode]).toEqual([false, '/api/v1/access-control/permissions', 200]);
      expect(lines.join('\n')).not.toContain(sent);
    }
  });

  it('redacts a JWT or a key secret in the path, also when its characters are percent-escaped', async () => {
    const escaped = `%61k_${secret.slice(3)}`;
    await app.rest('GET', `/access-control/users/${user.token}`, { token: user.token, headers: { 'x-request-id': 'shape-3' } });
    await app.rest('GET', `/access-control/users/${escaped}`, { token: user.token, headers: { 'x-request-id': 'shape-4' } });
    const [[jwtEntry], [keyEntry]] = [await linesOf('shape-3'), await linesOf('shape-4')];
    expect([lines.join('\n').includes(jwtPart()), lines.join('\n').includes(secretPart())]).toEqual([false, false]);
    expect([jwtEntry.req.url, keyEntry.req.url, keyEntry.res.statusCode]).toEqual([
      '/api/v1/access-control/users/[redacted]',
      `/api/v1/access-control/users/${redactedKey()}`,
      400,
    ]);
  });
});

describe('request logging of a long query string', () => {
  // Node's own server refuses a request head over 16 KiB; a proxy or another server may not.
  const longLines: string[] = [];
  let server: Server;
  let baseUrl: string;
  beforeAll(async () => {
    const logger = createLogger({ logLevel: 'info' }, sinkInto(longLines));
    const small = express().use(useRequestLogging({ logger })).use((_req, res) => res.end('ok'));
    server = createServer({ maxHeaderSize: 1024 * 1024 }, small).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  async function loggedUrl(path: string, requestId: string): Promise<string | undefined> {
    const response = await fetch(`${baseUrl}${path}`, { headers: { 'x-request-id': requestId } });
    await response.text();
    for (let attempt = 0; attempt < 50; attempt += 1) {
      const entry = longLines.map((line) => JSON.parse(line)).find((e) => e.req?.id === requestId);
      if (entry) return entry.req.url;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return undefined;
  }

  it('is logged, redacted, for a 200 kB GraphQL query (a long secret-like name once made the redaction quadratic)', async () => {
    // One field named keykeykey…: a regex over the text backtracked over it for minutes.
    const padding = 'key'.repeat(70_000);
    const query = `mutation { login(email: "a@b.test", password: "L0ng-Query-Secret") { accessToken ${padding} } }`;
    const url = await loggedUrl(`/graphql?query=${encodeURIComponent(query)}`, 'long-1');
    const logged = new URL(url ?? '', 'http://x').searchParams.get('query') ?? '';
    expect([logged.includes(padding), url?.includes('L0ng-Query-Secret'), logged.includes('password:"[redacted]"')]).toEqual([true, false, true]);
  });

  it('is logged with the query dropped when it has too many tokens to read', async () => {
    const query = `{ ${'a '.repeat(100_000)} login(password: "Many-T0kens-Secret") { accessToken } }`;
    const url = await loggedUrl(`/graphql?query=${encodeURIComponent(query)}`, 'long-2');
    expect(new URL(url ?? '', 'http://x').searchParams.get('query')).toBe('[redacted: unreadable]');
  });

  it('is logged, redacted, for 200 kB of parameters', async () => {
    const url = await loggedUrl(`/api/v1/x?${'a=b&'.repeat(50_000)}password=Many-Params-Secret`, 'long-3');
    expect([url?.length! > 200_000, url?.includes('Many-Params-Secret')]).toEqual([true, false]);
  });
});

describe('redaction of structured log fields', () => {
  function capture(): { logger: ReturnType<typeof createLogger>; text(): string } {
    const captured: string[] = [];
    return { logger: createLogger({ logLevel: 'info' }, sinkInto(captured)), text: () => captured.join('\n') };
  }

  it('replaces password, token and key fields wherever they appear', () => {
    const { logger, text } = capture();
    logger.info({ password: 'p1', user: { password: 'p2', token: 't1', key: 'k1' }, accessToken: 'a1' }, 'x');
    expect(text()).not.toMatch(/"(p1|p2|t1|k1|a1)"/);
  });

  it('in any case: headers.Authorization, X-API-Key, Cookie', () => {
    const { logger, text } = capture();
    logger.info({ headers: { Authorization: 'Bearer h1', 'X-API-Key': 'ak_h2', Cookie: 'sid=h3' } }, 'x');
    const line = JSON.parse(text());
    expect([text().match(/h1|ak_h2|h3/), line.headers]).toEqual([
      null,
      { Authorization: '[redacted]', 'X-API-Key': '[redacted]', Cookie: '[redacted]' },
    ]);
  });

  it('inside a logged error: err.variables.password', () => {
    const { logger, text } = capture();
    const err = Object.assign(new Error('boom'), { variables: { email: 'a@b.test', password: 'Err-Secret-1' } });
    logger.error({ err }, 'unexpected error');
    const line = JSON.parse(text());
    expect([text().includes('Err-Secret-1'), line.err.message, line.err.variables.email]).toEqual([false, 'boom', 'a@b.test']);
  });

  it('at any depth, in arrays, and in a child logger\'s bound fields', () => {
    const { logger, text } = capture();
    logger
      .child({ request: { Headers: { AUTHORIZATION: 'Bearer bound-1' } } })
      .info({ a: { b: { c: { d: { e: { f: [{ PassWord: 'deep-1' }, { secretKey: 'deep-2' }] } } } } } }, 'x');
    expect(text()).not.toMatch(/bound-1|deep-1|deep-2/);
  });

  it('redacts key secrets and JWTs by their shape in any value, key or message, and leaves look-alikes alone', () => {
    const { logger, text } = capture();
    const secret = generateApiKeySecret().secret;
    const jwt = `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhIn0.${'s'.repeat(43)}`;
    logger.info({ note: `sent ${secret}`, list: [jwt], [secret]: 1, plain: 'ak_short eyJ only.eyJ.' }, `token ${jwt}`);
    const line = JSON.parse(text());
    expect([text().includes(secret.slice(16)), text().includes(jwt.slice(20))]).toEqual([false, false]);
    expect([line.note, line.list, line.msg, line.plain]).toEqual([
      `sent ${secret.slice(0, 16)}[redacted]`,
      ['[redacted]'],
      'token [redacted]',
      'ak_short eyJ only.eyJ.',
    ]);
  });

  it('redacts a webhook signing secret (whsec_) by its shape, also cut short, and leaves the bare prefix alone', () => {
    const { logger, text } = capture();
    const secret = newWebhookSecret();
    logger.info({ note: `secret ${secret}`, cut: secret.slice(0, 30), plain: 'whsec_ short whsec_abc' }, `sent ${secret}`);
    const line = JSON.parse(text());
    expect(text().includes(secret.slice(6, 30))).toBe(false);
    expect([line.note, line.cut, line.msg, line.plain]).toEqual(['secret whsec_[redacted]', 'whsec_[redacted]', 'sent whsec_[redacted]', 'whsec_ short whsec_abc']);
  });

  it('redacts a ticket or a signing secret right after an escaped character, on a line with no secret-like name', () => {
    // Written as JSON, `\npt_…` reads `npt_…`: a word goes on; in the value the ticket starts a word.
    const { logger, text } = capture();
    const ticket = `pt_${'A'.repeat(43)}`;
    const signing = `whsec_${'B'.repeat(32)}`;
    logger.info({ note: `line one\n${ticket}`, tabbed: `\t${signing}` }, 'x');
    const line = JSON.parse(text());
    expect([line.note, line.tabbed]).toEqual(['line one\npt_[redacted]', '\twhsec_[redacted]']);
  });

  it('redacts by shape in linear time: 200 kB of eyJ and ak_ look-alikes', () => {
    const { logger, text } = capture();
    const started = Date.now();
    logger.info({ a: 'eyJ'.repeat(70_000), b: `${'eyJa.'.repeat(40_000)}`, c: 'ak_'.repeat(70_000) }, 'x');
    const elapsed = Date.now() - started;
    const baselineStarted = Date.now();
    logger.info({ a: 'xyz'.repeat(70_000), b: `${'xyza.'.repeat(40_000)}`, c: 'xy_'.repeat(70_000) }, 'x');
    const baseline = Math.max(Date.now() - baselineStarted, 5);
    // Linear: a few times the baseline's JSON work; a scan from each look-alike to the end would be thousands of times it.
    expect([text().split('\n').length, elapsed / baseline < 200]).toEqual([2, true]);
  });

  it('stays bounded: a value nested deeper than the walk goes is dropped, not written unchecked', () => {
    const { logger, text } = capture();
    let nested: Record<string, unknown> = { password: 'Too-Deep-Secret' };
    for (let level = 0; level < 500; level += 1) nested = { level: nested };
    logger.info({ nested }, 'x');
    expect([text().includes('Too-Deep-Secret'), text().includes('[too deep]')]).toEqual([false, true]);
  });

  it('stays bounded: past its budget of values the rest is dropped, and the line is still written', () => {
    const { logger, text } = capture();
    const wide = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`f${i}`, i]));
    logger.info({ wide, tail: { password: 'Wide-Secret' } }, 'wide');
    const line = JSON.parse(text());
    expect([line.msg, text().includes('Wide-Secret'), text().includes('[truncated]')]).toEqual(['wide', false, true]);
  });
});

/** A pino destination collecting each written line. */
function sinkInto(target: string[]): Writable {
  return new Writable({
    write(chunk, _encoding, done) {
      target.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
}
