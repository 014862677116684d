import { afterAll, beforeAll, expect } from 'vitest';
import { apiCase, runCases, type Caller, type Operation } from '../support/surfaces.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * A users list whose filter no index bounds (here a date range matching
 * nobody) reads at most LIST_READ_TIME_LIMIT (maxTimeMS), then answers 503
 * with Retry-After on both surfaces. 1 ms against 30,000 users is always
 * exceeded; a plain page stops after its items and still answers.
 */

let app: TestApp;
const TENANT = 'tenant-read-limit';
let reader: Caller;

function list(query: Record<string, string>): Operation {
  return {
    rest: { method: 'GET', path: `/access-control/users?${new URLSearchParams(query)}` },
    graphql: {
      query: 'query($createdAfter: DateTimeISO, $limit: Int) { users(createdAfter: $createdAfter, limit: $limit) { items { id } } }',
      variables: { ...query, ...(query.limit ? { limit: Number(query.limit) } : {}) },
    },
  };
}

beforeAll(async () => {
  app = await startTestApp({ env: { LIST_READ_TIME_LIMIT: '1' } });
  reader = { token: (await app.createUser({ tenantId: TENANT, roles: ['member'] })).token };
  for (let start = 0; start < 30_000; start += 5000) {
    await app.db.collection('users').insertMany(
      Array.from({ length: 5000 }, (_, i) => ({ email: `u${start + i}@limit.example.test`, firstName: 'U', tenant_id: TENANT, roles: [], createdAt: new Date(0) })),
    );
  }
}, 120_000);

afterAll(async () => {
  await app?.close();
});

runCases('a users list past its read time limit', () => app, [
  apiCase({
    name: 'answers 503 with Retry-After when a date filter reads past the limit',
    caller: () => reader,
    operation: () => list({ createdAfter: '2100-01-01T00:00:00.000Z' }),
    expect: { status: 503, code: 'SERVICE_UNAVAILABLE', headers: { 'retry-after': /^\d+$/ } },
  }),
  apiCase({
    name: 'still answers a page that no filter widens',
    caller: () => reader,
    operation: () => list({ limit: '5' }),
    expect: { status: 200, data: (page) => expect(page.items).toHaveLength(5) },
  }),
]);
