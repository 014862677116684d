import { Writable } from 'node:stream';
import { ObjectId } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKeySecret, permissions } from '../../src/auth/index.js';
import { createLogger } from '../../src/logger.js';
import { RoleModel, UserModel } from '../../src/users/index.js';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';
import { apiCase, callOperation, runCases, SURFACES, type Caller, type Operation } from '../support/surfaces.js';

/**
 * API keys used as credentials (contract "API keys"; issue: keys as
 * credentials): on both surfaces, as `Authorization: Bearer` or `X-API-Key`,
 * acting with their scopes within what their creator still holds; every
 * refusal; the hourly rate limit and its IETF fields; usage counting and logs.
 */

const logLines: string[] = [];
const sink = new Writable({
  write(chunk, _encoding, done) {
    logLines.push(String(chunk));
    done();
  },
});

let app: TestApp;
const client = () => app;
const TENANT = 'tenant-key-credentials';
let admin: TestUser;
let chef: TestUser; // TENANT, custom role: menus:read, menus:write, api-keys:create
let chefRoleId: string;

interface KeyOptions {
  scopes?: string[];
  allowedIPs?: string[];
  allowedOrigins?: string[];
  rateLimit?: number;
  expiresAt?: string;
}

interface MadeKey {
  id: string;
  secret: string;
}

/** A key made through the API (REST), by `creator`. */
async function makeKey(creator: TestUser, options: KeyOptions = {}): Promise<MadeKey> {
  const response = await app.rest('POST', '/api-keys', {
    token: creator.token,
    body: { name: `key ${new ObjectId().toHexString().slice(-6)}`, scopes: ['menus:read'], ...options },
  });
  if (response.status !== 201) throw new Error(`createApiKey answered ${response.status}: ${JSON.stringify(response.body)}`);
  return { id: response.body._id, secret: response.body.key };
}

const bearer = (key: MadeKey, headers: Record<string, string> = {}): Caller => ({ token: key.secret, headers });
const xApiKey = (key: MadeKey): Caller => ({ headers: { 'x-api-key': key.secret } });

const op = {
  listMenus(): Operation {
    return {
      rest: { method: 'GET', path: '/restaurant/meal-menus' },
      graphql: { query: 'query { mealMenus { items { id } nextCursor } }' },
    };
  },
  createMenu(): Operation {
    const body = { name: 'Key lunch', date: '2026-05-05', mealType: 'lunch' };
    return {
      rest: { method: 'POST', path: '/restaurant/meal-menus', body },
      graphql: {
        query: `mutation($name: String!, $date: String!, $mealType: MealType!) {
          createMealMenu(name: $name, date: $date, mealType: $mealType) { id createdBy tenant_id } }`,
        variables: body,
      },
    };
  },
};

const storedKey = (id: string) => app.db.collection('apikeys').findOne({ _id: new ObjectId(id) });

beforeAll(async () => {
  app = await startTestApp({ logger: createLogger({ logLevel: 'info' }, sink) });
  const role = await RoleModel.create({ name: 'chef', tenant_id: TENANT, permissions: ['menus:read', 'menus:write', 'api-keys:create'] });
  chefRoleId = String(role._id);
  [admin, chef] = await Promise.all([
    app.createUser({ tenantId: TENANT, roles: ['admin'] }),
    app.createUser({ tenantId: TENANT, roles: [chefRoleId] }),
  ]);
});

afterAll(async () => {
  await app?.close();
});

const refused = (status: number, code: string, message: string) => ({
  status,
  code,
  data: (_data: unknown, _fixture: unknown, outcome: { message?: string }) => expect(outcome.message).toBe(message),
});

