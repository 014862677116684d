import { ObjectId } from 'mongodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiKeyModel } from '../../src/api-keys/index.js';
import { createApiKeyCheck, generateApiKeySecret, type AccountStore, type ApiKeyStore } from '../../src/auth/index.js';
import { RoleModel, UserModel } from '../../src/users/index.js';
import { apiCase, callOperation, runCases, SURFACES, type Operation } from '../support/surfaces.js';
import {
  admin,

  app,
  caller,
  client,
  expiredKey,
  makeKey,
  member,
  nobody,
  outsider,
  platform,
  revokedKey,
  storedById,
  TENANT,
  useApiKeysApp,
  type MadeKey,
} from './api-key-fixtures.js';

/**
 * `verifyApiKey` / POST /api-keys/verify (contract "API keys: managing a key
 * through its life"): every code over both surfaces, a verification counted
 * as a use of the key (usageCount, rate limit, log entry `verify`, rollups),
 * 400 for an unknown required scope, and no database read for a malformed key.
 */

useApiKeysApp();

const VERIFY_FIELDS = 'valid code id keyId tenant_id name scopes expiresAt ratelimit { limit remaining reset }';

interface VerifyArgs {
  key: unknown;
  requiredScopes?: unknown;
  ip?: unknown;
  origin?: unknown;
}

const verify = (args: VerifyArgs): Operation => ({
  rest: { method: 'POST', path: '/api-keys/verify', body: args },
  graphql: {
    query: `mutation($key: String!, $requiredScopes: [String!], $ip: String, $origin: String) {
      verifyApiKey(key: $key, requiredScopes: $requiredScopes, ip: $ip, origin: $origin) { ${VERIFY_FIELDS} } }`,
    variables: { ...args },
  },
});

const NOT_FOUND_ANSWER = {
  valid: false,
  code: 'NOT_FOUND',
  id: null,
  keyId: null,
  tenant_id: null,
  name: null,
  scopes: [],
  expiresAt: null,
  ratelimit: null,
};

/** A key the case disables through the model (as disableApiKey would: its write ends this instance's grants). */
async function disabled(made: MadeKey): Promise<MadeKey> {
  await ApiKeyModel.updateOne({ _id: made.id }, { $set: { disabledAt: new Date(), disabledReason: 'paused by a test' } });
  return made;
}

const windowCount = async (id: string) => ((await storedById(id)) as any)?.rateWindow?.count ?? 0;

/** A key of `creator`, used `uses` times with a request of its own (GET /api-keys/{id} of itself needs no scope: its creator's view). */
async function usedKey(creator = admin, body: Record<string, unknown> = {}, uses = 0): Promise<MadeKey> {
  const made = await makeKey(creator, body);
  for (let i = 0; i < uses; i += 1) await app.rest('GET', '/restaurant/meal-menus', { token: made.key });
  return made;
}

