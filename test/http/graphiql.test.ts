import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.close());

/** Every src= and href= of an HTML page. */
function references(html: string): string[] {
  return [...html.matchAll(/\b(?:src|href)="([^"]*)"/g)].map((m) => m[1]!);
}

describe('GraphiQL, the offline GraphQL IDE', () => {
  it('serves its page at /graphiql without a credential', async () => {
    const response = await app.http('GET', '/graphiql');
    expect([response.status, response.headers.get('content-type')]).toEqual([200, expect.stringContaining('text/html')]);
    expect(String(response.body)).toContain('<div id="graphiql">');
  });

  it('loads only local files: no external URL, no inline script', async () => {
    const html = String((await app.http('GET', '/graphiql')).body);
    const refs = references(html);
    expect(refs.length).toBeGreaterThanOrEqual(6);
    // Its assets, the service's icon and the link back to the front door.
    for (const ref of refs) expect(ref).toMatch(/^(\/graphiql\/assets\/[\w.-]+|\/favicon\.svg|\/)$/);
    expect(html).not.toMatch(/https?:\/\//);
    // Each <script> has a src and an empty body, so a CSP may forbid inline scripts.
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.map(([, attrs, body]) => [/\bsrc="/.test(attrs!), body!.trim()])).toEqual(
      scripts.map(() => [true, '']),
    );
  });

  it('tells where the credential goes (the front door\'s sign-in, or the Headers tab)', async () => {
    const html = String((await app.http('GET', '/graphiql')).body);
    const text = html.replace(/<[^>]*>/g, '').replace(/&#(\d+);/g, (_m, code) => String.fromCharCode(Number(code))).replace(/\s+/g, ' ');
    expect(text).toMatch(/Sign in at the front door \(its token fills the Headers tab\), or put \{"Authorization": "Bearer <token or API key>"\} there yourself/);
  });

  it.each([
    ['react.production.min.js', 'javascript'],
    ['react-dom.production.min.js', 'javascript'],
    ['graphiql.min.js', 'javascript'],
    ['graphiql-init.js', 'javascript'],
    ['graphiql.min.css', 'text/css'],
    ['graphiql-page.css', 'text/css'],
    ['graphiql.min.js.map', 'json'],
  ])('serves the asset %s (%s)', async (name, type) => {
    const response = await fetch(`${app.baseUrl}/graphiql/assets/${name}`);
    const body = await response.text();
    expect([response.status, response.headers.get('content-type')]).toEqual([200, expect.stringContaining(type)]);
    expect(body.length).toBeGreaterThan(100);
  });

  it('serves every asset the page references', async () => {
    const html = String((await app.http('GET', '/graphiql')).body);
    for (const ref of references(html)) {
      const response = await fetch(`${app.baseUrl}${ref}`);
      await response.arrayBuffer();
      expect([ref, response.status]).toEqual([ref, 200]);
    }
  });

  it('points GraphiQL at /graphql, with the headers editor on and the headers persisted', async () => {
    const script = String((await app.http('GET', '/graphiql/assets/graphiql-init.js')).body);
    expect(script).toContain('var url = new URL("/graphql"');
    expect(script).toContain('GraphiQL.createFetcher({ url: url })');
    // Subscriptions over WebSocket on the same URL, through the local graphql-ws client.
    expect(script).toContain("graphqlWs.createClient({ url: url.replace(/^http/, 'ws')");
    const client = await app.http('GET', '/graphiql/assets/graphql-ws.min.js');
    expect(client.status).toBe(200);
    expect(script).toContain('isHeadersEditorEnabled: true');
    expect(script).toContain('shouldPersistHeaders: true');
  });

  it('answers 404 for an asset it does not have (no folder listing)', async () => {
    const response = await app.http('GET', '/graphiql/assets/package.json');
    expect(response.status).toBe(404);
  });

  it('leaves /graphql to Apollo', async () => {
    const response = await app.graphql('{ __typename }');
    expect([response.status, response.body.data]).toEqual([200, { __typename: 'Query' }]);
  });
});

describe('the landing page at /', () => {
  it('is HTML, without a credential', async () => {
    const response = await app.http('GET', '/');
    expect([response.status, response.headers.get('content-type')]).toEqual([200, expect.stringContaining('text/html')]);
  });

  it('links the front doors: Apollo Sandbox, GraphiQL, Swagger UI, the OpenAPI document, /healthz and /readyz', async () => {
    const html = String((await app.http('GET', '/')).body);
    const own = ['/favicon.svg', '/assets/front-door.css', '/assets/front-door.js'];
    expect(references(html).filter((ref) => !own.includes(ref))).toEqual(['/graphql', '/graphiql', '/api/v1/docs/', '/api/v1/openapi.json', '/healthz', '/readyz']);
    // Its sign-in script and style are files of their own (the CSP forbids inline ones).
    expect(references(html).filter((ref) => own.includes(ref)).sort()).toEqual([...own].sort());
    expect([...html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)].map(([, body]) => body!.trim())).toEqual(['']);
    expect(html).toMatch(/Apollo Sandbox[\s\S]*internet/);
    expect(html).not.toMatch(/https?:\/\//);
  });

  it('links only pages that answer', async () => {
    const html = String((await app.http('GET', '/')).body);
    for (const ref of references(html)) {
      const response = await app.http('GET', ref, { headers: { accept: 'text/html' } });
      expect([ref, response.status]).toEqual([ref, 200]);
    }
  });
});
