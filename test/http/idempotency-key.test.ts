import { REPLAYED_WITHOUT_SECRET as WEBHOOK_REPLAYED_WITHOUT_SECRET } from '../../src/webhooks/webhook-replay.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPLAYED_WITHOUT_SECRET } from '../../src/api-keys/index.js';
import { createOperations } from '../../src/service.js';
import { startTestApp, type TestApp, type TestResponse, type TestUser } from '../support/test-app.js';
import { SURFACES, type Surface } from '../support/surfaces.js';

/**
 * `Idempotency-Key` on every create (contract "REST and GraphQL conventions"),
 * over both surfaces, through one table of the creates: the same key and body
 * answer the first result again without a second record, another body is 422,
 * 20 concurrent requests make one record, keys are per caller, a replayed
 * createApiKey carries no secret and none is stored.
 */

let app: TestApp;
let admin: TestUser; // TENANT
let colleague: TestUser; // TENANT, another admin
let outsider: TestUser; // OTHER_TENANT
const TENANT = 'tenant-idempotency';
const OTHER_TENANT = 'tenant-idempotency-other';

beforeAll(async () => {
  app = await startTestApp();
  admin = await app.createUser({ tenantId: TENANT });
  colleague = await app.createUser({ tenantId: TENANT });
  outsider = await app.createUser({ tenantId: OTHER_TENANT });
});
afterAll(() => app?.close());

let counter = 0;
const unique = () => `${Date.now().toString(36)}${(counter += 1)}`;

interface Create {
  operation: string;
  collection: string;
  /** A fresh body; `tag` makes its records findable. */
  body(tag: string, caller: TestUser): Record<string, unknown>;
  /** How the records of one tag are found in the collection. */
  filter(tag: string): Record<string, unknown>;
  rest: string;
  graphql: string;
  /** The GraphQL variable types of the body's fields. */
  types: Record<string, string>;
}

/** Every create of every area (the routes answered 201): a test below fails when one is missing. */
const creates: Create[] = [
  {
    operation: 'Mutation.createApiKey',
    collection: 'apikeys',
    body: (tag) => ({ name: `key ${tag}`, scopes: ['menus:read'] }),
    filter: (tag) => ({ name: `key ${tag}` }),
    rest: '/api-keys',
    graphql: 'createApiKey(name: $name, scopes: $scopes) { id name key }',
    types: { name: 'String!', scopes: '[String!]!' },
  },
  {
    operation: 'Mutation.createMealMenu',
    collection: 'mealmenus',
    body: (tag) => ({ name: `menu ${tag}`, date: '2026-01-02', mealType: 'lunch' }),
    filter: (tag) => ({ name: `menu ${tag}` }),
    rest: '/restaurant/meal-menus',
    graphql: 'createMealMenu(name: $name, date: $date, mealType: $mealType) { id name }',
    types: { name: 'String!', date: 'String!', mealType: 'MealType!' },
  },
  {
    operation: 'Mutation.createUser',
    collection: 'users',
    body: (tag, caller) => ({ email: `u${tag}@example.test`, firstName: 'Ada', password: 'Passw0rd!', createdBy: caller.id, updatedBy: caller.id }),
    filter: (tag) => ({ email: `u${tag}@example.test` }),
    rest: '/access-control/users',
    graphql:
      'createUser(email: $email, firstName: $firstName, password: $password, createdBy: $createdBy, updatedBy: $updatedBy) { id email }',
    types: { email: 'String!', firstName: 'String!', password: 'String!', createdBy: 'String!', updatedBy: 'String!' },
  },
  {
    operation: 'Mutation.createRole',
    collection: 'roles',
    body: (tag) => ({ name: `role-${tag}`, permissions: ['menus:read'] }),
    filter: (tag) => ({ name: `role-${tag}` }),
    rest: '/access-control/roles',
    graphql: 'createRole(name: $name, permissions: $permissions) { id name }',
    types: { name: 'String!', permissions: '[String!]!' },
  },
  {
    operation: 'Mutation.createWebhook',
    collection: 'webhooks',
    body: (tag) => ({ url: `http://127.0.0.1:9/${tag}`, events: ['*'] }),
    filter: (tag) => ({ url: `http://127.0.0.1:9/${tag}` }),
    rest: '/webhooks',
    graphql: 'createWebhook(url: $url, events: $events) { id url }',
    types: { url: 'String!', events: '[String!]!' },
  },
];