runCases('verifying a key (POST /api-keys/verify, verifyApiKey): every code', client, [
  apiCase({
    name: 'VALID: the key of the caller tenant, with its fields and its window after this use',
    arrange: () => makeKey(member, { scopes: ['menus:read'] }),
    caller: () => admin,
    operation: ({ key }) => verify({ key, requiredScopes: ['menus:read'] }),
    expect: {
      status: 200,
      data: (answer, made) => {
        expect(answer).toMatchObject({ valid: true, code: 'VALID', id: made.id, keyId: made.keyId, tenant_id: TENANT, name: made.record.name, scopes: ['menus:read'] });
        expect(answer.ratelimit).toMatchObject({ limit: 1000, remaining: 999 });
        expect(answer.ratelimit.reset).toBeGreaterThan(0);
      },
      db: async (made) => expect(await windowCount(made.id)).toBe(1),
    },
  }),
  apiCase({
    name: 'NOT_FOUND: a malformed key (no 400), answered with no key fields',
    caller: () => admin,
    operation: () => verify({ key: 'ak_not-a-key' }),
    expect: { status: 200, data: (answer) => expect(answer).toEqual(NOT_FOUND_ANSWER) },
  }),
  apiCase({
    name: 'NOT_FOUND: a well-formed secret the key does not hold',
    arrange: () => makeKey(admin),
    caller: () => admin,
    operation: ({ keyId }) => verify({ key: generateApiKeySecret(keyId).secret }),
    expect: { status: 200, data: (answer) => expect(answer).toEqual(NOT_FOUND_ANSWER), db: async (made) => expect(await windowCount(made.id)).toBe(0) },
  }),
  apiCase({
    name: "NOT_FOUND: another tenant's key, whose window is left as it was",
    arrange: () => makeKey(outsider),
    caller: () => admin,
    operation: ({ key }) => verify({ key }),
    expect: { status: 200, data: (answer) => expect(answer).toEqual(NOT_FOUND_ANSWER), db: async (made) => expect(await windowCount(made.id)).toBe(0) },
  }),
  apiCase({
    name: "NOT_FOUND: another tenant's revoked key (its state is not told)",
    arrange: () => revokedKey(outsider),
    caller: () => admin,
    operation: ({ key }) => verify({ key }),
    expect: { status: 200, data: (answer) => expect(answer).toEqual(NOT_FOUND_ANSWER) },
  }),
  apiCase({
    name: 'VALID: a platform administrator verifies any tenant key',
    arrange: () => makeKey(outsider),
    caller: () => platform,
    operation: ({ key }) => verify({ key }),
    expect: { status: 200, data: (answer, made) => expect(answer).toMatchObject({ valid: true, code: 'VALID', id: made.id, tenant_id: made.record.tenant_id }) },
  }),
  apiCase({
    name: 'REVOKED',
    arrange: () => revokedKey(admin),
    caller: () => admin,
    operation: ({ key }) => verify({ key }),
    expect: { status: 200, data: (answer, made) => expect(answer).toMatchObject({ valid: false, code: 'REVOKED', id: made.id, ratelimit: null }) },
  }),
  apiCase({
    name: 'EXPIRED',
    arrange: () => expiredKey(admin),
    caller: () => admin,
    operation: ({ key }) => verify({ key }),
    expect: { status: 200, data: (answer, made) => expect(answer).toMatchObject({ valid: false, code: 'EXPIRED', id: made.id }) },
  }),
  apiCase({
    name: 'DISABLED',
    arrange: async () => disabled(await makeKey(admin)),
    caller: () => admin,
    operation: ({ key }) => verify({ key }),
    expect: { status: 200, data: (answer, made) => expect(answer).toMatchObject({ valid: false, code: 'DISABLED', id: made.id }) },
  }),
  apiCase({
    name: 'REVOKED wins over disabled, as the status',
    arrange: async () => disabled(await revokedKey(admin)),
    caller: () => admin,
    operation: ({ key }) => verify({ key }),
    expect: { status: 200, data: (answer) => expect(answer.code).toBe('REVOKED') },
  }),
  apiCase({
    name: 'EXPIRED wins over disabled, as the status',
    arrange: async () => disabled(await expiredKey(admin)),
    caller: () => admin,
    operation: ({ key }) => verify({ key }),
    expect: { status: 200, data: (answer) => expect(answer.code).toBe('EXPIRED') },
  }),
  apiCase({
    name: 'DISABLED: a key whose creator is gone (a request with it is refused 401)',
    arrange: async () => {
      const creator = caller(await app.createUser({ tenantId: TENANT, roles: ['admin'] }));
      const made = await makeKey(creator);
      await UserModel.deleteOne({ _id: creator.id });
      return made;
    },
    caller: () => admin,
    operation: ({ key }) => verify({ key }),
    expect: { status: 200, data: (answer, made) => expect(answer).toMatchObject({ valid: false, code: 'DISABLED', id: made.id }) },
  }),
  apiCase({
    name: 'FORBIDDEN: an IP address the key does not allow, its use given back',
    arrange: () => makeKey(admin, { allowedIPs: ['10.0.0.0/8'] }),
    caller: () => admin,
    operation: ({ key }) => verify({ key, ip: '192.0.2.7' }),
    expect: {
      status: 200,
      data: (answer) => expect(answer).toMatchObject({ valid: false, code: 'FORBIDDEN', ratelimit: null }),
      db: async (made) => expect(await windowCount(made.id)).toBe(0),
    },
  }),
  apiCase({
    name: 'VALID from an allowed IP address and origin',
    arrange: () => makeKey(admin, { allowedIPs: ['10.0.0.0/8'], allowedOrigins: ['https://shop.example.test'] }),
    caller: () => admin,
    operation: ({ key }) => verify({ key, ip: '10.1.2.3', origin: 'https://shop.example.test' }),
    expect: { status: 200, data: (answer) => expect(answer.code).toBe('VALID') },
  }),
  apiCase({
    name: 'FORBIDDEN: no origin for a key that lists origins',
    arrange: () => makeKey(admin, { allowedOrigins: ['https://shop.example.test'] }),
    caller: () => admin,
    operation: ({ key }) => verify({ key }),
    expect: { status: 200, data: (answer) => expect(answer).toMatchObject({ valid: false, code: 'FORBIDDEN' }) },
  }),
  apiCase({
    name: 'FORBIDDEN: a required scope the key lacks (the use counted, as a request refused 403)',
    arrange: () => makeKey(admin, { scopes: ['menus:read'] }),
    caller: () => admin,
    operation: ({ key }) => verify({ key, requiredScopes: ['menus:read', 'menus:write'] }),
    expect: {
      status: 200,
      data: (answer) => expect(answer).toMatchObject({ valid: false, code: 'FORBIDDEN', scopes: ['menus:read'] }),
      db: async (made) => expect(await windowCount(made.id)).toBe(1),
    },
  }),
  apiCase({
    name: 'RATE_LIMITED: past the hourly limit, spent by a request made with the key',
    arrange: () => usedKey(admin, { rateLimit: 1 }, 1),
    caller: () => admin,
    operation: ({ key }) => verify({ key }),
    expect: { status: 200, data: (answer) => expect(answer).toMatchObject({ valid: false, code: 'RATE_LIMITED', ratelimit: { limit: 1, remaining: 0 } }) },
  }),
  apiCase({
    name: '400 naming requiredScopes for a scope that is no permission',
    arrange: () => makeKey(admin),
    caller: () => admin,
    operation: ({ key }) => verify({ key, requiredScopes: ['menus:read', 'menus:fly'] }),
    expect: {
      status: 400,
      code: 'BAD_USER_INPUT',
      fieldErrors: [{ field: 'requiredScopes', rule: 'isIn' }],
      db: async (made) => expect(await windowCount(made.id)).toBe(0),
    },
  }),
  apiCase({
    name: '400 naming ip and origin when they are not an address and an origin',
    arrange: () => makeKey(admin),
    caller: () => admin,
    operation: ({ key }) => verify({ key, ip: '10.0.0.0/8', origin: 'https://shop.example.test/path' }),
    expect: {
      status: 400,
      code: 'BAD_USER_INPUT',
      fieldErrors: [
        { field: 'ip', rule: 'isIp' },
        { field: 'origin', rule: 'isOrigin' },
      ],
    },
  }),
  apiCase({
    name: '403 for a caller without api-keys:verify',
    arrange: () => makeKey(member),
    caller: () => member,
    operation: ({ key }) => verify({ key }),
    expect: { status: 403, code: 'FORBIDDEN', db: async (made) => expect(await windowCount(made.id)).toBe(0) },
  }),
  apiCase({
    name: '401 without a credential',
    caller: () => nobody,
    operation: () => verify({ key: 'ak_x' }),
    expect: { status: 401 },
  }),
]);

