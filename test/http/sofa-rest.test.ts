import type { AddressInfo } from 'node:net';
import { request, type Server } from 'node:http';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createApp, type AppHandle } from '../../src/http/app.js';

/**
 * The REST layer's own rules, on a small schema of its own (no database):
 * exact routes, 201 for creations, bodies read like GraphQL variables.
 */

const schema = makeExecutableSchema({
  typeDefs: /* GraphQL */ `
    type Thing { id: ID!, name: String!, note: String, noteWasNull: Boolean!, count: Int }
    type Query { thing(id: ID!): Thing, things(limit: Int, mine: Boolean): [Thing!]! }
    type Mutation {
      createThing(name: String!, note: String, count: Int): Thing!
      renameThing(id: ID!, name: String!): Thing!
      setCount(id: ID!, count: Int!): Thing!
    }
  `,
  resolvers: {
    Query: {
      thing: (_: unknown, { id }: { id: string }) => ({ id, name: 'found', noteWasNull: false }),
      things: (_: unknown, { limit, mine }: { limit?: number; mine?: boolean }) => [{ id: `${limit}/${mine}`, name: 'n', noteWasNull: false }],
    },
    Mutation: {
      // Echoes what arrived, and whether `note` came as an explicit null.
      createThing: (_: unknown, args: { name: string; note?: string | null; count?: number }) => ({
        id: 'new',
        ...args,
        noteWasNull: args.note === null,
      }),
      renameThing: (_: unknown, { id, name }: { id: string; name: string }) => ({ id, name, noteWasNull: false }),
      setCount: (_: unknown, { id, count }: { id: string; count: number }) => ({ id, name: 'n', count, noteWasNull: false }),
    },
  },
});

const routes = {
  'Query.thing': { method: 'GET' as const, path: '/things/:id' },
  'Query.things': { method: 'GET' as const, path: '/things' },
  'Mutation.setCount': { method: 'PATCH' as const, path: '/things/:id/count/:count' },
  'Mutation.createThing': { method: 'POST' as const, path: '/things', responseStatus: 201 as const },
  'Mutation.renameThing': { method: 'PATCH' as const, path: '/things/:id/name' },
};

let handle: AppHandle;
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  const { config } = loadConfig({ NODE_ENV: 'test', JWT_SECRET: 'k'.repeat(40) });
  handle = await createApp(config, schema, {
    routes,
    createContext: async (_req, { requestId }) => ({ requestId }),
    openApi: { title: 'Things', description: 'A small schema of its own', version: '0.0.1', securitySchemes: {} },
    logger: pino({ level: 'silent' }),
  });
  server = handle.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await handle?.stop();
});