runCases('an API key as a credential', client, [
  apiCase({
    name: 'authenticates as Authorization: Bearer, with the rate-limit fields on the answer',
    arrange: () => makeKey(chef, { rateLimit: 50 }),
    caller: (key) => bearer(key),
    operation: () => op.listMenus(),
    expect: {
      status: 200,
      headers: { 'ratelimit-policy': '"key";q=50;w=3600', ratelimit: /^"key";r=49;t=([1-9]\d{0,3})$/ },
    },
  }),
  apiCase({
    name: 'authenticates as X-API-Key',
    arrange: () => makeKey(chef),
    caller: (key) => xApiKey(key),
    operation: () => op.listMenus(),
    expect: { status: 200, headers: { ratelimit: /^"key";r=999;t=\d+$/ } },
  }),
  apiCase({
    name: 'acts as its creator, in its tenant',
    arrange: () => makeKey(chef, { scopes: ['menus:read', 'menus:write'] }),
    caller: (key) => bearer(key),
    operation: () => op.createMenu(),
    expect: { status: 201, data: (menu) => expect([menu.createdBy, menu.tenant_id]).toEqual([chef.id, TENANT]) },
  }),
  apiCase({
    name: 'acts only with its scopes (403 beyond them)',
    arrange: () => makeKey(chef, { scopes: ['menus:read'] }),
    caller: (key) => bearer(key),
    operation: () => op.createMenu(),
    expect: { status: 403, code: 'FORBIDDEN' },
  }),
  apiCase({
    name: 'loses a scope at once when its creator loses the permission',
    arrange: async () => {
      const creator = await app.createUser({ tenantId: TENANT, roles: [chefRoleId] });
      const key = await makeKey(creator, { scopes: ['menus:read', 'menus:write'] });
      await UserModel.updateOne({ _id: creator.id }, { $set: { roles: ['member'] } });
      return key;
    },
    caller: (key) => bearer(key),
    operation: () => op.createMenu(),
    expect: { status: 403, code: 'FORBIDDEN' },
  }),
  apiCase({
    name: 'is refused once its creator is gone (401)',
    arrange: async () => {
      const creator = await app.createUser({ tenantId: TENANT, roles: [chefRoleId] });
      const key = await makeKey(creator);
      await UserModel.deleteOne({ _id: creator.id });
      return key;
    },
    caller: (key) => bearer(key),
    operation: () => op.listMenus(),
    expect: { status: 401, code: 'UNAUTHENTICATED', headers: { 'www-authenticate': 'Bearer' } },
  }),
  apiCase({
    name: 'is refused when revoked (401), at once',
    arrange: async () => {
      const key = await makeKey(chef);
      const revoked = await app.rest('PATCH', `/api-keys/${key.id}/revoke`, { token: chef.token });
      expect(revoked.status).toBe(200);
      return key;
    },
    caller: (key) => bearer(key),
    operation: () => op.listMenus(),
    expect: refused(401, 'UNAUTHENTICATED', 'API key revoked'),
  }),
  apiCase({
    name: 'tells a forged secret of a revoked key only that it is invalid (the key id is public)',
    arrange: async () => {
      const key = await makeKey(chef);
      await app.rest('PATCH', `/api-keys/${key.id}/revoke`, { token: chef.token });
      const keyId = key.secret.slice(3, 15);
      // Well-formed, right key id, valid checksum: anyone can build one.
      return { ...key, secret: generateApiKeySecret(keyId).secret };
    },
    caller: (key) => bearer(key),
    operation: () => op.listMenus(),
    expect: refused(401, 'UNAUTHENTICATED', 'Invalid API key'),
  }),
  apiCase({
    name: 'is refused once expired (401)',
    arrange: async () => {
      const key = await makeKey(chef);
      await app.db.collection('apikeys').updateOne({ _id: new ObjectId(key.id) }, { $set: { expiresAt: new Date(Date.now() - 1000) } });
      return key;
    },
    caller: (key) => bearer(key),
    operation: () => op.listMenus(),
    expect: refused(401, 'UNAUTHENTICATED', 'API key expired'),
  }),
  apiCase({
    name: 'is refused with one character mistyped (401, the checksum fails)',
    arrange: async () => {
      const key = await makeKey(chef);
      const position = 25;
      return { ...key, secret: key.secret.slice(0, position) + (key.secret[position] === 'x' ? 'y' : 'x') + key.secret.slice(position + 1) };
    },
    caller: (key) => bearer(key),
    operation: () => op.listMenus(),
    expect: refused(401, 'UNAUTHENTICATED', 'Invalid API key'),
  }),
  apiCase({
    name: 'after a roll without grace: the new secret works',
    arrange: async () => {
      const key = await makeKey(chef);
      const rolled = await app.rest('POST', `/api-keys/${key.id}/roll`, { token: chef.token, body: { gracePeriodSeconds: 0 } });
      expect(rolled.status).toBe(200);
      return { ...key, secret: rolled.body.key as string };
    },
    caller: (key) => bearer(key),
    operation: () => op.listMenus(),
    expect: { status: 200 },
  }),
  apiCase({
    name: 'after a roll without grace: the old secret is refused at once (401)',
    arrange: async () => {
      const key = await makeKey(chef);
      await app.rest('POST', `/api-keys/${key.id}/roll`, { token: chef.token, body: { gracePeriodSeconds: 0 } });
      return key;
    },
    caller: (key) => bearer(key),
    operation: () => op.listMenus(),
    expect: refused(401, 'UNAUTHENTICATED', 'Invalid API key'),
  }),
  apiCase({
    name: 'after a roll with grace: the old secret still works within it',
    arrange: async () => {
      const key = await makeKey(chef);
      await app.rest('POST', `/api-keys/${key.id}/roll`, { token: chef.token, body: { gracePeriodSeconds: 600 } });
      return key;
    },
    caller: (key) => bearer(key),
    operation: () => op.listMenus(),
    expect: { status: 200 },
  }),
  apiCase({
    name: 'after a roll with grace: the old secret is refused once the grace period has ended',
    arrange: async () => {
      const key = await makeKey(chef);
      await app.rest('POST', `/api-keys/${key.id}/roll`, { token: chef.token, body: { gracePeriodSeconds: 600 } });
      // The grace period ends: the old secret's validUntil passes.
      await app.db
        .collection('apikeys')
        .updateOne({ _id: new ObjectId(key.id) }, { $set: { 'secrets.$[old].validUntil': new Date(Date.now() - 1000) } }, { arrayFilters: [{ 'old.validUntil': { $ne: null } }] });
      return key;
    },
    caller: (key) => bearer(key),
    operation: () => op.listMenus(),
    expect: refused(401, 'UNAUTHENTICATED', 'Invalid API key'),
  }),
  apiCase({
    name: 'is refused from an IP outside allowedIPs (403)',
    arrange: () => makeKey(chef, { allowedIPs: ['203.0.113.7', '10.0.0.0/8'] }),
    caller: (key) => bearer(key),
    operation: () => op.listMenus(),
    expect: { status: 403, code: 'FORBIDDEN' },
  }),
  apiCase({
    name: 'ignores X-Forwarded-For unless TRUST_PROXY says so',
    arrange: () => makeKey(chef, { allowedIPs: ['203.0.113.7'] }),
    caller: (key) => bearer(key, { 'x-forwarded-for': '203.0.113.7' }),
    operation: () => op.listMenus(),
    expect: { status: 403, code: 'FORBIDDEN' },
  }),
  apiCase({
    name: 'is accepted from an IP inside allowedIPs (a CIDR, the IPv4 loopback)',
    arrange: () => makeKey(chef, { allowedIPs: ['127.0.0.0/8', '::1'] }),
    caller: (key) => bearer(key),
    operation: () => op.listMenus(),
    expect: { status: 200 },
  }),
  apiCase({
    name: 'is refused from an Origin outside allowedOrigins (403)',
    arrange: () => makeKey(chef, { allowedOrigins: ['https://kitchen.example.test'] }),
    caller: (key) => bearer(key, { origin: 'https://evil.example.test' }),
    operation: () => op.listMenus(),
    expect: { status: 403, code: 'FORBIDDEN' },
  }),
  apiCase({
    name: 'is refused without an Origin when allowedOrigins is set (403)',
    arrange: () => makeKey(chef, { allowedOrigins: ['https://kitchen.example.test'] }),
    caller: (key) => bearer(key),
    operation: () => op.listMenus(),
    expect: { status: 403, code: 'FORBIDDEN' },
  }),
  apiCase({
    name: 'is accepted from an allowed Origin',
    arrange: () => makeKey(chef, { allowedOrigins: ['https://kitchen.example.test'] }),
    caller: (key) => bearer(key, { origin: 'https://kitchen.example.test' }),
    operation: () => op.listMenus(),
    expect: { status: 200 },
  }),
]);

