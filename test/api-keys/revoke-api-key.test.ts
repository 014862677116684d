import { describe, expect, it } from 'vitest';
import { apiCase, callOperation, runCases } from '../support/surfaces.js';
import {
  admin,
  client,
  exactMessage,
  expiredKey,
  makeKey,
  member,
  op,
  outsider,
  reader,
  REVOKE_REFUSAL,
  revokedKey,
  revoker,
  storedById,
  useApiKeysApp,
} from './api-key-fixtures.js';

/** Revoking an API key over both surfaces, and concurrent revokes of one key. */

useApiKeysApp();

// ---------------------------------------------------------------- revoke

runCases('revoking an API key', client, [
  apiCase({
    name: 'lets its creator revoke it: status revoked, revokedAt and revokedBy set, for good',
    arrange: () => makeKey(member),
    caller: () => member,
    operation: ({ id }) => op.revoke(id),
    expect: {
      status: 200,
      data: (key, made) => {
        expect(key).toMatchObject({ _id: made.id, status: 'revoked', revokedBy: member.id, updatedBy: member.id, name: made.record.name });
        expect(Date.parse(key.revokedAt)).toBeLessThanOrEqual(Date.now());
      },
      db: async (made) => {
        const stored = await storedById(made.id);
        expect(stored?.revokedAt).toBeInstanceOf(Date);
        expect(stored?.revokedBy).toBe(member.id);
      },
    },
  }),
  apiCase({
    name: 'lets a holder of api-keys:revoke revoke a key someone else created',
    arrange: () => makeKey(member),
    caller: () => revoker,
    operation: ({ id }) => op.revoke(id),
    expect: { status: 200, data: (key) => expect([key.status, key.revokedBy, key.createdBy]).toEqual(['revoked', revoker.id, member.id]) },
  }),
  apiCase({
    name: 'answers the same record when revoked again, revokedAt unchanged',
    arrange: async () => {
      const made = await revokedKey(member);
      return { ...made, before: await storedById(made.id) };
    },
    caller: () => admin,
    operation: ({ id }) => op.revoke(id),
    expect: {
      status: 200,
      data: (key, made) => expect([key.revokedAt, key.revokedBy, key.updatedBy]).toEqual([made.before!.revokedAt.toISOString(), member.id, member.id]),
      db: async (made) => expect(await storedById(made.id)).toEqual(made.before),
    },
  }),
  apiCase({
    name: 'revokes an expired key too',
    arrange: () => expiredKey(member),
    caller: () => member,
    operation: ({ id }) => op.revoke(id),
    expect: { status: 200, data: (key) => expect(key.status).toBe('revoked') },
  }),
  apiCase({
    name: 'refuses anyone else of the tenant with 403 "You do not have permission to revoke this API key"',
    arrange: async () => {
      const made = await makeKey(member);
      return { ...made, before: await storedById(made.id) };
    },
    caller: () => reader,
    operation: ({ id }) => op.revoke(id),
    expect: {
      status: 403,
      code: 'FORBIDDEN',
      data: exactMessage(REVOKE_REFUSAL),
      db: async (made) => expect(await storedById(made.id)).toEqual(made.before),
    },
  }),
  apiCase({
    name: "answers 404 for another tenant's key",
    arrange: () => makeKey(member),
    caller: () => outsider,
    operation: ({ id }) => op.revoke(id),
    expect: { status: 404, code: 'NOT_FOUND', db: async (made) => expect((await storedById(made.id))?.revokedAt).toBeNull() },
  }),
  apiCase({
    name: 'refuses a malformed id (400 naming id)',
    caller: () => admin,
    operation: () => op.revoke('12345'),
    expect: { status: 400, fieldErrors: [{ field: 'id', rule: 'isMongoId' }] },
  }),
]);

describe('concurrent revokes of one key', () => {
  it('all answer the record with the first revokedAt', async () => {
    const made = await makeKey(member);
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, i) => callOperation(client(), i % 2 ? 'rest' : 'graphql', op.revoke(made.id), i % 3 ? member : admin)),
    );
    expect(outcomes.map((outcome) => outcome.status)).toEqual(Array(10).fill(200));
    const stored = await storedById(made.id);
    expect(new Set(outcomes.map((outcome) => (outcome.data as { revokedAt: string }).revokedAt))).toEqual(new Set([stored?.revokedAt.toISOString()]));
  });
});