async function call(method: string, path: string, body?: unknown) {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

describe('REST routes from GraphQL operations', () => {
  it('answers 201 for an operation whose route says responseStatus: 201', async () => {
    expect((await call('POST', '/things', { name: 'a' })).status).toBe(201);
  });

  it('answers 200 by default', async () => {
    expect((await call('PATCH', '/things/7/name', { name: 'b' })).status).toBe(200);
  });

  it('fills arguments from the path', async () => {
    expect((await call('GET', '/things/42')).body.id).toBe('42');
  });

  it('takes a body field that repeats a path parameter with the same value', async () => {
    expect((await call('PATCH', '/things/7/name', { id: '7', name: 'b' })).body).toMatchObject({ id: '7', name: 'b' });
    expect((await call('PATCH', '/things/7/count/5', { count: 5 })).body).toMatchObject({ id: '7', count: 5 });
  });

  it('refuses a body field that contradicts a path parameter, naming it, without acting on either', async () => {
    const response = await call('PATCH', '/things/7/name', { id: 'other', name: 'b' });
    expect([response.status, response.body.errors?.[0]?.field, response.body.errors?.[0]?.rule]).toEqual([400, 'id', 'matchesPath']);
  });

  it('reads an empty or bare query value as "", as GraphQL would (SOFA alone drops it): a bare flag is no true', async () => {
    for (const [query, field] of [['?mine', 'mine'], ['?mine=', 'mine'], ['?limit=', 'limit']] as const) {
      const response = await call('GET', `/things${query}`);
      expect([response.status, response.body.errors?.map((e: { field: string; rule: string }) => [e.field, e.rule])], query).toEqual([400, [[field, 'type']]]);
    }
  });

  it('refuses a query value of GET or DELETE that contradicts a path parameter; the same value is fine', async () => {
    const response = await call('GET', '/things/7?id=8');
    expect([response.status, response.body.errors]).toEqual([
      400,
      [{ field: 'id', rule: 'matchesPath', message: 'id in the query string must be the id of the path, or absent' }],
    ]);
    expect((await call('GET', '/things/7?id=7')).body).toMatchObject({ id: '7', name: 'found' });
  });

  it('refuses a path parameter sent in the query string of a body route, saying it belongs in the path', async () => {
    const response = await call('PATCH', '/things/7/count/5?count=9');
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([{ field: 'count', rule: 'inPath', message: 'count belongs in the path' }]);
    expect(response.body.detail).toBe('Send count in the path, not in the query string');
  });

  it.each([
    ['a bracketed object', '/things?mine[$ne]=x', 'mine'],
    ['a bracketed list for one value', '/things?limit[]=1', 'limit'],
    ['a nested key', '/things?limit[a]=1', 'limit'],
  ])('refuses %s in the query string, naming the field', async (_name, path, field) => {
    const response = await call('GET', path);
    expect([response.status, response.body.errors?.[0]?.field, response.body.errors?.[0]?.rule]).toEqual([400, field, 'type']);
  });

  it('never repeats a refused path or query value back', async () => {
    const secret = 'SECRETVALUE' + 'z'.repeat(60);
    for (const path of [`/things?mine=${secret}`, `/things?limit=${secret}`, `/things/7/count/${secret}`]) {
      const response = await fetch(`${baseUrl}${path}`, { method: path.includes('count') ? 'PATCH' : 'GET' });
      const text = await response.text();
      expect(response.status).toBe(400);
      expect(text).not.toContain('SECRETVALUE');
    }
  });

  it('serves no route at SOFA\'s default path when an override exists', async () => {
    expect((await call('POST', '/create-thing', { name: 'a' })).status).toBe(404);
  });

  it('offers none of SOFA\'s subscription webhooks', async () => {
    const response = await call('POST', '/webhook', { subscription: 'x', url: 'http://127.0.0.1:1/' });
    expect([response.status, response.body.code]).toEqual([404, 'NOT_FOUND']);
  });

  it('answers a wrong method on a known path with 405, naming the methods it takes in Allow', async () => {
    const response = await fetch(`${baseUrl}/things/1`, { method: 'DELETE' });
    expect([response.status, response.headers.get('allow')]).toEqual([405, 'GET, HEAD, OPTIONS']);
    expect((await response.json()).code).toBe('METHOD_NOT_ALLOWED');
    const twoMethods = await fetch(`${baseUrl}/things`, { method: 'PUT' });
    expect([twoMethods.status, twoMethods.headers.get('allow')]).toEqual([405, 'GET, POST, HEAD, OPTIONS']);
    const noGet = await fetch(`${baseUrl}/things/1/name`, { method: 'HEAD' });
    expect([noGet.status, noGet.headers.get('allow')]).toEqual([405, 'PATCH, OPTIONS']);
  });

  it('answers HEAD of a GET route as that GET, without the body', async () => {
    const get = await fetch(`${baseUrl}/things/7`);
    const head = await fetch(`${baseUrl}/things/7`, { method: 'HEAD' });
    expect([head.status, head.headers.get('content-type'), head.headers.get('content-length')]).toEqual([
      200,
      get.headers.get('content-type'),
      get.headers.get('content-length'),
    ]);
    expect(await head.text()).toBe('');
    expect(await get.json()).toMatchObject({ id: '7', name: 'found' });
  });

  it('answers OPTIONS (no CORS preflight) with 204 and the methods of the path in Allow', async () => {
    const options = await fetch(`${baseUrl}/things`, { method: 'OPTIONS' });
    expect([options.status, options.headers.get('allow'), await options.text()]).toEqual([204, 'GET, POST, HEAD, OPTIONS', '']);
    expect((await fetch(`${baseUrl}/nothing-here`, { method: 'OPTIONS' })).status).toBe(404);
  });

  it('still answers 404 for a path no route has', async () => {
    expect((await call('DELETE', '/nothing/1')).status).toBe(404);
  });
});

describe('REST path and query arguments', () => {
  it('converts an integer path parameter', async () => {
    expect((await call('PATCH', '/things/1/count/5')).body.count).toBe(5);
  });

  it('refuses a word as an integer path parameter, naming the field', async () => {
    const response = await call('PATCH', '/things/1/count/abc');
    expect([response.status, response.body.errors?.[0]?.field, response.body.errors?.[0]?.rule]).toEqual([400, 'count', 'type']);
  });

  it('refuses a fraction as an integer path parameter, naming the field', async () => {
    const response = await call('PATCH', '/things/1/count/1.5');
    expect([response.status, response.body.errors?.[0]?.field]).toEqual([400, 'count']);
  });

  it.each(['0x10', '1e2', '+5', '%205', '5.0'])(
    'refuses %s as an integer path parameter, as GraphQL refuses it, naming the field',
    async (count) => {
      const response = await call('PATCH', `/things/1/count/${count}`);
      expect([response.status, response.body.errors?.[0]?.field, response.body.errors?.[0]?.rule]).toEqual([400, 'count', 'type']);
    },
  );

  it('converts an integer query parameter', async () => {
    expect((await call('GET', '/things?limit=3')).body[0].id).toBe('3/undefined');
  });

  it('reads a boolean query parameter', async () => {
    expect((await call('GET', '/things?mine=true')).body[0].id).toBe('undefined/true');
  });

  it.each(['1', 'TRUE', 'yes'])('refuses %s as a boolean query parameter, naming the field', async (mine) => {
    const response = await call('GET', `/things?mine=${mine}`);
    expect([response.status, response.body.errors?.[0]?.field, response.body.errors?.[0]?.rule]).toEqual([400, 'mine', 'type']);
  });

  it('reads false as a boolean query parameter', async () => {
    expect((await call('GET', '/things?mine=false')).body[0].id).toBe('undefined/false');
  });

  it('refuses a query parameter given twice, naming the field', async () => {
    const response = await call('GET', '/things?limit=1&limit=2');
    expect([response.status, response.body.errors?.[0]?.field, response.body.errors?.[0]?.rule]).toEqual([400, 'limit', 'type']);
  });

  it('refuses a word as an integer query parameter, naming the field', async () => {
    const response = await call('GET', '/things?limit=lots');
    expect([response.status, response.body.errors?.[0]?.field]).toEqual([400, 'limit']);
  });
});

describe('REST bodies are read like GraphQL variables', () => {
  it('passes an explicit null through (null clears a field)', async () => {
    expect((await call('POST', '/things', { name: 'a', note: null })).body.noteWasNull).toBe(true);
  });

  it('leaves an absent field absent', async () => {
    expect((await call('POST', '/things', { name: 'a' })).body.noteWasNull).toBe(false);
  });

  it('refuses a number where a string is expected, naming the field', async () => {
    const response = await call('POST', '/things', { name: 42 });
    expect([response.status, response.body.errors?.[0]?.field, response.body.errors?.[0]?.rule]).toEqual([400, 'name', 'type']);
  });

  it('refuses a string where an integer is expected, naming the field', async () => {
    const response = await call('POST', '/things', { name: 'a', count: '3' });
    expect([response.status, response.body.errors?.[0]?.field]).toEqual([400, 'count']);
  });

  it('refuses an object where a string is expected, naming the field', async () => {
    const response = await call('POST', '/things', { name: { $ne: null } });
    expect([response.status, response.body.errors?.[0]?.field, response.body.errors?.[0]?.rule]).toEqual([400, 'name', 'type']);
  });

  it('refuses a word where an integer is expected, naming the field', async () => {
    const response = await call('POST', '/things', { name: 'a', count: 'many' });
    expect([response.status, response.body.errors?.[0]?.field, response.body.errors?.[0]?.rule]).toEqual([400, 'count', 'type']);
  });

  it('refuses a body on a GET route, naming its fields (arguments come from the URL)', async () => {
    // fetch() cannot send a GET body; a plain HTTP request can.
    const text = JSON.stringify({ limit: 1 });
    const url = new URL(`${baseUrl}/things`);
    const response = await new Promise<{ status: number; body: any }>((resolve, reject) => {
      const headers = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) };
      const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: 'GET', headers }, (res) => {
        let data = '';
        res.on('data', (chunk) => (data += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(data) }));
      });
      req.once('error', reject).end(text);
    });
    expect([response.status, response.body.errors?.[0]?.field, response.body.errors?.[0]?.rule]).toEqual([400, 'limit', 'inUrl']);
  });

  it('refuses an unknown field, naming it', async () => {
    const response = await call('POST', '/things', { name: 'a', colour: 'red' });
    expect([response.status, response.body.errors?.[0]?.field, response.body.errors?.[0]?.rule]).toEqual([400, 'colour', 'unknown']);
  });
});

