import { ObjectId } from 'mongodb';
import { expect, it } from 'vitest';
import type { ApiKeyUse } from '../../src/auth/index.js';
import { apiCase, runCases, type Operation } from '../support/surfaces.js';
import { app, client, exactMessage, makeKey, member, otherMember, outsider, queryString, reader, store, useApiKeysApp, VIEW_REFUSAL } from './api-key-fixtures.js';

/** Usage over time (`apiKeyUsage` / GET /api-keys/{id}/usage): hourly rollups written with the usage batches, bucketed by hour or UTC day. */

useApiKeysApp();

const usage = (id: string, args: { granularity: string; from: string; to: string }): Operation => ({
  rest: { method: 'GET', path: `/api-keys/${id}/usage${queryString(args)}` },
  graphql: {
    query: `query($id: ID!, $granularity: UsageGranularity!, $from: DateTimeISO!, $to: DateTimeISO!) {
      apiKeyUsage(id: $id, granularity: $granularity, from: $from, to: $to) { buckets { start total success unauthorized forbidden rateLimited } } }`,
    variables: { id, ...args },
  },
});

const use = (apiKeyId: string, at: string, status: number, refusal?: ApiKeyUse['refusal']): ApiKeyUse => ({
  apiKeyId,
  at: new Date(at),
  ip: '192.0.2.1',
  origin: null,
  method: 'GET',
  path: '/api/v1/restaurant/meal-menus',
  operation: null,
  status,
  ...(refusal ? { refusal } : {}),
});

/** A key of `member` with uses planted through the store (as the usage batches write them) over 1–2 March 2026, UTC. */
async function keyWithHistory() {
  const made = await makeKey(member);
  await store.recordUses([
    use(made.id, '2026-03-01T22:05:00Z', 200),
    use(made.id, '2026-03-01T22:59:59Z', 200),
    use(made.id, '2026-03-01T22:10:00Z', 403), // accepted, refused a scope
    use(made.id, '2026-03-01T22:20:00Z', 429, 'rateLimited'),
    use(made.id, '2026-03-01T23:00:00Z', 401, 'unauthorized'),
  ]);
  // A second batch adds to the same hours' rollups.
  await store.recordUses([use(made.id, '2026-03-02T01:00:00Z', 200), use(made.id, '2026-03-02T01:30:00Z', 201), use(made.id, '2026-03-02T01:59:00Z', 404)]);
  return made;
}

const zero = { total: 0, success: 0, unauthorized: 0, forbidden: 0, rateLimited: 0 };

