import { ObjectId } from 'mongodb';
import { afterAll, beforeAll, expect } from 'vitest';
import { RoleModel } from '../../src/users/index.js';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';
import { apiCase, runCases, type Caller, type Operation } from '../support/surfaces.js';

/**
 * A key made or rolled with an API key credential stays within that key's
 * expiry, rate limit, allowed IPs and origins and scopes (left out: the
 * calling key's; given beyond: 403 naming each field, nothing stored), and
 * records it (`createdByKey`), so that revoking a key revokes, at once and in
 * the database, every key it made, and theirs, each with an audit record.
 */

let app: TestApp;
const client = () => app;
const TENANT = 'tenant-key-bounds';
let chef: TestUser; // menus:read, menus:write, api-keys:create, api-keys:revoke

const ORIGIN = 'https://kitchen.example.test';
const inAnHour = () => new Date(Date.now() + 3600_000).toISOString();
const inMinutes = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();

interface MadeKey {
  id: string;
  secret: string;
}

interface Settings {
  scopes?: string[];
  rateLimit?: number;
  expiresAt?: string;
  allowedIPs?: string[];
  allowedOrigins?: string[];
}

const uniqueName = () => `key ${new ObjectId().toHexString().slice(-8)}`;

/** A key made over REST by `caller` (a user's token or a key's secret, with the key's Origin). */
async function makeKey(caller: Caller, settings: Settings = {}): Promise<MadeKey> {
  const response = await app.rest('POST', '/api-keys', {
    token: caller.token,
    headers: caller.headers,
    body: { name: uniqueName(), scopes: ['menus:read', 'api-keys:create'], ...settings },
  });
  if (response.status !== 201) throw new Error(`createApiKey answered ${response.status}: ${JSON.stringify(response.body)}`);
  return { id: response.body._id, secret: response.body.key };
}

const asChef = (): Caller => ({ token: chef.token });
/** The calling key, with the Origin its list allows (an Origin is harmless for a key without a list). */
const asKey = (key: MadeKey): Caller => ({ token: key.secret, headers: { origin: ORIGIN } });

/** A parent key bounded on every setting: from the test's loopback address and ORIGIN only. */
const boundedParent = (settings: Settings = {}) =>
  makeKey(asChef(), { rateLimit: 50, expiresAt: inAnHour(), allowedIPs: ['127.0.0.0/8', '::1'], allowedOrigins: [ORIGIN, 'https://other.example.test'], ...settings });

const KEY_FIELDS = 'id createdBy createdByKey expiresAt rateLimit allowedIPs allowedOrigins scopes status revokedAt revokedBy';

const op = {
  create(body: Record<string, unknown>): Operation {
    return {
      rest: { method: 'POST', path: '/api-keys', body },
      graphql: {
        query: `mutation($name: String!, $scopes: [String!]!, $expiresAt: DateTimeISO, $rateLimit: Int, $allowedIPs: [String!], $allowedOrigins: [String!]) {
          createApiKey(name: $name, scopes: $scopes, expiresAt: $expiresAt, rateLimit: $rateLimit, allowedIPs: $allowedIPs, allowedOrigins: $allowedOrigins) { ${KEY_FIELDS} } }`,
        variables: body,
      },
    };
  },
  revoke(id: string): Operation {
    return {
      rest: { method: 'PATCH', path: `/api-keys/${id}/revoke` },
      graphql: { query: `mutation($id: ID!) { revokeApiKey(id: $id) { ${KEY_FIELDS} } }`, variables: { id } },
    };
  },
  roll(id: string): Operation {
    return {
      rest: { method: 'POST', path: `/api-keys/${id}/roll` },
      graphql: { query: `mutation($id: ID!) { rollApiKey(id: $id) { ${KEY_FIELDS} } }`, variables: { id } },
    };
  },
  listMenus(): Operation {
    return { rest: { method: 'GET', path: '/restaurant/meal-menus' }, graphql: { query: 'query { mealMenus { items { id } } }' } };
  },
};

const keys = () => app.db.collection('apikeys');
const stored = (id: string) => keys().findOne({ _id: new ObjectId(id) });
const storedParent = async (id: string) => (await stored(id))!;
/** Keys a key made (none after a refusal). */
const madeBy = (id: string) => keys().find({ createdByKey: id }).toArray();