/** Polls until the usage batch (written within a second) shows what it should. */
const eventually = (check: () => Promise<void>) => vi.waitFor(check, { timeout: 5000, interval: 100 });

describe('a verification is a use of the key', () => {
  for (const surface of SURFACES) {
    it(`counts in usageCount, the usage log (operation verify) and the rollups by outcome (${surface})`, async () => {
      const made = await makeKey(admin, { scopes: ['menus:read'] });
      expect((await callOperation(client(), surface, verify({ key: made.key }), admin)).data).toMatchObject({ code: 'VALID' });
      expect((await callOperation(client(), surface, verify({ key: made.key, requiredScopes: ['menus:write'] }), admin)).data).toMatchObject({
        code: 'FORBIDDEN',
      });
      await eventually(async () => {
        expect((await storedById(made.id))?.usageCount).toBe(2);
        const logged = await app.db.collection('apikeyusages').find({ apiKeyId: made.id }).sort({ at: 1 }).toArray();
        expect(logged.map((entry) => [entry.operation, entry.status, entry.method])).toEqual([
          ['verify', 200, 'POST'],
          ['verify', 403, 'POST'],
        ]);
        expect(logged[0].path).toBe(surface === 'rest' ? '/api/v1/api-keys/verify' : '/graphql');
      });
      await revokeDirectly(made.id);
      expect((await callOperation(client(), surface, verify({ key: made.key }), admin)).data).toMatchObject({ code: 'REVOKED' });
      await eventually(async () => {
        const rollups = await app.db.collection('apikeyusagerollups').find({ apiKeyId: made.id }).toArray();
        const sum = (field: string) => rollups.reduce((total, rollup) => total + (rollup[field] ?? 0), 0);
        expect([sum('success'), sum('forbidden'), sum('unauthorized'), sum('rateLimited')]).toEqual([1, 1, 1, 0]);
      });
      // The usage report reads those rollups.
      const report = await app.rest('GET', `/api-keys/${made.id}/usage?granularity=day&from=${dayStart()}&to=${dayStart(1)}`, { token: admin.token });
      expect(report.body.buckets[0]).toMatchObject({ total: 3, success: 1, forbidden: 1, unauthorized: 1 });
    });

    it(`spends the key's rate limit exactly as a request made with it (${surface})`, async () => {
      const made = await makeKey(admin, { rateLimit: 3 });
      const first = await app.rest('GET', '/restaurant/meal-menus', { token: made.key });
      expect(first.headers.get('ratelimit')).toMatch(/r=2;/);
      const verified = await callOperation(client(), surface, verify({ key: made.key }), admin);
      expect((verified.data as any).ratelimit).toMatchObject({ limit: 3, remaining: 1 });
      const third = await app.rest('GET', '/restaurant/meal-menus', { token: made.key });
      expect(third.headers.get('ratelimit')).toMatch(/r=0;/);
      expect((await callOperation(client(), surface, verify({ key: made.key }), admin)).data).toMatchObject({ code: 'RATE_LIMITED' });
      expect((await app.rest('GET', '/restaurant/meal-menus', { token: made.key })).status).toBe(429);
    });
  }
});