runCases("reading an API key's usage over time", client, [
  apiCase({
    name: 'answers every hour of the range, oldest first, zeros included (the first bucket is the hour holding from)',
    arrange: keyWithHistory,
    caller: () => member,
    operation: ({ id }) => usage(id, { granularity: 'hour', from: '2026-03-01T21:30:00.000Z', to: '2026-03-02T02:00:00.000Z' }),
    expect: {
      status: 200,
      data: (answer) =>
        expect(answer.buckets).toEqual([
          { start: '2026-03-01T21:00:00.000Z', ...zero },
          { start: '2026-03-01T22:00:00.000Z', total: 4, success: 2, unauthorized: 0, forbidden: 1, rateLimited: 1 },
          { start: '2026-03-01T23:00:00.000Z', ...zero, total: 1, unauthorized: 1 },
          { start: '2026-03-02T00:00:00.000Z', ...zero },
          { start: '2026-03-02T01:00:00.000Z', ...zero, total: 3, success: 3 },
        ]),
    },
  }),
  apiCase({
    name: 'sums UTC days from the hours',
    arrange: keyWithHistory,
    caller: () => member,
    operation: ({ id }) => usage(id, { granularity: 'day', from: '2026-02-28T12:00:00.000Z', to: '2026-03-03T00:00:00.000Z' }),
    expect: {
      status: 200,
      data: (answer) =>
        expect(answer.buckets).toEqual([
          { start: '2026-02-28T00:00:00.000Z', ...zero },
          { start: '2026-03-01T00:00:00.000Z', total: 5, success: 2, unauthorized: 1, forbidden: 1, rateLimited: 1 },
          { start: '2026-03-02T00:00:00.000Z', ...zero, total: 3, success: 3 },
        ]),
    },
  }),
  apiCase({
    name: 'answers 1,000 buckets',
    arrange: () => makeKey(member),
    caller: () => member,
    operation: ({ id }) => usage(id, { granularity: 'hour', from: '2026-01-01T00:00:00.000Z', to: new Date(Date.parse('2026-01-01T00:00:00Z') + 1000 * 3_600_000).toISOString() }),
    expect: { status: 200, data: (answer) => expect([answer.buckets.length, answer.buckets.every((b: { total: number }) => b.total === 0)]).toEqual([1000, true]) },
  }),
  apiCase({
    name: 'refuses a range of 1,001 buckets (400 naming to and maxBuckets)',
    arrange: () => makeKey(member),
    caller: () => member,
    operation: ({ id }) => usage(id, { granularity: 'day', from: '2026-01-01T00:00:00.000Z', to: new Date(Date.parse('2026-01-01T00:00:00Z') + 1001 * 86_400_000).toISOString() }),
    expect: { status: 400, code: 'BAD_USER_INPUT', fieldErrors: [{ field: 'to', rule: 'maxBuckets' }] },
  }),
  apiCase({
    name: 'refuses to not later than from (400 naming to and isAfterFrom)',
    arrange: () => makeKey(member),
    caller: () => member,
    operation: ({ id }) => usage(id, { granularity: 'hour', from: '2026-01-02T00:00:00.000Z', to: '2026-01-02T00:00:00.000Z' }),
    expect: { status: 400, code: 'BAD_USER_INPUT', fieldErrors: [{ field: 'to', rule: 'isAfterFrom' }] },
  }),
  apiCase({
    name: 'is allowed to a holder of api-keys:read',
    arrange: keyWithHistory,
    caller: () => reader,
    operation: ({ id }) => usage(id, { granularity: 'day', from: '2026-03-01T00:00:00.000Z', to: '2026-03-02T00:00:00.000Z' }),
    expect: { status: 200, data: (answer) => expect(answer.buckets[0].total).toBe(5) },
  }),
  apiCase({
    name: 'refuses anyone else of the tenant with the 403 of viewing',
    arrange: () => makeKey(member),
    caller: () => otherMember,
    operation: ({ id }) => usage(id, { granularity: 'day', from: '2026-03-01T00:00:00.000Z', to: '2026-03-02T00:00:00.000Z' }),
    expect: { status: 403, code: 'FORBIDDEN', data: exactMessage(VIEW_REFUSAL) },
  }),
  apiCase({
    name: "answers 404 for another tenant's key",
    arrange: () => makeKey(member),
    caller: () => outsider,
    operation: ({ id }) => usage(id, { granularity: 'day', from: '2026-03-01T00:00:00.000Z', to: '2026-03-02T00:00:00.000Z' }),
    expect: { status: 404, code: 'NOT_FOUND' },
  }),
]);

it('keeps a rollup USAGE_ROLLUP_RETENTION past its hour (a TTL index), while the log entry keeps its own retention', async () => {
  const made = await keyWithHistory();
  const rollup = await app.db.collection('apikeyusagerollups').findOne({ apiKeyId: made.id, hour: new Date('2026-03-02T01:00:00Z') });
  expect(rollup?.expireAt).toEqual(new Date(Date.parse('2026-03-02T02:00:00Z') + 400 * 86_400_000));
  const indexes = await app.db.collection('apikeyusagerollups').indexes();
  expect(indexes.find((index) => index.key.expireAt === 1)?.expireAfterSeconds).toBe(0);
  const entry = await app.db.collection('apikeyusages').findOne({ apiKeyId: made.id, at: new Date('2026-03-02T01:00:00Z') });
  expect(entry?.expireAt).toEqual(new Date(Date.parse('2026-03-02T01:00:00Z') + 3600 * 1000));
  // Refusals at the credential are in the rollups only.
  expect(await app.db.collection('apikeyusages').countDocuments({ apiKeyId: made.id })).toBe(6);
  expect((await app.db.collection('apikeys').findOne({ _id: new ObjectId(made.id) }))?.usageCount).toBe(6);
});