beforeAll(async () => {
  app = await startTestApp();
  const role = await RoleModel.create({
    name: 'bounded-chef',
    tenant_id: TENANT,
    permissions: ['menus:read', 'menus:write', 'api-keys:create', 'api-keys:revoke'],
  });
  chef = await app.createUser({ tenantId: TENANT, roles: [String(role._id)] });
});

afterAll(async () => {
  await app?.close();
});

runCases('a key made with an API key', client, [
  apiCase({
    name: "takes the calling key's expiry, rate limit, IPs and origins when left out, and records the calling key",
    arrange: () => boundedParent(),
    caller: asKey,
    operation: () => op.create({ name: uniqueName(), scopes: ['menus:read'] }),
    expect: {
      status: 201,
      data: async (key, parent) => {
        const bounds = await storedParent(parent.id);
        expect(key).toMatchObject({
          createdBy: chef.id,
          createdByKey: parent.id,
          expiresAt: bounds.expiresAt.toISOString(),
          rateLimit: 50,
          allowedIPs: ['127.0.0.0/8', '::1'],
          allowedOrigins: [ORIGIN, 'https://other.example.test'],
        });
      },
      db: async (parent) => {
        const [child] = await madeBy(parent.id);
        expect(child).toMatchObject({ createdBy: chef.id, createdByKey: parent.id, rateLimit: 50, allowedIPs: ['127.0.0.0/8', '::1'] });
        expect(child.expiresAt).toEqual((await storedParent(parent.id)).expiresAt);
      },
    },
  }),
  apiCase({
    name: "gets the default rate limit when left out and the calling key's is higher",
    arrange: () => makeKey(asChef(), { rateLimit: 5000 }),
    caller: asKey,
    operation: () => op.create({ name: uniqueName(), scopes: ['menus:read'] }),
    expect: {
      status: 201,
      data: (key, parent) => expect(key).toMatchObject({ rateLimit: 1000, expiresAt: null, allowedIPs: [], allowedOrigins: [], createdByKey: parent.id }),
    },
  }),
  apiCase({
    name: 'takes settings given within the calling key as given (an address inside its block, one of its origins)',
    arrange: () => boundedParent(),
    caller: asKey,
    operation: () =>
      op.create({ name: uniqueName(), scopes: ['menus:read'], rateLimit: 7, expiresAt: inMinutes(30), allowedIPs: ['127.0.0.1', '127.1.0.0/16'], allowedOrigins: [ORIGIN] }),
    expect: {
      status: 201,
      data: (key) => expect(key).toMatchObject({ rateLimit: 7, allowedIPs: ['127.0.0.1', '127.1.0.0/16'], allowedOrigins: [ORIGIN] }),
    },
  }),
  apiCase({
    name: "refuses a rate limit above the calling key's (403 naming rateLimit), storing nothing",
    arrange: () => boundedParent({ rateLimit: 3 }),
    caller: asKey,
    operation: () => op.create({ name: uniqueName(), scopes: ['api-keys:create', 'menus:read'], rateLimit: 1_000_000 }),
    expect: {
      status: 403,
      code: 'FORBIDDEN',
      fieldErrors: [{ field: 'rateLimit', rule: 'withinCallingKey', message: 'rateLimit may be at most 3, the rate limit of the API key making this request' }],
      db: async (parent) => expect(await madeBy(parent.id)).toEqual([]),
    },
  }),
  apiCase({
    name: "refuses an expiry after the calling key's (403 naming expiresAt), storing nothing",
    arrange: () => boundedParent({ expiresAt: inMinutes(1) }),
    caller: asKey,
    operation: () => op.create({ name: uniqueName(), scopes: ['menus:read'], expiresAt: inMinutes(10) }),
    expect: {
      status: 403,
      code: 'FORBIDDEN',
      fieldErrors: [{ field: 'expiresAt', rule: 'withinCallingKey' }],
      db: async (parent) => expect(await madeBy(parent.id)).toEqual([]),
    },
  }),
  apiCase({
    name: 'refuses a block wider than the calling key\'s, or an address outside it (403 naming allowedIPs)',
    arrange: () => boundedParent({ allowedIPs: ['127.0.0.0/16', '::1'] }),
    caller: asKey,
    operation: () => op.create({ name: uniqueName(), scopes: ['menus:read'], allowedIPs: ['127.0.0.1', '127.0.0.0/8'] }),
    expect: {
      status: 403,
      code: 'FORBIDDEN',
      fieldErrors: [{ field: 'allowedIPs', rule: 'withinCallingKey' }],
      db: async (parent) => expect(await madeBy(parent.id)).toEqual([]),
    },
  }),
  apiCase({
    name: 'refuses an origin the calling key does not list (403 naming allowedOrigins)',
    arrange: () => boundedParent(),
    caller: asKey,
    operation: () => op.create({ name: uniqueName(), scopes: ['menus:read'], allowedOrigins: [ORIGIN, 'https://evil.example.test'] }),
    expect: {
      status: 403,
      code: 'FORBIDDEN',
      fieldErrors: [{ field: 'allowedOrigins', rule: 'withinCallingKey' }],
      db: async (parent) => expect(await madeBy(parent.id)).toEqual([]),
    },
  }),
  apiCase({
    name: 'names every setting given beyond the calling key in one refusal',
    arrange: () => boundedParent(),
    caller: asKey,
    operation: () =>
      op.create({ name: uniqueName(), scopes: ['menus:read'], rateLimit: 51, expiresAt: inMinutes(120), allowedIPs: ['10.0.0.1'], allowedOrigins: ['https://evil.example.test'] }),
    expect: {
      status: 403,
      code: 'FORBIDDEN',
      fieldErrors: ['expiresAt', 'rateLimit', 'allowedIPs', 'allowedOrigins'].map((field) => ({ field, rule: 'withinCallingKey' })),
      db: async (parent) => expect(await madeBy(parent.id)).toEqual([]),
    },
  }),
  apiCase({
    name: 'refuses a scope the calling key lacks, though its creator holds it (403)',
    arrange: () => boundedParent(),
    caller: asKey,
    operation: () => op.create({ name: uniqueName(), scopes: ['menus:read', 'menus:write'] }),
    expect: {
      status: 403,
      code: 'FORBIDDEN',
      data: (_data, _parent, outcome) => expect(outcome.message).toBe("You cannot give an API key the scope 'menus:write' you do not hold"),
      db: async (parent) => expect(await madeBy(parent.id)).toEqual([]),
    },
  }),
  apiCase({
    name: 'a user in person still makes keys with no bounds but their own (createdByKey null)',
    caller: asChef,
    operation: () => op.create({ name: uniqueName(), scopes: ['menus:read'] }),
    expect: {
      status: 201,
      data: (key) => expect(key).toMatchObject({ createdByKey: null, expiresAt: null, rateLimit: 1000, allowedIPs: [], allowedOrigins: [] }),
    },
  }),
]);

