import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY_LIMITS } from '../../src/api-keys/api-key-limits.js';
import { apiCase, runCases, type Caller, type Operation } from '../support/surfaces.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * API key `metadata` is the one free-form JSON value that reaches storage as
 * sent. What MongoDB cannot store, or would store differently, is a 400
 * naming the field and rule, on both surfaces, and nothing is written
 * (found by the hostile-input proofs: a key holding NUL was a 500, keys
 * `__proto__` and `prototype` vanished from an accepted record, and MongoDB
 * itself refuses a document nested over 100 levels).
 */

let app: TestApp;
let admin: Caller;
beforeAll(async () => {
  app = await startTestApp();
  admin = { token: (await app.createUser({ tenantId: 't-metadata', roles: ['admin'] })).token };
});
afterAll(() => app?.close());

const create = (body: Record<string, unknown>): Operation => ({
  rest: { method: 'POST', path: '/api-keys', body },
  graphql: {
    query: 'mutation($name: String!, $scopes: [String!]!, $metadata: JSONObject) { createApiKey(name: $name, scopes: $scopes, metadata: $metadata) { name metadata } }',
    variables: body,
  },
});

const nested = (depth: number): Record<string, unknown> => {
  let value: Record<string, unknown> = {};
  for (let level = 1; level < depth; level += 1) value = { a: value };
  return value;
};

const stored = async (name: string) => app.db.collection('apikeys').find({ name }).toArray();

function refused(name: string, metadata: Record<string, unknown>, rule: string) {
  return apiCase({
    name,
    arrange: () => ({ name: `refused-${randomBytes(4).toString('hex')}`, scopes: ['menus:read'], metadata }),
    caller: () => admin,
    operation: (body) => create(body),
    expect: {
      status: 400,
      code: 'BAD_USER_INPUT',
      fieldErrors: [{ field: 'metadata', rule }],
      db: async (body) => expect(await stored(body.name)).toEqual([]),
    },
  });
}

const DEPTH = API_KEY_LIMITS.metadataDepth;

runCases('API key metadata MongoDB could not store as sent', () => app, [
  refused('refuses a key holding a NUL character', { 'a\u0000b': 1 }, 'storableKeys'),
  refused('refuses a NUL character in a nested key', { list: [{ '\u0000': 1 }] }, 'storableKeys'),
  refused('refuses a __proto__ key', Object.fromEntries([['__proto__', { isAdmin: true }]]), 'storableKeys'),
  refused('refuses a nested __proto__ key', { inner: Object.fromEntries([['__proto__', { x: 1 }]]) }, 'storableKeys'),
  refused('refuses a prototype key in a list', { list: [{ prototype: {} }] }, 'storableKeys'),
  refused('refuses a constructor key', { constructor: 1 }, 'storableKeys'),
  refused(`refuses objects nested deeper than ${DEPTH} levels`, nested(DEPTH + 1), 'maxDepth'),
  refused(`refuses arrays nested deeper than ${DEPTH} levels`, { a: JSON.parse(`${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}`) }, 'maxDepth'),
  refused('refuses metadata 60 levels deep by the depth rule (the other rules look no deeper)', nested(60), 'maxDepth'),
  apiCase({
    name: `stores metadata ${DEPTH} levels deep as sent`,
    arrange: () => ({
      name: `kept-${randomBytes(4).toString('hex')}`,
      scopes: ['menus:read'],
      metadata: { ...nested(DEPTH), list: [{ '': null, proto: 'x' }] },
    }),
    caller: () => admin,
    operation: (body) => create(body),
    expect: {
      status: 201,
      data: (data, body) => expect(data.metadata).toEqual(body.metadata),
      db: async (body) => expect((await stored(body.name)).map((key) => key.metadata)).toEqual([body.metadata]),
    },
  }),
]);

// Written as text: the test's own JSON.stringify would overflow its stack on such a value.
describe('a body nested 8,000 levels deep (was a 500: a validator overflowed the stack)', () => {
  const deepMetadata = `${'{"a":'.repeat(8000)}1${'}'.repeat(8000)}`;

  it.each(['rest', 'graphql'] as const)('is refused with 400 before any rule walks it, over %s, and nothing is written', async (surface) => {
    const name = `deep-${randomBytes(4).toString('hex')}`;
    const fields = `"name":"${name}","scopes":["menus:read"],"metadata":${deepMetadata}`;
    const response =
      surface === 'rest'
        ? await app.rest('POST', '/api-keys', { token: admin.token, rawBody: `{${fields}}`, headers: { 'content-type': 'application/json' } })
        : await app.http('POST', '/graphql', {
            token: admin.token,
            headers: { 'content-type': 'application/json' },
            rawBody: `{"query":${JSON.stringify(create({}).graphql.query)},"variables":{${fields}}}`,
          });
    expect(response.status).toBe(400);
    const code = surface === 'rest' ? response.body.code : response.body.errors[0].extensions.code;
    expect(code).toBe('BAD_USER_INPUT');
    expect(JSON.stringify(response.body)).toContain('64 levels');
    expect(await stored(name)).toEqual([]);
  });
});