/** Polls until `done` holds of what `read` answers (usage is written within a second). */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  let value = await read();
  for (let attempt = 0; attempt < 50 && !done(value); attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    value = await read();
  }
  return value;
}

it('agrees with usageCount after a mixed load over both surfaces: refusals, and a busy key on the grant path', async () => {
  const ok = 'https://ok.example.test';
  const key = await makeKey(member, { scopes: ['menus:read'], rateLimit: 12, allowedOrigins: [ok] });
  const busy = await makeKey(member, { scopes: ['menus:read'], rateLimit: 1_000_000 });
  const list = (token: string, origin: string | undefined, surface: number) =>
    surface % 2
      ? app.rest('GET', '/restaurant/meal-menus?limit=1', { token, headers: origin ? { origin } : {} })
      : app.graphql('query Menus { mealMenus(limit: 1) { items { id } } }', undefined, { token, headers: origin ? { origin } : {} });
  const statuses: number[] = [];
  for (let i = 0; i < 6; i += 1) statuses.push((await list(key.key, ok, i)).status); // success
  for (let i = 0; i < 2; i += 1) {
    // accepted, then refused for a scope the key lacks (403 from the auth checker)
    statuses.push((await app.rest('POST', '/restaurant/meal-menus', { token: key.key, headers: { origin: ok }, body: { name: 'x', date: '2026-05-05', mealType: 'lunch' } })).status);
  }
  for (let i = 0; i < 3; i += 1) statuses.push((await list(key.key, 'https://elsewhere.example.test', i)).status); // refused: origin
  for (let i = 0; i < 6; i += 1) statuses.push((await list(key.key, ok, i)).status); // 4 within the limit of 12, then 429
  await app.rest('PATCH', `/api-keys/${key.id}/revoke`, { token: member.token });
  for (let i = 0; i < 2; i += 1) statuses.push((await list(key.key, ok, i)).status); // refused: revoked
  expect(statuses).toEqual([...Array(6).fill(200), 403, 403, 403, 403, 403, ...Array(4).fill(200), 429, 429, 401, 401]);
  // The busy key: many uses at once, counted a few at a time (the grant path).
  const busyStatuses = await Promise.all(Array.from({ length: 60 }, (_, i) => list(busy.key, undefined, i).then((r) => r.status)));
  expect(busyStatuses.every((status) => status === 200)).toBe(true);

  const now = Date.now();
  const range = { granularity: 'hour', from: new Date(now - 3_600_000).toISOString(), to: new Date(now + 3_600_000).toISOString() };
  const sums = async (id: string) => {
    const answer = await app.rest('GET', `/api-keys/${id}/usage${queryString(range)}`, { token: member.token });
    const buckets = answer.body.buckets as Record<string, number>[];
    const sum = (field: string) => buckets.reduce((total, bucket) => total + bucket[field], 0);
    return { total: sum('total'), success: sum('success'), unauthorized: sum('unauthorized'), forbidden: sum('forbidden'), rateLimited: sum('rateLimited') };
  };
  const usageCount = async (id: string) => (await app.db.collection('apikeys').findOne({ _id: new ObjectId(id) }))?.usageCount;

  const counted = await eventually(() => usageCount(key.id), (count) => count === 12);
  const seen = await eventually(() => sums(key.id), (s) => s.total === 19);
  expect(seen).toEqual({ total: 19, success: 10, unauthorized: 2, forbidden: 5, rateLimited: 2 });
  // usageCount counts the uses the credential accepted: every success, and the 2 scope refusals after it (the 3 origin refusals are not).
  expect(counted).toBe(seen.success + 2);

  const busyCount = await eventually(() => usageCount(busy.id), (count) => count === 60);
  const busySeen = await eventually(() => sums(busy.id), (s) => s.total === 60);
  expect([busyCount, busySeen.total, busySeen.success]).toEqual([60, 60, 60]);
}, 30_000);