describe('the hourly rate limit', () => {
  it.each(SURFACES)('answers 429 past rateLimit, with Retry-After and r=0, and counts down before (%s)', async (surface) => {
    const key = await makeKey(chef, { rateLimit: 3 });
    const outcomes = [];
    for (let i = 0; i < 4; i += 1) outcomes.push(await callOperation(client(), surface, op.listMenus(), bearer(key)));
    expect(outcomes.map((o) => o.status)).toEqual([200, 200, 200, 429]);
    expect(outcomes.map((o) => /r=(\d+)/.exec(o.raw.headers.get('ratelimit') ?? '')?.[1])).toEqual(['2', '1', '0', '0']);
    const limited = outcomes[3];
    expect(limited.code).toBe('RATE_LIMITED');
    expect(Number(limited.raw.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.raw.headers.get('ratelimit-policy')).toBe('"key";q=3;w=3600');
  });

  it.each(SURFACES)('is not spent by callers the key does not allow (IP, Origin) (%s)', async (surface) => {
    const key = await makeKey(chef, { rateLimit: 2, allowedOrigins: ['https://kitchen.example.test'] });
    const refused = [];
    for (let i = 0; i < 3; i += 1) refused.push((await callOperation(client(), surface, op.listMenus(), bearer(key, { origin: 'https://evil.example.test' }))).status);
    const allowed = [];
    for (let i = 0; i < 3; i += 1) allowed.push((await callOperation(client(), surface, op.listMenus(), bearer(key, { origin: 'https://kitchen.example.test' }))).status);
    expect([refused, allowed]).toEqual([
      [403, 403, 403],
      [200, 200, 429],
    ]);
  });

  it('is exact under concurrency: 40 requests at once on a limit of 25 give 25 successes', async () => {
    const key = await makeKey(chef, { rateLimit: 25 });
    const statuses = await Promise.all(
      Array.from({ length: 40 }, (_, i) => callOperation(client(), SURFACES[i % 2], op.listMenus(), bearer(key)).then((o) => o.status)),
    );
    expect([statuses.filter((s) => s === 200).length, statuses.filter((s) => s === 429).length]).toEqual([25, 15]);
  });
});

describe('usage of a key', () => {
  it('counts every accepted use and logs it (at, ip, origin, method, path or operation, status)', async () => {
    const key = await makeKey(chef, { scopes: ['menus:read'] });
    await app.rest('GET', '/restaurant/meal-menus', { token: key.secret, headers: { origin: 'https://a.example.test' } });
    await app.graphql('query ListMenus { mealMenus { items { id } } }', undefined, { token: key.secret });
    await app.rest('POST', '/restaurant/meal-menus', { token: key.secret, body: { name: 'x', date: '2026-05-05', mealType: 'lunch' } });
    let stored = await storedKey(key.id);
    for (let attempt = 0; attempt < 40 && stored?.usageCount !== 3; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      stored = await storedKey(key.id);
    }
    expect(stored?.usageCount).toBe(3);
    expect(stored?.lastUsedAt).toBeInstanceOf(Date);
    const response = await app.rest('GET', `/api-keys/${key.id}?includeUsageLogs=true`, { token: chef.token });
    const logs = response.body.usageLogs.map((entry: Record<string, unknown>) => [entry.method, entry.path, entry.operation, entry.status, entry.origin]);
    expect(logs).toEqual([
      ['POST', '/api/v1/restaurant/meal-menus', null, 403, null],
      ['POST', '/graphql', 'ListMenus', 200, null],
      ['GET', '/api/v1/restaurant/meal-menus', null, 200, 'https://a.example.test'],
    ]);
    expect(response.body.usageLogs.every((entry: { ip: string; at: string }) => /127\.0\.0\.1|::1/.test(entry.ip) && !Number.isNaN(Date.parse(entry.at)))).toBe(true);
  });

  it('logs a HEAD as HEAD (the edge runs it as its GET), answered without a body', async () => {
    const key = await makeKey(chef, { scopes: ['menus:read'] });
    const head = await app.http('HEAD', '/api/v1/restaurant/meal-menus', { token: key.secret });
    expect([head.status, head.headers.get('ratelimit')]).toEqual([200, expect.stringContaining('"key"')]);
    let stored = await storedKey(key.id);
    for (let attempt = 0; attempt < 40 && stored?.usageCount !== 1; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      stored = await storedKey(key.id);
    }
    const response = await app.rest('GET', `/api-keys/${key.id}?includeUsageLogs=true`, { token: chef.token });
    expect(response.body.usageLogs.map((entry: Record<string, unknown>) => [entry.method, entry.path, entry.status])).toEqual([
      ['HEAD', '/api/v1/restaurant/meal-menus', 200],
    ]);
  });

  it('does not count refused uses (revoked, mistyped)', async () => {
    const key = await makeKey(chef);
    await app.rest('PATCH', `/api-keys/${key.id}/revoke`, { token: chef.token });
    await app.rest('GET', '/restaurant/meal-menus', { token: key.secret });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect((await storedKey(key.id))?.usageCount).toBe(0);
  });
});

describe('the public OpenAPI document', () => {
  it('is served whatever credential comes with it, and counts no key use', async () => {
    const key = await makeKey(chef);
    const response = await app.http('GET', '/api/v1/openapi.json', { token: key.secret });
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect([response.status, response.headers.get('ratelimit'), (await storedKey(key.id))?.usageCount]).toEqual([200, null, 0]);
  });
});

describe('the secret', () => {
  it('appears nowhere in the database or the logs', async () => {
    const key = await makeKey(chef);
    await app.rest('GET', '/restaurant/meal-menus', { token: key.secret });
    await app.rest('GET', '/restaurant/meal-menus', { headers: { 'x-api-key': key.secret } });
    await new Promise((resolve) => setTimeout(resolve, 1200));
    for (const { name } of await app.db.listCollections().toArray()) {
      const documents = await app.db.collection(name).find({}).toArray();
      expect(JSON.stringify(documents), name).not.toContain(key.secret.slice(3));
    }
    expect(logLines.join('')).not.toContain(key.secret.slice(3));
  });
});

describe('an API key acting for its creator stays within its scopes', () => {
  it.each(SURFACES)("cannot change its creator's password without users:update (%s)", async (surface) => {
    const key = await makeKey(chef, { scopes: ['menus:read'] });
    const body = { password: 'T4ken-Over!', updatedBy: chef.id };
    const operation: Operation = {
      rest: { method: 'PATCH', path: `/access-control/users/${chef.id}`, body },
      graphql: {
        query: 'mutation($id: ID!, $password: String, $updatedBy: String!) { updateUser(id: $id, password: $password, updatedBy: $updatedBy) { id } }',
        variables: { id: chef.id, ...body },
      },
    };
    const outcome = await callOperation(client(), surface, operation, bearer(key));
    expect([outcome.status, outcome.code]).toEqual([403, 'FORBIDDEN']);
    expect((await app.rest('GET', '/restaurant/meal-menus', { token: chef.token })).status).toBe(200);
  });

  const setPassword = (id: string, password: string, updatedBy: string): Operation => ({
    rest: { method: 'PATCH', path: `/access-control/users/${id}`, body: { password, updatedBy } },
    graphql: {
      query: 'mutation($id: ID!, $password: String, $updatedBy: String!) { updateUser(id: $id, password: $password, updatedBy: $updatedBy) { id } }',
      variables: { id, password, updatedBy },
    },
  });
  const signInStatus = async (user: TestUser, password: string) =>
    (await app.rest('POST', '/auth/login', { body: { email: user.email, password, tenantId: TENANT } })).status;

  it.each(SURFACES)("cannot change its creator's password with users:update when its scopes hold less than the creator (%s)", async (surface) => {
    const creator = await app.createUser({ tenantId: TENANT, roles: ['admin'] });
    const key = await makeKey(creator, { scopes: ['users:update'] });
    const outcome = await callOperation(client(), surface, setPassword(creator.id, 'T4ken-Over!', creator.id), bearer(key));
    expect([outcome.status, outcome.code]).toEqual([403, 'FORBIDDEN']);
    expect([await signInStatus(creator, creator.password), await signInStatus(creator, 'T4ken-Over!')]).toEqual([200, 401]);
  });

  it.each(SURFACES)('changes the password of a user whose permissions its scopes hold (%s)', async (surface) => {
    const target = await app.createUser({ tenantId: TENANT, roles: [chefRoleId] });
    const key = await makeKey(admin, { scopes: ['users:update', 'menus:read', 'menus:write', 'api-keys:create'] });
    const outcome = await callOperation(client(), surface, setPassword(target.id, 'Ch3f-Reset!', admin.id), bearer(key));
    expect(outcome.status).toBe(200);
    expect(await signInStatus(target, 'Ch3f-Reset!')).toBe(200);
  });

  it.each(SURFACES)("cannot view or revoke its creator's other keys without api-keys scopes (%s)", async (surface) => {
    const [key, other] = [await makeKey(chef, { scopes: ['menus:read'] }), await makeKey(chef)];
    const view = await callOperation(client(), surface, {
      rest: { method: 'GET', path: `/api-keys/${other.id}` },
      graphql: { query: 'query($id: ID!) { apiKey(id: $id) { _id } }', variables: { id: other.id } },
    }, bearer(key));
    const revoke = await callOperation(client(), surface, {
      rest: { method: 'PATCH', path: `/api-keys/${other.id}/revoke` },
      graphql: { query: 'mutation($id: ID!) { revokeApiKey(id: $id) { _id } }', variables: { id: other.id } },
    }, bearer(key));
    expect([view.status, view.message, revoke.status, revoke.message]).toEqual([
      403,
      'You do not have permission to view this API key',
      403,
      'You do not have permission to revoke this API key',
    ]);
  });
});

/**
 * Issue 27 item 1: a key whose scopes hold `users:update` could change its
 * creator's password or email (with `updatedBy` = the creator), and its
 * holder then signed in as the creator, free of the key's IPs, expiry and
 * rate limit. One's own sign-in credentials change only in person: through
 * an API key it is 403 naming the field(s), whatever the scopes, and nothing
 * changes.
 */
interface OwnAccountFixture {
  creator: TestUser;
  key: MadeKey;
}

/** A user of a custom role holding users:update (or a tenant admin), and a key with every scope they hold. */
async function keyOfSelfEditor(kind: 'custom role' | 'tenant admin'): Promise<OwnAccountFixture> {
  const granted = ['users:update', 'users:read', 'api-keys:create'];
  const roles = kind === 'tenant admin' ? ['admin'] : [String((await RoleModel.create({ name: `self-editor ${new ObjectId().toHexString().slice(-8)}`, tenant_id: TENANT, permissions: granted }))._id)];
  const creator = await app.createUser({ tenantId: TENANT, roles });
  const key = await makeKey(creator, { scopes: kind === 'tenant admin' ? [...permissions] : granted });
  return { creator, key };
}

const updateOwnUser = (creator: TestUser, fields: Record<string, unknown>): Operation => {
  const body = { ...fields, updatedBy: creator.id };
  return {
    rest: { method: 'PATCH', path: `/access-control/users/${creator.id}`, body },
    graphql: {
      query: `mutation($id: ID!, $password: String, $email: String, $firstName: String, $currentPassword: String, $updatedBy: String!) {
        updateUser(id: $id, password: $password, email: $email, firstName: $firstName, currentPassword: $currentPassword, updatedBy: $updatedBy) { id email firstName } }`,
      variables: { id: creator.id, ...body },
    },
  };
};

const TAKEN_OVER_PASSWORD = 'T4ken-Over!';
const takenOverEmail = (creator: TestUser) => `taken.${creator.email}`;

/** The account as it was: the old password signs in, the new one and the new email do not. */
async function expectAccountUnchanged({ creator }: OwnAccountFixture): Promise<void> {
  const signIn = async (email: string, password: string) =>
    (await app.rest('POST', '/auth/login', { body: { email, password, tenantId: TENANT } })).status;
  const stored = await app.db.collection('users').findOne({ _id: new ObjectId(creator.id) });
  expect([
    stored?.email,
    stored?.tokenVersion ?? 0,
    await signIn(creator.email, creator.password),
    await signIn(creator.email, TAKEN_OVER_PASSWORD),
    await signIn(takenOverEmail(creator), creator.password),
  ]).toEqual([creator.email, 0, 200, 401, 401]);
}

const ownCredentialRefused = (fields: string[]) => ({
  status: 403,
  code: 'FORBIDDEN',
  fieldErrors: fields.map((field) => ({ field, rule: 'inPersonOnly' })),
  data: (_data: unknown, _fixture: unknown, outcome: { message?: string }) =>
    expect(outcome.message).toBe(`An API key cannot change the ${fields.join(' or ')} of the user it acts for: only that user, in person, can`),
  db: expectAccountUnchanged,
});

runCases("an API key and its creator's own sign-in credentials", client, [
  apiCase({
    name: "cannot set its creator's password, though its scopes hold users:update and updatedBy names the creator (403 naming password)",
    arrange: () => keyOfSelfEditor('custom role'),
    caller: ({ key }) => bearer(key),
    operation: ({ creator }) => updateOwnUser(creator, { password: TAKEN_OVER_PASSWORD }),
    expect: ownCredentialRefused(['password']),
  }),
  apiCase({
    name: "cannot change its creator's email (403 naming email)",
    arrange: () => keyOfSelfEditor('custom role'),
    caller: ({ key }) => ({ headers: { 'x-api-key': key.secret } }),
    operation: ({ creator }) => updateOwnUser(creator, { email: takenOverEmail(creator) }),
    expect: ownCredentialRefused(['email']),
  }),
  apiCase({
    name: 'names both fields when both are sent, and changes nothing else of the request (firstName stays)',
    arrange: () => keyOfSelfEditor('custom role'),
    caller: ({ key }) => bearer(key),
    operation: ({ creator }) => updateOwnUser(creator, { password: TAKEN_OVER_PASSWORD, email: takenOverEmail(creator), firstName: 'Mallory' }),
    expect: {
      ...ownCredentialRefused(['password', 'email']),
      db: async (fixture: OwnAccountFixture) => {
        await expectAccountUnchanged(fixture);
        expect((await app.db.collection('users').findOne({ _id: new ObjectId(fixture.creator.id) }))?.firstName).toBe('Test');
      },
    },
  }),
  apiCase({
    name: "is refused the same with every permission, as a tenant administrator's key",
    arrange: () => keyOfSelfEditor('tenant admin'),
    caller: ({ key }) => bearer(key),
    operation: ({ creator }) => updateOwnUser(creator, { password: TAKEN_OVER_PASSWORD }),
    expect: ownCredentialRefused(['password']),
  }),
  apiCase({
    name: "still edits the rest of its creator's profile with users:update",
    arrange: () => keyOfSelfEditor('custom role'),
    caller: ({ key }) => bearer(key),
    operation: ({ creator }) => updateOwnUser(creator, { firstName: 'Renamed', email: creator.email }),
    expect: { status: 200, data: (user) => expect(user.firstName).toBe('Renamed') },
  }),
  apiCase({
    name: 'leaves the creator in person free to change their own password',
    arrange: () => keyOfSelfEditor('custom role'),
    caller: ({ creator }) => ({ token: creator.token }),
    operation: ({ creator }) => updateOwnUser(creator, { password: TAKEN_OVER_PASSWORD, currentPassword: creator.password }),
    expect: { status: 200 },
  }),
]);