describe('the audit trail and a verification', () => {
  for (const surface of SURFACES) {
    it(`a verification leaves no audit record: it changes nothing, and is recorded as a use (${surface})`, async () => {
      const made = await makeKey(member);
      const requestId = `audit-verify-${surface}-${made.id}`;
      const outcome = await callOperation(client(), surface, verify({ key: made.key, requiredScopes: ['menus:read'] }), {
        token: admin.token,
        headers: { 'x-request-id': requestId },
      });
      expect((outcome.data as any).code).toBe('VALID');
      // An audited operation's record is written before its answer leaves (Audited): none is here now.
      expect(await app.db.collection('auditevents').countDocuments({ requestId })).toBe(0);
      await eventually(async () => expect(await app.db.collection('apikeyusages').countDocuments({ apiKeyId: made.id, operation: 'verify' })).toBe(1));
    });
  }
});

describe('a malformed or mistyped key', () => {
  afterEach(() => vi.restoreAllMocks());

  /** Spies on every read of the keys' collection the credential store can make. */
  function keyReads() {
    const collection = ApiKeyModel.collection;
    return [vi.spyOn(collection, 'findOne'), vi.spyOn(collection, 'findOneAndUpdate'), vi.spyOn(collection, 'find')];
  }
  const calls = (spies: ReturnType<typeof keyReads>) => spies.reduce((total, spy) => total + spy.mock.calls.length, 0);

  for (const surface of SURFACES) {
    it(`is NOT_FOUND without a read of the keys (${surface})`, async () => {
      const made = await makeKey(admin);
      const mistyped = made.key.slice(0, -1) + (made.key.endsWith('A') ? 'B' : 'A');
      const spies = keyReads();
      for (const key of ['ak_short', mistyped, `${made.key}x`, 'not even a key']) {
        expect((await callOperation(client(), surface, verify({ key }), admin)).data).toEqual(NOT_FOUND_ANSWER);
      }
      expect(calls(spies)).toBe(0);
      // The spies see the reads of a well-formed key (so the count above means something).
      await callOperation(client(), surface, verify({ key: generateApiKeySecret(made.keyId).secret }), admin);
      expect(calls(spies)).toBeGreaterThan(0);
    });
  }

  it('is NOT_FOUND from the check itself with no call of the store', async () => {
    const untouchable = new Proxy({} as ApiKeyStore & AccountStore, {
      get: (_target, name) => () => {
        throw new Error(`the store was called: ${String(name)}`);
      },
    });
    const check = createApiKeyCheck({ keys: untouchable, accounts: untouchable });
    const outcome = await check('ak_0123456789ab_not-the-checksum', { ip: '127.0.0.1', method: 'POST', path: '/graphql' });
    expect(outcome).toMatchObject({ code: 'NOT_FOUND', key: null, actor: null });
  });
});

