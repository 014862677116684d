import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { UserModel, userAccountStore } from '../../src/users/index.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * An unexpected failure is logged exactly once per request, with its request
 * id and its real cause, whichever surface answered it and wherever it was
 * raised: in a resolver, while answering (a stored value the schema cannot
 * represent), or at the request edge (resolving the caller).
 */

const lines: Record<string, any>[] = [];
const sink = new Writable({
  write(chunk, _encoding, done) {
    for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
    done();
  },
});
const logger = createLogger({ logLevel: 'info' }, sink);

let app: TestApp;
let token: string;
let brokenMenuId: string;
beforeAll(async () => {
  app = await startTestApp({ logger });
  token = (await app.createUser({ tenantId: null })).token;
  const planted = await app.db.collection('mealmenus').insertOne({
    name: 'legacy',
    date: '2026-01-01',
    mealType: 'brunch',
    items: [],
    estimatedPortions: 1,
    tenant_id: 'tenant-log-once',
  });
  brokenMenuId = String(planted.insertedId);
});
afterAll(async () => {
  await app?.close();
});
afterEach(() => vi.restoreAllMocks());

/** Log lines are written as the response finishes: wait for the request's access line. */
async function unexpectedLinesOf(requestId: string): Promise<Record<string, any>[]> {
  for (let attempt = 0; attempt < 50 && !lines.some((line) => line.req?.id === requestId); attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return lines.filter((line) => line.msg === 'unexpected error' && line.requestId === requestId);
}

const login = { email: 'nobody@example.test', password: 'Passw0rd!' };
const loginQuery = 'mutation($email: String!, $password: String!) { login(email: $email, password: $password) { accessToken } }';

describe('an unexpected error is logged once per request', () => {
  it('thrown in a resolver, over REST', async () => {
    vi.spyOn(UserModel, 'find').mockImplementation(() => {
      throw new Error('db-11 is down');
    });
    const response = await app.rest('POST', '/auth/login', { body: login, headers: { 'x-request-id': 'once-rest-1' } });
    const logged = await unexpectedLinesOf('once-rest-1');
    expect([response.status, logged.length, logged[0]?.err?.message]).toEqual([500, 1, 'db-11 is down']);
  });

  it('thrown in a resolver, over GraphQL', async () => {
    vi.spyOn(UserModel, 'find').mockImplementation(() => {
      throw new Error('db-12 is down');
    });
    const response = await app.graphql(loginQuery, login, { headers: { 'x-request-id': 'once-gql-1' } });
    const logged = await unexpectedLinesOf('once-gql-1');
    expect([response.status, logged.length, logged[0]?.err?.message]).toEqual([500, 1, 'db-12 is down']);
  });

  it('raised while answering a stored value the schema cannot represent, over REST', async () => {
    const response = await app.rest('GET', `/restaurant/meal-menus/${brokenMenuId}`, { token, headers: { 'x-request-id': 'once-rest-2' } });
    expect([response.status, (await unexpectedLinesOf('once-rest-2')).length]).toEqual([500, 1]);
  });

  it('raised while answering a stored value the schema cannot represent, over GraphQL', async () => {
    const response = await app.graphql('query($id: ID!) { mealMenu(id: $id) { id mealType } }', { id: brokenMenuId }, {
      token,
      headers: { 'x-request-id': 'once-gql-2' },
    });
    expect([response.status, (await unexpectedLinesOf('once-gql-2')).length]).toEqual([500, 1]);
  });

  describe('raised at the request edge, resolving the caller', () => {
    const breakAccounts = () => vi.spyOn(userAccountStore, 'findAccount').mockRejectedValue(new Error('users unreachable at db-13'));

    it('over REST', async () => {
      breakAccounts();
      const response = await app.rest('GET', '/access-control/permissions', { token, headers: { 'x-request-id': 'once-rest-3' } });
      expect([response.status, (await unexpectedLinesOf('once-rest-3')).length]).toEqual([500, 1]);
    });

    it('over GraphQL', async () => {
      breakAccounts();
      const response = await app.graphql('{ permissions }', undefined, { token, headers: { 'x-request-id': 'once-gql-3' } });
      expect([response.status, (await unexpectedLinesOf('once-gql-3')).length]).toEqual([500, 1]);
    });
  });
});
