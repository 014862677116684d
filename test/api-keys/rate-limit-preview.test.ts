import { expect } from 'vitest';
import type { ApiKeyUse } from '../../src/auth/index.js';
import { apiCase, runCases, type Operation } from '../support/surfaces.js';
import { client, exactMessage, makeKey, member, otherMember, outsider, queryString, reader, store, useApiKeysApp, VIEW_REFUSAL } from './api-key-fixtures.js';

/** `apiKeyRateLimitPreview` / GET /api-keys/{id}/rate-limit-preview: what a proposed limit would have refused, from the hourly rollups. */

useApiKeysApp();

const preview = (id: string, args: { rateLimit?: unknown; days?: unknown }): Operation => ({
  rest: { method: 'GET', path: `/api-keys/${id}/rate-limit-preview${queryString(args as Record<string, number>)}` },
  graphql: {
    query: `query($id: ID!, $rateLimit: Int!, $days: Int) {
      apiKeyRateLimitPreview(id: $id, rateLimit: $rateLimit, days: $days) { rateLimit days hoursRefused requestsRefused } }`,
    variables: { id, ...args },
  },
});

const HOUR = 3_600_000;

/** `count` uses in the hour starting `hoursAgo` hours before this one; `refusal` marks them refused at the credential. */
function usesIn(apiKeyId: string, hoursAgo: number, count: number, status = 200, refusal?: ApiKeyUse['refusal']): ApiKeyUse[] {
  const hour = Math.floor(Date.now() / HOUR) * HOUR - hoursAgo * HOUR;
  return Array.from({ length: count }, (_, i) => ({
    apiKeyId,
    at: new Date(hour + i * 1000),
    ip: '192.0.2.1',
    origin: null,
    method: 'GET',
    path: '/api/v1/restaurant/meal-menus',
    operation: null,
    status,
    ...(refusal ? { refusal } : {}),
  }));
}

/**
 * Hours of a key's history: 5 hours ago 12 requests (10 accepted, 2 refused 429), 3 hours ago 4,
 * 2 days ago 9 (and 6 refused 401, which never reach a limit), 40 days ago 50 (outside 30 days).
 */
async function keyWithHours() {
  const made = await makeKey(member);
  await store.recordUses([
    ...usesIn(made.id, 5, 10),
    ...usesIn(made.id, 5, 2, 429, 'rateLimited'),
    ...usesIn(made.id, 3, 4),
    ...usesIn(made.id, 48, 9, 403),
    ...usesIn(made.id, 48, 6, 401, 'unauthorized'),
    ...usesIn(made.id, 40 * 24, 50),
  ]);
  return made;
}

runCases('previewing a rate limit', client, [
  apiCase({
    name: 'counts the hours and the requests past the proposed limit over the last 30 days by default',
    arrange: keyWithHours,
    caller: () => member,
    operation: ({ id }) => preview(id, { rateLimit: 5 }),
    expect: { status: 200, data: (answer) => expect(answer).toEqual({ rateLimit: 5, days: 30, hoursRefused: 2, requestsRefused: 7 + 4 }) },
  }),
  apiCase({
    name: 'looks back the days asked',
    arrange: keyWithHours,
    caller: () => member,
    operation: ({ id }) => preview(id, { rateLimit: 5, days: 60 }),
    expect: { status: 200, data: (answer) => expect(answer).toEqual({ rateLimit: 5, days: 60, hoursRefused: 3, requestsRefused: 7 + 4 + 45 }) },
  }),
  apiCase({
    name: 'refuses nothing under a limit above every hour',
    arrange: keyWithHours,
    caller: () => reader,
    operation: ({ id }) => preview(id, { rateLimit: 12, days: 1 }),
    expect: { status: 200, data: (answer) => expect([answer.hoursRefused, answer.requestsRefused]).toEqual([0, 0]) },
  }),
  apiCase({
    name: 'refuses a rate limit of 0 (400 naming rateLimit)',
    arrange: () => makeKey(member),
    caller: () => member,
    operation: ({ id }) => preview(id, { rateLimit: 0 }),
    expect: { status: 400, code: 'BAD_USER_INPUT', fieldErrors: [{ field: 'rateLimit', rule: 'min' }] },
  }),
  apiCase({
    name: 'refuses days beyond the rollup retention (400 naming days)',
    arrange: () => makeKey(member),
    caller: () => member,
    operation: ({ id }) => preview(id, { rateLimit: 5, days: 401 }),
    expect: { status: 400, code: 'BAD_USER_INPUT', fieldErrors: [{ field: 'days', rule: 'max' }] },
  }),
  apiCase({
    name: 'refuses 0 days (400 naming days)',
    arrange: () => makeKey(member),
    caller: () => member,
    operation: ({ id }) => preview(id, { rateLimit: 5, days: 0 }),
    expect: { status: 400, code: 'BAD_USER_INPUT', fieldErrors: [{ field: 'days', rule: 'min' }] },
  }),
  apiCase({
    name: 'refuses anyone else of the tenant with the 403 of viewing',
    arrange: () => makeKey(member),
    caller: () => otherMember,
    operation: ({ id }) => preview(id, { rateLimit: 5 }),
    expect: { status: 403, code: 'FORBIDDEN', data: exactMessage(VIEW_REFUSAL) },
  }),
  apiCase({
    name: "answers 404 for another tenant's key",
    arrange: () => makeKey(member),
    caller: () => outsider,
    operation: ({ id }) => preview(id, { rateLimit: 5 }),
    expect: { status: 404, code: 'NOT_FOUND' },
  }),
]);