async function revokeDirectly(id: string): Promise<void> {
  await ApiKeyModel.updateOne({ _id: new ObjectId(id) }, { $set: { revokedAt: new Date() } });
}

function dayStart(plusDays = 0): string {
  const day = new Date();
  day.setUTCHours(0, 0, 0, 0);
  return new Date(day.getTime() + plusDays * 86_400_000).toISOString();
}


describe('a caller of no tenant who is not a platform administrator', () => {
  for (const surface of SURFACES) {
    it(`is refused 403 as on every read, and spends no platform key's quota (${surface})`, async () => {
      const role = await RoleModel.create({ name: `tenantless-verifier-${surface}`, tenant_id: null, permissions: ['api-keys:verify'] });
      const tenantless = caller(await app.createUser({ tenantId: null, roles: [String(role._id)] }));
      const platformKey = await makeKey(platform, { scopes: ['menus:read'] });
      const outcome = await callOperation(client(), surface, verify({ key: platformKey.key }), tenantless);
      expect([outcome.status, outcome.code]).toEqual([403, 'FORBIDDEN']);
      expect(await windowCount(platformKey.id)).toBe(0);
    });
  }
});

describe('a secret rolled out', () => {
  for (const surface of SURFACES) {
    it(`tells its holder nothing of the key's state once its grace period is over (${surface})`, async () => {
      const made = await makeKey(member);
      const rolled = await app.rest('POST', `/api-keys/${made.id}/roll`, { token: member.token, body: { gracePeriodSeconds: 3600 } });
      expect(rolled.status).toBe(200);
      // The grace period over: the old secret stays stored until the next write, but is no secret of the key.
      await ApiKeyModel.collection.updateOne(
        { _id: new ObjectId(made.id) },
        { $set: { 'secrets.$[old].validUntil': new Date(Date.now() - 1000) } },
        { arrayFilters: [{ 'old.validUntil': { $ne: null } }] },
      );
      expect((await app.rest('PATCH', `/api-keys/${made.id}/disable`, { token: member.token })).status).toBe(200);
      const used = await app.rest('GET', '/restaurant/meal-menus', { token: made.key });
      expect([used.status, used.body.detail]).toEqual([401, 'Invalid API key']);
      expect((await app.rest('GET', '/restaurant/meal-menus', { token: rolled.body.key })).body.detail).toBe('API key disabled');
      const verified = await callOperation(client(), surface, verify({ key: made.key }), admin);
      expect(verified.data).toEqual(NOT_FOUND_ANSWER);
    });
  }
});