/** A parent made by chef, a child made with the parent, a grandchild with the child, and a sibling chef made in person. */
async function family(parentSettings: Settings = {}, childSettings: Settings = {}) {
  const parent = await makeKey(asChef(), parentSettings);
  const child = await makeKey(asKey(parent), childSettings);
  const grandchild = await makeKey(asKey(child), { scopes: ['menus:read'] });
  const sibling = await makeKey(asChef());
  return { parent, child, grandchild, sibling, requestId: `bounds-${new ObjectId().toHexString()}` };
}

const revokedKeys = async (...made: MadeKey[]) => (await Promise.all(made.map((key) => stored(key.id)))).map((key) => key?.revokedAt !== null);
const auditOf = (requestId: string) => app.db.collection('auditevents').find({ requestId }).toArray();

runCases('revoking a key', client, [
  apiCase({
    name: 'revokes every key it made, and theirs, in the database, with an audit record for each; the secrets are refused at once',
    arrange: () => family(),
    caller: (made) => ({ token: chef.token, headers: { 'x-request-id': made.requestId } }),
    operation: ({ parent }) => op.revoke(parent.id),
    expect: {
      status: 200,
      data: (key, { parent }) => expect(key).toMatchObject({ id: parent.id, status: 'revoked', revokedBy: chef.id }),
      db: async (made) => {
        expect(await revokedKeys(made.parent, made.child, made.grandchild, made.sibling)).toEqual([true, true, true, false]);
        expect((await stored(made.grandchild.id))?.revokedBy).toBe(chef.id);
        const records = (await auditOf(made.requestId)).map((r) => [r.action, r.target.type, r.target.id, r.tenant_id, r.actor.id, r.outcome]);
        expect(records.sort()).toEqual(
          [made.parent, made.child, made.grandchild].map((key) => ['api-keys.revoke', 'ApiKey', key.id, TENANT, chef.id, 'success']).sort(),
        );
        for (const key of [made.child, made.grandchild]) {
          const use = await app.rest('GET', '/restaurant/meal-menus', asKey(key));
          expect([use.status, use.body.detail]).toEqual([401, 'API key revoked']);
        }
        expect((await app.rest('GET', '/restaurant/meal-menus', asKey(made.sibling))).status).toBe(200);
      },
    },
  }),
  apiCase({
    name: 'made with a key, by that key (api-keys:revoke in its scopes), takes the keys it made along',
    arrange: async () => {
      const parent = await makeKey(asChef(), { scopes: ['menus:read', 'api-keys:create', 'api-keys:revoke'] });
      const child = await makeKey(asKey(parent), { scopes: ['menus:read'] });
      return { parent, child };
    },
    caller: ({ parent }) => asKey(parent),
    operation: ({ parent }) => op.revoke(parent.id),
    expect: { status: 200, db: async ({ parent, child }) => expect(await revokedKeys(parent, child)).toEqual([true, true]) },
  }),
  apiCase({
    name: 'again revokes a key it made that is still live (an interrupted revoke), recording only that one besides itself',
    arrange: async () => {
      const made = await family();
      await keys().updateOne({ _id: new ObjectId(made.parent.id) }, { $set: { revokedAt: new Date(), revokedBy: chef.id } });
      return made;
    },
    caller: (made) => ({ token: chef.token, headers: { 'x-request-id': made.requestId } }),
    operation: ({ parent }) => op.revoke(parent.id),
    expect: {
      status: 200,
      db: async (made) => {
        expect(await revokedKeys(made.child, made.grandchild)).toEqual([true, true]);
        const targets = (await auditOf(made.requestId)).map((r) => r.target.id);
        expect(targets.sort()).toEqual([made.parent.id, made.child.id, made.grandchild.id].sort());
      },
    },
  }),
]);

