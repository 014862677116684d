import { expect } from 'vitest';
import { apiCase, runCases } from '../support/surfaces.js';
import {
  admin,
  client,
  exactMessage,
  expiredKey,
  FIELDS_OF_2_1,
  isNewestFirst,
  keyWithUses,
  makeKey,
  member,
  op,
  otherMember,
  outsider,
  reader,
  unknownId,
  useApiKeysApp,
  VIEW_REFUSAL,
} from './api-key-fixtures.js';

/** Reading an API key (`GET /api-keys/:id`, `apiKey`) over both surfaces. */

useApiKeysApp();

// ---------------------------------------------------------------- get

runCases('reading an API key', client, [
  apiCase({
    name: 'answers its creator every field of 2.1, without usage logs unless asked',
    arrange: () => makeKey(member, { description: 'mine', metadata: { a: 1 } }),
    caller: () => member,
    operation: ({ id }) => op.get(id),
    expect: {
      status: 200,
      data: (key, made) => {
        for (const field of FIELDS_OF_2_1) expect(key, field).toHaveProperty(field);
        const { key: _secret, ...record } = made.record;
        expect(key).toEqual({ ...record, usageLogs: null });
        expect(JSON.stringify(key)).not.toContain(made.key);
      },
    },
  }),
  apiCase({
    name: 'answers a holder of api-keys:read a key someone else created',
    arrange: () => makeKey(member),
    caller: () => reader,
    operation: ({ id }) => op.get(id),
    expect: { status: 200, data: (key, made) => expect([key._id, key.createdBy]).toEqual([made.id, member.id]) },
  }),
  apiCase({
    name: 'refuses anyone else of the tenant with 403 "You do not have permission to view this API key"',
    arrange: () => makeKey(member),
    caller: () => otherMember,
    operation: ({ id }) => op.get(id),
    expect: { status: 403, code: 'FORBIDDEN', data: exactMessage(VIEW_REFUSAL) },
  }),
  apiCase({
    name: "answers 404 for another tenant's key, even to its administrator",
    arrange: () => makeKey(member),
    caller: () => outsider,
    operation: ({ id }) => op.get(id),
    expect: { status: 404, code: 'NOT_FOUND' },
  }),
  apiCase({
    name: 'answers 404 for an unknown id',
    caller: () => admin,
    operation: () => op.get(unknownId()),
    expect: { status: 404, code: 'NOT_FOUND' },
  }),
  apiCase({
    name: 'refuses a malformed id (400 naming id)',
    caller: () => admin,
    operation: () => op.get('not-an-id'),
    expect: { status: 400, fieldErrors: [{ field: 'id', rule: 'isMongoId' }] },
  }),
  apiCase({
    name: 'reads status expired once expiresAt has passed',
    arrange: () => expiredKey(member),
    caller: () => member,
    operation: ({ id }) => op.get(id),
    expect: { status: 200, data: (key) => expect([key.status, key.revokedAt]).toEqual(['expired', null]) },
  }),
  apiCase({
    name: 'with includeUsageLogs: the 100 most recent uses, newest first, and the counters',
    arrange: () => keyWithUses(member, 105),
    caller: () => member,
    operation: ({ id }) => op.get(id, true),
    expect: {
      status: 200,
      data: (key, made) => {
        expect(key.usageLogs).toHaveLength(100);
        expect(isNewestFirst(key.usageLogs)).toBe(true);
        expect(key.usageLogs[0]).toEqual({
          at: made.newest.toISOString(),
          ip: '192.0.2.1',
          origin: null,
          method: 'POST',
          path: '/graphql',
          operation: 'Op0',
          status: 200,
        });
        expect(key.usageLogs[1]).toMatchObject({ origin: 'https://app.example.test', method: 'GET', operation: null });
        expect(key.usageCount).toBe(105);
        expect(key.lastUsedAt).toBe(made.newest.toISOString());
      },
    },
  }),
  apiCase({
    name: 'with includeUsageLogs=false: usageLogs is null',
    arrange: () => keyWithUses(member, 3),
    caller: () => member,
    operation: ({ id }) => op.get(id, false),
    expect: { status: 200, data: (key) => expect([key.usageLogs, key.usageCount]).toEqual([null, 3]) },
  }),
  apiCase({
    name: 'with includeUsageLogs: an empty list for a key never used',
    arrange: () => makeKey(member),
    caller: () => member,
    operation: ({ id }) => op.get(id, true),
    expect: { status: 200, data: (key) => expect([key.usageLogs, key.usageCount, key.lastUsedAt]).toEqual([[], 0, null]) },
  }),
  apiCase({
    name: 'refuses includeUsageLogs that is no boolean (400 naming it)',
    arrange: () => makeKey(member),
    caller: () => member,
    operation: ({ id }) => op.get(id, 'yes'),
    expect: { status: 400, fieldErrors: [{ field: 'includeUsageLogs', rule: 'type' }] },
  }),
]);