/** Sends one create with a key; answers the status, the result and the raw answer. */
async function send(surface: Surface, create: Create, caller: TestUser, body: Record<string, unknown>, key?: string) {
  const headers: Record<string, string> = key === undefined ? {} : { 'Idempotency-Key': key };
  let raw: TestResponse;
  if (surface === 'rest') {
    raw = await app.rest('POST', create.rest, { token: caller.token, body, headers });
  } else {
    const declared = Object.keys(body).map((name) => `$${name}: ${create.types[name]}`).join(', ');
    raw = await app.graphql(`mutation(${declared}) { ${create.graphql} }`, body, { token: caller.token, headers });
  }
  const failed = surface === 'graphql' && raw.body.errors;
  const status = failed ? raw.body.errors[0].extensions.http.status : raw.status;
  const result = surface === 'rest' ? raw.body : raw.body.data?.[create.graphql.slice(0, create.graphql.indexOf('('))];
  return { status, result, raw };
}

const count = (create: Create, tag: string, tenant = TENANT) => app.db.collection(create.collection).countDocuments({ ...create.filter(tag), tenant_id: tenant });
const newKey = () => `idem-${unique()}`;

/**
 * Creates whose Idempotency-Key is tested beside their own subject, because
 * they make no record answered by id: createPasswordTicket (its replay has no
 * ticket; test/users/password-tickets.test.ts).
 */
const testedElsewhere = ['Mutation.createPasswordTicket'];

it('covers every create of the service', () => {
  expect([...creates.map((create) => create.operation), ...testedElsewhere].sort()).toEqual([...createOperations].sort());
});

describe.each(creates)('$operation', (create) => {
  describe.each(SURFACES)('over %s', (surface) => {
    it('answers a repeat with the same key and body again, without a second record', async () => {
      const tag = unique();
      const key = newKey();
      const first = await send(surface, create, admin, create.body(tag, admin), key);
      const again = await send(surface, create, admin, create.body(tag, admin), key);
      expect(first.status).toBeLessThan(300);
      expect(again.status).toBe(first.status);
      expect(again.raw.status).toBe(first.raw.status);
      expect(again.raw.headers.get('idempotent-replayed')).toBe('true');
      expect(first.raw.headers.get('idempotent-replayed')).toBeNull();
      if (create.operation === 'Mutation.createApiKey') {
        expect(first.result.key).toMatch(/^ak_/);
        expect(again.result).toEqual({ ...first.result, key: null, detail: REPLAYED_WITHOUT_SECRET });
        // No secret is stored to replay it.
        const stored = JSON.stringify(await app.db.collection('idempotencykeys').find().toArray());
        expect(stored).not.toContain(first.result.key);
      } else if (create.operation === 'Mutation.createWebhook' && surface === 'rest') {
        expect(first.result.secret).toMatch(/^whsec_/);
        expect(again.result).toEqual({ ...first.result, secret: null, detail: WEBHOOK_REPLAYED_WITHOUT_SECRET });
        const stored = JSON.stringify(await app.db.collection('idempotencykeys').find().toArray());
        expect(stored).not.toContain(first.result.secret.slice('whsec_'.length));
      } else {
        expect(again.result).toEqual(first.result);
      }
      expect(await count(create, tag)).toBe(1);
    });

    it('refuses the key with another body (422) and creates nothing', async () => {
      const tag = unique();
      const other = unique();
      const key = newKey();
      await send(surface, create, admin, create.body(tag, admin), key);
      const reused = await send(surface, create, admin, create.body(other, admin), key);
      expect(reused.status).toBe(422);
      expect(await count(create, other)).toBe(0);
    });

    it('makes exactly one record of 20 concurrent requests with one key', async () => {
      const tag = unique();
      const key = newKey();
      const answers = await Promise.all(Array.from({ length: 20 }, () => send(surface, create, admin, create.body(tag, admin), key)));
      expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(answers[0].status));
      expect(answers[0].status).toBeLessThan(300);
      expect(new Set(answers.map((answer) => answer.result.id)).size).toBe(1);
      expect(await count(create, tag)).toBe(1);
    });

    it("keeps each caller's keys apart: another user's same key and body makes its own record", async () => {
      const tag = unique();
      const key = newKey();
      const mine = await send(surface, create, admin, create.body(tag, admin), key);
      const theirs = await send(surface, create, outsider, create.body(tag, outsider), key);
      expect(theirs.status).toBeLessThan(300);
      expect(theirs.raw.headers.get('idempotent-replayed')).toBeNull();
      expect(theirs.result.id).not.toBe(mine.result.id);
      expect(await count(create, tag)).toBe(1);
      expect(await count(create, tag, OTHER_TENANT)).toBe(1);
    });

    it.each([
      ['empty', ''],
      ['too long', 'k'.repeat(256)],
      ['with a space', 'two words'],
    ])('refuses a key %s with 400 naming the header, creating nothing', async (_name, key) => {
      const tag = unique();
      const answer = await send(surface, create, admin, create.body(tag, admin), key);
      expect(answer.status).toBe(400);
      const errors = surface === 'rest' ? answer.raw.body.errors : answer.raw.body.errors[0].extensions.errors;
      expect(errors).toEqual([expect.objectContaining({ field: 'Idempotency-Key', rule: 'idempotencyKey' })]);
      expect(await count(create, tag)).toBe(0);
    });
  });
});

