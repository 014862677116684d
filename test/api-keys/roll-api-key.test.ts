import { describe, expect, it } from 'vitest';
import { RoleModel } from '../../src/users/index.js';
import { apiCase, callOperation, runCases, SURFACES } from '../support/surfaces.js';
import {
  admin,
  app,
  caller,
  client,
  EVERY_SETTING,
  exactMessage,
  expiredKey,
  freshName,
  KEY_PATTERN,
  makeKey,
  member,
  op,
  outsider,
  platform,
  reader,
  revokedKey,
  revoker,
  sha256,
  storedById,
  TENANT,
  useApiKeysApp,
  type Who,
} from './api-key-fixtures.js';

/** Rolling an API key over both surfaces: who may, the grace period, and a roller who later loses the right. */

useApiKeysApp();

// ---------------------------------------------------------------- roll

const ROLL_REFUSAL = 'You may not roll this API key: only its creator can (a holder of api-keys:revoke can still revoke it)';

/** A user of TENANT whose custom role holds `granted`, made through the API's roles (fresh, so it can lose them). */
async function userHolding(granted: string[]): Promise<Who> {
  const role = await RoleModel.create({ name: freshName('role'), tenant_id: TENANT, permissions: granted });
  return caller(await app.createUser({ tenantId: TENANT, roles: [String(role._id)] }));
}

/** `who` reduced to the built-in member role by the tenant administrator, through the API (so at once on this instance). */
async function reduceToMember(who: Who): Promise<void> {
  const changed = await app.rest('PATCH', `/access-control/users/${who.id}`, { token: admin.token, body: { roles: ['member'], updatedBy: admin.id } });
  expect(changed.status).toBe(200);
}

