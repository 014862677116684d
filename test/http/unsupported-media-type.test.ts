import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

/**
 * contract.md: a body that is not application/json where JSON is expected is
 * 415 naming the expected type, on both surfaces, and nothing is written.
 */

let app: TestApp;
let user: TestUser;
beforeAll(async () => {
  app = await startTestApp();
  user = await app.createUser({ tenantId: 'tenant-415' });
});
afterAll(() => app?.close());

const MENU = { name: 'Lunch', date: '2030-01-18', mealType: 'lunch', items: ['soup'], estimatedPortions: 10 };
const CREATE_MENU = 'mutation { createMealMenu(name: "Lunch", date: "2030-01-18", mealType: lunch, items: ["soup"], estimatedPortions: 10) { id } }';

const OTHER_TYPES: Array<[string, Record<string, string>]> = [
  ['text/plain', { 'content-type': 'text/plain' }],
  ['text/plain;charset=UTF-8', { 'content-type': 'text/plain;charset=UTF-8' }],
  ['application/x-www-form-urlencoded', { 'content-type': 'application/x-www-form-urlencoded' }],
  ['multipart/form-data', { 'content-type': 'multipart/form-data; boundary=x' }],
  ['application/xml', { 'content-type': 'application/xml' }],
];

async function menuCount(): Promise<number> {
  return app.db.collection('mealmenus').countDocuments();
}

describe('REST: a JSON body sent as another type', () => {
  it.each(OTHER_TYPES)('%s is 415 problem+json naming application/json, and writes nothing', async (sent, headers) => {
    const before = await menuCount();
    const response = await app.rest('POST', '/restaurant/meal-menus', { token: user.token, rawBody: JSON.stringify(MENU), headers });
    expect({
      status: response.status,
      type: response.headers.get('content-type'),
      code: response.body.code,
      detail: response.body.detail,
    }).toEqual({
      status: 415,
      type: expect.stringContaining('application/problem+json'),
      code: 'UNSUPPORTED_MEDIA_TYPE',
      detail: `The request body must be sent as application/json (Content-Type: application/json), not ${sent.split(';')[0]}`,
    });
    expect(await menuCount()).toBe(before);
  });

  it('on PATCH as well', async () => {
    const response = await app.rest('PATCH', '/access-control/users/000000000000000000000000', {
      token: user.token,
      rawBody: '{"firstName":"Ada"}',
      headers: { 'content-type': 'text/plain' },
    });
    expect([response.status, response.body.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
  });

  it('without any Content-Type is 415 too', async () => {
    const response = await fetch(`${app.baseUrl}/api/v1/auth/login`, {
      method: 'POST',
      body: new Blob([JSON.stringify({ email: user.email, password: user.password })]),
    });
    const body = await response.json();
    expect([response.status, body.code, body.detail]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE', expect.stringContaining('without a Content-Type')]);
  });

  it('is no refusal of a bodiless POST (a revoke, a roll)', async () => {
    const response = await app.rest('PATCH', '/api-keys/000000000000000000000000/revoke', { token: user.token });
    expect(response.status).toBe(404);
  });

  it('refuses JSON in a charset other than UTF-8 with 415 naming the charset', async () => {
    const login = { email: user.email, password: user.password };
    const response = await app.rest('POST', '/auth/login', { rawBody: JSON.stringify(login), headers: { 'content-type': 'application/json; charset=latin1' } });
    expect([response.status, response.body.code, response.body.detail]).toEqual([
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      'The request body must be JSON in UTF-8 (Content-Type: application/json; charset=utf-8), not in latin1',
    ]);
  });

  it('accepts application/json with a charset, and +json types', async () => {
    const login = { email: user.email, password: user.password };
    const plain = await app.rest('POST', '/auth/login', { rawBody: JSON.stringify(login), headers: { 'content-type': 'application/json; charset=utf-8' } });
    const suffixed = await app.rest('POST', '/auth/login', { rawBody: JSON.stringify(login), headers: { 'content-type': 'application/vnd.api+json' } });
    expect([plain.status, suffixed.status]).toEqual([200, 200]);
  });
});

describe('GraphQL: a JSON body sent as another type', () => {
  it.each(OTHER_TYPES)('%s is 415 as a GraphQL error naming application/json, and writes nothing', async (_sent, headers) => {
    const before = await menuCount();
    const response = await app.http('POST', '/graphql', { token: user.token, rawBody: JSON.stringify({ query: CREATE_MENU }), headers });
    const [error] = response.body.errors ?? [];
    expect({
      status: response.status,
      code: error?.extensions?.code,
      httpStatus: error?.extensions?.http?.status,
      names: error?.message.includes('application/json'),
      data: response.body.data,
    }).toEqual({ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', httpStatus: 415, names: true, data: undefined });
    expect(await menuCount()).toBe(before);
  });

  it('even with Apollo-Require-Preflight (Apollo\'s own CSRF check would let it through to a 400)', async () => {
    const response = await app.http('POST', '/graphql', {
      token: user.token,
      rawBody: JSON.stringify({ query: '{ me { id } }' }),
      headers: { 'content-type': 'text/plain', 'apollo-require-preflight': 'true' },
    });
    expect([response.status, response.body.errors?.[0]?.extensions?.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
  });
});