runCases('a key whose parent was revoked', client, [
  apiCase({
    name: 'is refused on its next use, even while this instance serves it from a grant of uses (a busy key)',
    arrange: async () => {
      const parent = await makeKey(asChef(), { rateLimit: 5000 });
      const child = await makeKey(asKey(parent), { scopes: ['menus:read'], rateLimit: 5000 });
      // Used fast enough that its uses are taken from the database several at a time.
      for (let i = 0; i < 8; i += 1) expect((await app.rest('GET', '/restaurant/meal-menus', asKey(child))).status).toBe(200);
      expect((await app.rest('PATCH', `/api-keys/${parent.id}/revoke`, asChef())).status).toBe(200);
      return child;
    },
    caller: asKey,
    operation: () => op.listMenus(),
    expect: {
      status: 401,
      code: 'UNAUTHENTICATED',
      data: (_data, _child, outcome) => expect(outcome.message).toBe('API key revoked'),
    },
  }),
]);

runCases('a key made with a key revoked meanwhile', client, [
  apiCase({
    name: 'is removed again and its create answers 401, when the revoke (by another instance) came after the credential was accepted',
    arrange: async () => {
      const parent = await makeKey(asChef(), { rateLimit: 5000 });
      // Eight fast uses: this instance now serves the key from a grant with uses left, without reading it again.
      for (let i = 0; i < 8; i += 1) expect((await app.rest('GET', '/restaurant/meal-menus', asKey(parent))).status).toBe(200);
      // Revoked as another instance would: in the database, unseen by this instance's grant.
      await keys().updateOne({ _id: new ObjectId(parent.id) }, { $set: { revokedAt: new Date(), revokedBy: chef.id } });
      return parent;
    },
    caller: asKey,
    operation: () => op.create({ name: uniqueName(), scopes: ['menus:read'] }),
    expect: {
      status: 401,
      code: 'UNAUTHENTICATED',
      data: (_data, _parent, outcome) => expect(outcome.message).toBe('API key revoked'),
      db: async (parent) => expect(await madeBy(parent.id)).toEqual([]),
    },
  }),
]);

