import { ObjectId } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

/**
 * A document Apollo has validated, sent again, is answered without Apollo's
 * request pipeline when it runs without errors (src/http/apollo-known-documents.ts);
 * everything else still gets Apollo's answer. Each case sends its document
 * once first, so the later requests are the ones that take the short way.
 */

let app: TestApp;
let admin: TestUser;
beforeAll(async () => {
  app = await startTestApp();
  admin = await app.createUser({ tenantId: 'tenant-known', firstName: 'Known' });
});
afterAll(() => app?.close());

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/** Headers that differ per request whoever answers. */
const PER_REQUEST = new Set(['date', 'x-request-id']);

async function post(body: unknown, headers: Record<string, string> = {}): Promise<RawAnswer> {
  const response = await fetch(`${app.baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${admin.token}`, ...headers },
    body: JSON.stringify(body),
  });
  const kept = [...response.headers].filter(([name]) => !PER_REQUEST.has(name));
  return { status: response.status, headers: Object.fromEntries(kept), text: await response.text() };
}

const code = (answer: RawAnswer) => JSON.parse(answer.text).errors?.[0]?.extensions?.code;

describe('a document sent again', () => {
  it('is answered exactly as Apollo answered it the first time: status, headers, body', async () => {
    const request = { query: 'query Me { me { firstName } }', operationName: 'Me', variables: null };
    const first = await post(request);
    const again = [await post(request), await post(request, { accept: '*/*' }), await post(request, { accept: 'application/json' })];
    expect(first).toMatchObject({ status: 200, text: '{"data":{"me":{"firstName":"Known"}}}\n' });
    for (const answer of again) expect(answer).toEqual(first);
  });

  it('a mutation that then fails runs once, and Apollo answers its errors (404 NOT_FOUND, one audit record)', async () => {
    const query = 'mutation($id: ID!, $portions: Int!) { updateEstimatedPortions(id: $id, portions: $portions) { id } }';
    await post({ query, variables: { id: new ObjectId().toHexString(), portions: 1 } });
    const requestId = `known-${new ObjectId().toHexString()}`;
    const answer = await post({ query, variables: { id: new ObjectId().toHexString(), portions: 2 } }, { 'x-request-id': requestId });
    expect([answer.status, code(answer), answer.headers['content-type']]).toEqual([404, 'NOT_FOUND', 'application/json; charset=utf-8']);
    expect(await app.db.collection('auditevents').countDocuments({ requestId })).toBe(1);
  });

  it('an error of a query keeps its status and headers (401 with WWW-Authenticate, no caller)', async () => {
    const request = { query: '{ mealMenus(limit: 1) { nextCursor } }' };
    await post(request);
    const answer = await post(request, { authorization: '' });
    expect([answer.status, code(answer)]).toEqual([401, 'UNAUTHENTICATED']);
    expect(answer.headers['www-authenticate']).toMatch(/^Bearer/);
  });

  it('with variables that do not read: the one BAD_USER_INPUT refusal, as the first time', async () => {
    const query = 'query($limit: Int, $date: String) { mealMenus(limit: $limit, date: $date) { nextCursor } }';
    const first = await post({ query, variables: { limit: 'many', date: 'tomorrow' } });
    await post({ query, variables: { limit: 1 } });
    const again = await post({ query, variables: { limit: 'many', date: 'tomorrow' } });
    expect([again.status, code(again)]).toEqual([400, 'BAD_USER_INPUT']);
    expect(JSON.parse(again.text).errors[0].extensions.errors).toEqual(JSON.parse(first.text).errors[0].extensions.errors);
  });

  it('with variables that make it cost over the limit: refused before it runs', async () => {
    // At limit 100 each page costs 1 + (1 + 100 x 5) = 502: ten are 5020.
    const pages = Array.from({ length: 10 }, (_, n) => `p${n}: mealMenus(limit: $limit) { items { id name description date mealType } }`);
    const query = `query($limit: Int) { ${pages.join(' ')} }`;
    expect((await post({ query, variables: { limit: 1 } })).status).toBe(200);
    const answer = await post({ query, variables: { limit: 100 } });
    expect([answer.status, code(answer)]).toEqual([400, 'GRAPHQL_VALIDATION_FAILED']);
    expect(JSON.parse(answer.text).errors[0].message).toMatch(/costs \d+, over the limit of 5000/);
  });

  it('with another Accept: Apollo chooses the content type', async () => {
    const request = { query: '{ me { id } }' };
    await post(request);
    const answer = await post(request, { accept: 'application/graphql-response+json' });
    expect([answer.status, answer.headers['content-type']]).toEqual([200, 'application/graphql-response+json; charset=utf-8']);
  });

  it('with extensions: Apollo reads them (no persisted queries here)', async () => {
    const request = { query: '{ me { email } }' };
    await post(request);
    const answer = await post({ ...request, extensions: { persistedQuery: { version: 1, sha256Hash: 'x' } } });
    expect([answer.status, code(answer)]).toEqual([400, 'PERSISTED_QUERY_NOT_SUPPORTED']);
  });

  it('naming an operation it does not have: Apollo refuses it', async () => {
    const query = 'query A { me { id } } query B { me { email } }';
    expect((await post({ query, operationName: 'A' })).status).toBe(200);
    for (const operationName of ['C', '']) {
      const answer = await post({ query, operationName });
      expect([answer.status, code(answer)]).toEqual([400, 'OPERATION_RESOLUTION_FAILURE']);
    }
  });
});