describe('a key within one tenant', () => {
  it.each(SURFACES)("is the caller's own: a colleague's same key makes another record (%s)", async (surface) => {
    const create = creates.find((candidate) => candidate.operation === 'Mutation.createMealMenu')!;
    const tag = unique();
    const key = newKey();
    await send(surface, create, admin, create.body(tag, admin), key);
    const theirs = await send(surface, create, colleague, create.body(tag, colleague), key);
    expect(theirs.status).toBeLessThan(300);
    expect(theirs.raw.headers.get('idempotent-replayed')).toBeNull();
    expect(await count(create, tag)).toBe(2);
  });

  it.each(SURFACES)('is given back when the first request fails: the request runs again, not replayed (%s)', async (surface) => {
    const create = creates.find((candidate) => candidate.operation === 'Mutation.createMealMenu')!;
    const tag = unique();
    const key = newKey();
    const bad = await send(surface, create, admin, { ...create.body(tag, admin), date: 'not a date' }, key);
    expect(bad.status).toBe(400);
    // The same request again is refused again (run again, not replayed).
    const badAgain = await send(surface, create, admin, { ...create.body(tag, admin), date: 'not a date' }, key);
    expect(badAgain.status).toBe(400);
    expect(badAgain.raw.headers.get('idempotent-replayed')).toBeNull();
    expect(await count(create, tag)).toBe(0);
  });

  it('stores its records with a 24-hour TTL index', async () => {
    const indexes = await app.db.collection('idempotencykeys').indexes();
    expect(indexes).toContainEqual(expect.objectContaining({ key: { createdAt: 1 }, expireAfterSeconds: 86_400 }));
  });
});

describe('a stored key', () => {
  const menus = () => creates.find((candidate) => candidate.operation === 'Mutation.createMealMenu')!;
  /** The record id of a key of `admin` (http/use-idempotency-key.ts: sha256 of the caller's scope and the key). */
  const recordId = async (key: string) => {
    const { createHash } = await import('node:crypto');
    return createHash('sha256').update(`user:${admin.id}|tenant:${TENANT}\u0000${key}`).digest('hex');
  };

  it('older than 24 hours is forgotten: the request runs again', async () => {
    const tag = unique();
    const key = newKey();
    await send('rest', menus(), admin, menus().body(tag, admin), key);
    await app.db.collection('idempotencykeys').updateOne({ _id: (await recordId(key)) as never }, { $set: { createdAt: new Date(Date.now() - 25 * 3600_000) } });
    const again = await send('rest', menus(), admin, menus().body(tag, admin), key);
    expect(again.status).toBe(201);
    expect(again.raw.headers.get('idempotent-replayed')).toBeNull();
    expect(await count(menus(), tag)).toBe(2);
  });

  it('claimed by a request that never finished (its instance stopped) is taken over after 2 minutes', async () => {
    const tag = unique();
    const key = newKey();
    const body = menus().body(tag, admin);
    const { createHash } = await import('node:crypto');
    // The fingerprint of this exact request does not matter: an abandoned claim is given up whatever it held.
    await app.db.collection('idempotencykeys').insertOne({
      _id: (await recordId(key)) as never,
      fingerprint: createHash('sha256').update('another request').digest('hex'),
      state: 'pending',
      createdAt: new Date(Date.now() - 3 * 60_000),
    });
    const answer = await send('rest', menus(), admin, body, key);
    expect(answer.status).toBe(201);
    expect(await count(menus(), tag)).toBe(1);
  });
});