runCases('rolling with an API key', client, [
  apiCase({
    name: "refuses a key whose limits exceed the calling key's (403 naming each), leaving its secret as it was",
    arrange: async () => {
      const caller = await makeKey(asChef(), { scopes: ['menus:read', 'api-keys:revoke'], rateLimit: 10, expiresAt: inAnHour() });
      const target = await makeKey(asChef(), { scopes: ['menus:read'] });
      return { caller, target, before: (await keys().findOne({ _id: new ObjectId(target.id) }, { projection: { secrets: 1 } }))!.secrets };
    },
    caller: ({ caller }) => asKey(caller),
    operation: ({ target }) => op.roll(target.id),
    expect: {
      status: 403,
      code: 'FORBIDDEN',
      fieldErrors: [
        { field: 'expiresAt', rule: 'withinCallingKey' },
        { field: 'rateLimit', rule: 'withinCallingKey' },
      ],
      db: async ({ target, before }) => {
        expect((await keys().findOne({ _id: new ObjectId(target.id) }, { projection: { secrets: 1 } }))!.secrets).toEqual(before);
        expect((await app.rest('GET', '/restaurant/meal-menus', asKey(target))).status).toBe(200);
      },
    },
  }),
  apiCase({
    name: "refuses a key within its limits that it did not make (403): the new secret would outlive the calling key's revoke",
    arrange: async () => {
      const caller = await makeKey(asChef(), { scopes: ['menus:read', 'api-keys:revoke'] });
      const target = await makeKey(asChef(), { scopes: ['menus:read'] });
      return { caller, target, before: (await keys().findOne({ _id: new ObjectId(target.id) }, { projection: { secrets: 1 } }))!.secrets };
    },
    caller: ({ caller }) => asKey(caller),
    operation: ({ target }) => op.roll(target.id),
    expect: {
      status: 403,
      code: 'FORBIDDEN',
      data: (_data, _fixture, outcome) => expect(outcome.message).toContain('can roll only itself and the keys it made'),
      db: async ({ target, before }) =>
        expect((await keys().findOne({ _id: new ObjectId(target.id) }, { projection: { secrets: 1 } }))!.secrets).toEqual(before),
    },
  }),
  apiCase({
    name: 'rolls a key made by a key it made',
    arrange: async () => {
      const caller = await makeKey(asChef(), { scopes: ['menus:read', 'api-keys:create', 'api-keys:revoke'], rateLimit: 10, expiresAt: inAnHour() });
      const child = await makeKey(asKey(caller), { scopes: ['menus:read', 'api-keys:create'] });
      return { caller, grandchild: await makeKey(asKey(child), { scopes: ['menus:read'] }) };
    },
    caller: ({ caller }) => asKey(caller),
    operation: ({ grandchild }) => op.roll(grandchild.id),
    expect: { status: 200, data: (key, { grandchild }) => expect(key.id).toBe(grandchild.id) },
  }),
  apiCase({
    name: 'rolls itself',
    arrange: () => makeKey(asChef(), { scopes: ['menus:read', 'api-keys:revoke'] }),
    caller: (caller) => asKey(caller),
    operation: (caller) => op.roll(caller.id),
    expect: { status: 200, data: (key, caller) => expect(key.id).toBe(caller.id) },
  }),
  apiCase({
    name: 'rolls a key within its limits (one it made)',
    arrange: async () => {
      const caller = await makeKey(asChef(), { scopes: ['menus:read', 'api-keys:create', 'api-keys:revoke'], rateLimit: 10, expiresAt: inAnHour() });
      const target = await makeKey(asKey(caller), { scopes: ['menus:read'] });
      return { caller, target };
    },
    caller: ({ caller }) => asKey(caller),
    operation: ({ target }) => op.roll(target.id),
    expect: { status: 200, data: (key, { caller }) => expect(key).toMatchObject({ createdByKey: caller.id, rateLimit: 10 }) },
  }),
]);