describe('REST path parameters reach the operation as SOFA\'s router reads them', () => {
  // A plain path goes straight to SOFA's handler of the route the request edge matched (use-sofa-rest.ts);
  // any other goes through fets' router. Both must hand the operation the same decoded value.
  it('decodes a percent-escaped path parameter of a plain path', async () => {
    expect((await call('GET', '/things/a%20b%2Fc')).body.id).toBe('a b/c');
  });

  it('reads a path parameter of a path that is not plain (fets\' router) the same way', async () => {
    // `|` is no character of a plain path (rest-arguments.ts PLAIN_PATH); fetch sends it as it is.
    expect((await call('GET', '/things/a|b%20c')).body.id).toBe('a|b c');
  });

  it('refuses an escape that is no UTF-8 (%FF) with 400, as behind fets\' router', async () => {
    const response = await call('GET', '/things/%FF');
    expect([response.status, response.body.code, response.body.detail]).toEqual([400, 'BAD_USER_INPUT', 'URI malformed']);
  });

  it('takes a query argument beside path parameters on a plain path', async () => {
    const response = await call('GET', '/things?limit=2&mine=false');
    expect(response.body[0].id).toBe('2/false');
  });
});

describe('SOFA route handlers by operation', () => {
  it('finds SOFA\'s handler for every operation of the service\'s route table (else those calls take fets\' router)', async () => {
    const { buildServiceSchema, restRoutes } = await import('../../src/service.js');
    const { useSofa } = await import('sofa-api');
    const { sofaRouteHandlers } = await import('../../src/http/use-sofa-rest.js');
    const serviceSchema = await buildServiceSchema();
    const router = useSofa({ schema: serviceSchema, basePath: '/api/v1', routes: restRoutes });
    const handlers = sofaRouteHandlers(router, restRoutes);
    expect([...handlers.keys()].sort()).toEqual(Object.keys(restRoutes).sort());
  });
});

