import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

/**
 * helmet's headers on every answer, a Content-Security-Policy without
 * 'unsafe-inline', and no caching of credentialed answers. That the pages
 * still work under the policy is proven in a real browser (browser.test.ts).
 */

let app: TestApp;
let user: TestUser;
beforeAll(async () => {
  app = await startTestApp({ env: { CORS_ORIGINS: 'https://admin.example' } });
  user = await app.createUser({ tenantId: 'tenant-headers' });
});
afterAll(() => app?.close());

/** One request of each kind the service answers: pages, documents, API successes and refusals. */
const answers: Array<[string, () => Promise<{ status: number; headers: Headers }>]> = [
  ['the landing page', () => app.http('GET', '/')],
  ['the liveness probe', () => app.http('GET', '/healthz')],
  ['GraphiQL', () => app.http('GET', '/graphiql')],
  ['Swagger UI', () => app.http('GET', '/api/v1/docs/')],
  ['the OpenAPI document', () => app.http('GET', '/api/v1/openapi.json')],
  ['Apollo Sandbox', () => app.http('GET', '/graphql', { headers: { accept: 'text/html' } })],
  ['a GraphQL answer', () => app.graphql('{ me { id } }', {}, { token: user.token })],
  ['a GraphQL refusal (401)', () => app.graphql('{ me { id } }')],
  ['a REST answer', () => app.rest('GET', '/auth/me', { token: user.token })],
  ['a REST refusal (401)', () => app.rest('GET', '/auth/me')],
  ['an unknown path (404)', () => app.http('GET', '/nowhere')],
  ['malformed JSON (400)', () => app.rest('POST', '/auth/login', { rawBody: '{' })],
  ['a CORS preflight (204)', () =>
    app.http('OPTIONS', '/api/v1/auth/login', { headers: { origin: 'https://admin.example', 'access-control-request-method': 'POST' } })],
];

describe('security headers on every answer', () => {
  it.each(answers)('%s carries X-Content-Type-Options: nosniff and a Content-Security-Policy', async (_name, request) => {
    const { headers } = await request();
    expect([headers.get('x-content-type-options'), headers.get('content-security-policy')]).toEqual(['nosniff', expect.any(String)]);
  });

  it.each(answers)('%s carries helmet\'s other headers (frame, referrer, HSTS)', async (_name, request) => {
    const { headers } = await request();
    expect({
      frame: headers.get('x-frame-options'),
      referrer: headers.get('referrer-policy'),
      hsts: headers.get('strict-transport-security'),
      poweredBy: headers.get('x-powered-by'),
    }).toEqual({ frame: 'SAMEORIGIN', referrer: 'no-referrer', hsts: 'max-age=31536000', poweredBy: null });
  });
});

describe('Content-Security-Policy', () => {
  /** The policy's directives by name. */
  async function policyOf(path: string, headers: Record<string, string> = {}): Promise<Record<string, string>> {
    const response = await app.http('GET', path, { headers });
    const policy = response.headers.get('content-security-policy') ?? '';
    return Object.fromEntries(
      policy
        .split(';')
        .map((directive) => directive.trim().split(/\s+/))
        .filter(([name]) => name)
        .map(([name, ...values]) => [name, values.join(' ')]),
    );
  }

  it.each(['/', '/graphiql', '/api/v1/docs/', '/api/v1/auth/me'])('on %s allows scripts from the service only, nothing inline', async (path) => {
    const policy = await policyOf(path);
    expect({
      default: policy['default-src'],
      script: policy['script-src'],
      scriptAttributes: policy['script-src-attr'],
      objects: policy['object-src'],
      framing: policy['frame-ancestors'],
    }).toEqual({ default: "'self'", script: "'self'", scriptAttributes: "'none'", objects: "'none'", framing: "'none'" });
  });

  it('admits no inline style but the one hashed (Swagger UI\'s logo)', async () => {
    const policy = await policyOf('/api/v1/docs/');
    expect(policy['style-src']).toMatch(/^'self' 'sha256-[A-Za-z0-9+/]+=*'$/);
  });

  it('leaves Apollo Sandbox\'s scripts to the page\'s own nonce-based policy, and still forbids framing', async () => {
    const response = await app.http('GET', '/graphql', { headers: { accept: 'text/html' } });
    const policy = await policyOf('/graphql', { accept: 'text/html' });
    expect({
      own: /<meta http-equiv="Content-Security-Policy" content="script-src 'self' 'nonce-/.test(String(response.body)),
      script: policy['script-src'],
      framing: policy['frame-ancestors'],
    }).toEqual({ own: true, script: undefined, framing: "'none'" });
  });
});

describe('CORS under the security headers', () => {
  it('still comes from CORS_ORIGINS', async () => {
    const allowed = await app.rest('GET', '/auth/me', { token: user.token, headers: { origin: 'https://admin.example' } });
    const other = await app.rest('GET', '/auth/me', { token: user.token, headers: { origin: 'https://evil.example' } });
    expect([allowed.headers.get('access-control-allow-origin'), other.headers.get('access-control-allow-origin')]).toEqual([
      'https://admin.example',
      null,
    ]);
  });
});

describe('Cache-Control: no-store on credentialed answers', () => {
  const credentialed: Array<[string, () => Promise<{ status: number; headers: Headers }>]> = [
    ['a GraphQL answer', () => app.graphql('{ me { id } }', {}, { token: user.token })],
    ['a GraphQL GET answer', () => app.http('GET', `/graphql?query=${encodeURIComponent('{ me { id } }')}`, { token: user.token })],
    ['a GraphQL refusal (401)', () => app.graphql('{ me { id } }')],
    ['a GraphQL document refused (400)', () => app.graphql('{ nope }', {}, { token: user.token })],
    ['a sign-in', () => app.rest('POST', '/auth/login', { body: { email: user.email, password: user.password } })],
    ['a GraphQL sign-in', () =>
      app.graphql('mutation($e: String!, $p: String!) { login(email: $e, password: $p) { accessToken } }', { e: user.email, p: user.password })],
    ['a REST answer', () => app.rest('GET', '/auth/me', { token: user.token })],
    ['a REST refusal (401)', () => app.rest('GET', '/auth/me')],
    ['a REST 404', () => app.rest('GET', '/restaurant/meal-menus/000000000000000000000000', { token: user.token })],
    ['an unknown REST path', () => app.rest('GET', '/nowhere', { token: user.token })],
    ['malformed JSON (400)', () => app.rest('POST', '/auth/login', { rawBody: '{' })],
    ['an unknown GraphQL sub-path', () => app.http('POST', '/graphql/x', { body: { query: '{ me { id } }' } })],
  ];

  it.each(credentialed)('%s', async (_name, request) => {
    const { headers } = await request();
    expect(headers.get('cache-control')).toBe('no-store');
  });

  it.each([
    ['the OpenAPI document', '/api/v1/openapi.json'],
    ['the landing page', '/'],
  ])('not on %s, which is public', async (_name, path) => {
    const response = await app.http('GET', path);
    expect([response.status, response.headers.get('cache-control')]).toEqual([200, null]);
  });
});