runCases('rolling an API key', client, [
  apiCase({
    name: 'answers the same record with a new secret of the same keyId; the old secret stops at once',
    arrange: () => makeKey(member, { ...EVERY_SETTING, scopes: ['menus:read'], description: 'rolled' }),
    caller: () => member,
    operation: ({ id }) => op.roll(id),
    expect: {
      status: 200,
      data: (key, made) => {
        const kept = ['_id', 'id', 'keyId', 'name', 'description', 'scopes', 'allowedOrigins', 'allowedIPs', 'expiresAt', 'rateLimit', 'metadata', 'createdBy', 'createdAt', 'tenant_id'];
        for (const field of kept) expect(key[field], field).toEqual(made.record[field]);
        expect(key.key).toMatch(KEY_PATTERN);
        expect(key.key).not.toBe(made.key);
        expect(key.key.slice(3, 15)).toBe(made.keyId);
        expect([key.status, key.updatedBy]).toEqual(['active', member.id]);
      },
      db: async (made, outcome) => {
        const stored = await storedById(made.id);
        expect(stored?.secrets).toEqual([{ hash: sha256((outcome.data as { key: string }).key), validUntil: null }]);
      },
    },
  }),
  apiCase({
    name: 'keeps the previous secret until the grace period ends',
    arrange: () => makeKey(member),
    caller: () => member,
    operation: ({ id }) => op.roll(id, 600),
    expect: {
      status: 200,
      db: async (made, outcome) => {
        const stored = await storedById(made.id);
        expect(stored?.secrets).toHaveLength(2);
        expect(stored?.secrets[0]).toEqual({ hash: sha256((outcome.data as { key: string }).key), validUntil: null });
        expect(stored?.secrets[1].hash).toBe(sha256(made.key));
        expect(Math.abs(stored?.secrets[1].validUntil.getTime() - (Date.now() + 600_000))).toBeLessThan(10_000);
      },
    },
  }),
  apiCase({
    name: 'refuses a holder of api-keys:revoke a key someone else created (403), though it holds the scopes; the key keeps its secret',
    arrange: async () => {
      const made = await makeKey(admin, { scopes: ['api-keys:revoke'] });
      return { ...made, before: await storedById(made.id) };
    },
    caller: () => revoker,
    operation: ({ id }) => op.roll(id, 86_400),
    expect: { status: 403, code: 'FORBIDDEN', data: exactMessage(ROLL_REFUSAL), db: async (made) => expect(await storedById(made.id)).toEqual(made.before) },
  }),
  apiCase({
    name: "refuses the tenant administrator a member's key (403)",
    arrange: () => makeKey(member),
    caller: () => admin,
    operation: ({ id }) => op.roll(id),
    expect: { status: 403, code: 'FORBIDDEN', data: exactMessage(ROLL_REFUSAL) },
  }),
  apiCase({
    name: "refuses the platform administrator a tenant's key (403)",
    arrange: () => makeKey(admin),
    caller: () => platform,
    operation: ({ id }) => op.roll(id),
    expect: { status: 403, code: 'FORBIDDEN', data: exactMessage(ROLL_REFUSAL) },
  }),
  apiCase({
    name: 'refuses its creator a key with scopes they no longer hold (403): the new secret would act with them',
    arrange: async () => {
      const creator = await userHolding(['menus:write', 'api-keys:create']);
      const made = await makeKey(creator, { scopes: ['menus:write'] });
      await reduceToMember(creator);
      return { ...made, creator };
    },
    caller: ({ creator }) => creator,
    operation: ({ id }) => op.roll(id),
    expect: { status: 403, code: 'FORBIDDEN', data: exactMessage("You cannot roll an API key with the scope 'menus:write' you do not hold") },
  }),
  apiCase({
    name: 'refuses a revoked key with 409',
    arrange: () => revokedKey(member),
    caller: () => member,
    operation: ({ id }) => op.roll(id),
    expect: { status: 409, code: 'CONFLICT', fieldErrors: [{ field: 'status', rule: 'revoked' }] },
  }),
  apiCase({
    name: 'refuses an expired key with 409',
    arrange: async () => {
      const made = await expiredKey(member);
      return { ...made, before: await storedById(made.id) };
    },
    caller: () => member,
    operation: ({ id }) => op.roll(id),
    expect: {
      status: 409,
      code: 'CONFLICT',
      fieldErrors: [{ field: 'status', rule: 'expired' }],
      db: async (made) => expect(await storedById(made.id)).toEqual(made.before),
    },
  }),
  apiCase({
    name: 'refuses anyone else of the tenant with 403',
    arrange: () => makeKey(member),
    caller: () => reader,
    operation: ({ id }) => op.roll(id),
    expect: { status: 403, code: 'FORBIDDEN', data: exactMessage(ROLL_REFUSAL) },
  }),
  apiCase({
    name: "answers 404 for another tenant's key",
    arrange: () => makeKey(member),
    caller: () => outsider,
    operation: ({ id }) => op.roll(id),
    expect: { status: 404, code: 'NOT_FOUND' },
  }),
  apiCase({
    name: 'refuses a grace period over a day (400 naming gracePeriodSeconds)',
    arrange: () => makeKey(member),
    caller: () => member,
    operation: ({ id }) => op.roll(id, 86_401),
    expect: { status: 400, fieldErrors: [{ field: 'gracePeriodSeconds', rule: 'max' }] },
  }),
  apiCase({
    name: 'refuses a negative grace period (400 naming gracePeriodSeconds)',
    arrange: () => makeKey(member),
    caller: () => member,
    operation: ({ id }) => op.roll(id, -1),
    expect: { status: 400, fieldErrors: [{ field: 'gracePeriodSeconds', rule: 'min' }] },
  }),
]);

/**
 * Issue 27 item 2: a holder of api-keys:revoke rolled another user's key with
 * a day's grace and kept the new secret, which acts as the key's creator; once
 * the roller was reduced to member, that secret still made keys. Only the
 * creator rolls a key now, so the roller never obtains a secret.
 */
describe('a roll by someone who later loses the right to it', () => {
  it.each(SURFACES)('leaves them nothing: refused before and after they are reduced to member, the key keeps its secret (%s)', async (surface) => {
    const roller = await userHolding(['api-keys:revoke', 'api-keys:create', 'menus:read']);
    const made = await makeKey(admin, { scopes: ['api-keys:create', 'menus:read'] });
    const before = (await storedById(made.id))?.secrets;
    const rolled = await callOperation(app, surface, op.roll(made.id, 86_400), roller);
    await reduceToMember(roller);
    const rolledAfter = await callOperation(app, surface, op.roll(made.id, 86_400), roller);
    // The creator's own secret is still the key's only one and still makes keys.
    const madeByKey = await app.rest('POST', '/api-keys', { token: made.key, body: { name: freshName(), scopes: ['menus:read'] } });
    expect([rolled.status, rolled.message, rolled.raw.body?.key ?? rolled.raw.body?.data?.rollApiKey, rolledAfter.status]).toEqual([403, ROLL_REFUSAL, undefined, 403]);
    expect([(await storedById(made.id))?.secrets, madeByKey.status]).toEqual([before, 201]);
  });
});