describe('the route a REST call runs, as SOFA\'s router chooses it', () => {
  // The request edge finds the route (rest-arguments.ts) and SOFA's handler of it is called
  // directly (use-sofa-rest.ts): where several routes match, both must pick the one fets' router picks.
  const overlapping = makeExecutableSchema({
    typeDefs: 'type Query { first(a: String!): String!, second(b: String!): String!, fixed: String! } type Mutation { touch(a: String!): String! }',
    resolvers: { Query: { first: () => 'first', second: () => 'second', fixed: () => 'fixed' }, Mutation: { touch: () => 'touch' } },
  });
  // Listed out of the schema's order on purpose; no method for the mutation (SOFA's default: POST).
  const overlappingRoutes = {
    'Query.second': { method: 'GET' as const, path: '/x/:b' },
    'Query.first': { method: 'GET' as const, path: '/x/:a' },
    'Query.fixed': { method: 'GET' as const, path: '/x/fixed' },
    'Mutation.touch': { path: '/x/:a' },
  };

  it.each([
    ['GET', '/x/1', 'Query.first', 'first'],
    ['GET', '/x/fixed', 'Query.fixed', 'fixed'],
    ['POST', '/x/1', 'Mutation.touch', 'touch'],
  ])('%s %s runs %s, on the edge and in SOFA alike', async (method, path, operation, answer) => {
    const { createRestArgumentReader } = await import('../../src/http/rest-arguments.js');
    expect(createRestArgumentReader(overlapping, overlappingRoutes, '/api/v1').match({ method, path: `/api/v1${path}` })?.operation).toBe(operation);
    const { config } = loadConfig({ NODE_ENV: 'test', JWT_SECRET: 'k'.repeat(40) });
    const app = await createApp(config, overlapping, {
      routes: overlappingRoutes,
      createContext: async () => ({}),
      openApi: { title: 'Overlapping', description: 'Routes that overlap', version: '0.0.1', securitySchemes: {} },
      logger: pino({ level: 'silent' }),
    });
    const listening = app.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => listening.once('listening', resolve));
    try {
      const response = await fetch(`http://127.0.0.1:${(listening.address() as AddressInfo).port}/api/v1${path}`, { method });
      expect(await response.json()).toBe(answer);
    } finally {
      listening.closeAllConnections();
      await new Promise((resolve) => listening.close(resolve));
      await app.stop();
    }
  });
});
