import { ObjectId } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordRoutes } from '../../src/http/use-conditional-requests.js';
import { restRoutes } from '../../src/service.js';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

/**
 * REST conditional requests (contract "REST and GraphQL conventions"): every
 * single-record GET answers a strong ETag and 304 to If-None-Match with it;
 * every PATCH and DELETE of one record takes If-Match, and a stale one is 412
 * problem+json naming the precondition, with nothing changed, also when
 * requests with one ETag race (the write itself is conditional).
 */

let app: TestApp;
let admin: TestUser;
const TENANT = 'tenant-etag';

beforeAll(async () => {
  app = await startTestApp();
  admin = await app.createUser({ tenantId: TENANT });
});
afterAll(() => app?.close());

let counter = 0;
const unique = () => `${Date.now().toString(36)}${(counter += 1)}`;

async function created(path: string, body: Record<string, unknown>): Promise<string> {
  const answer = await app.rest('POST', path, { token: admin.token, body });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body.id as string;
}

const newMenu = () => created('/restaurant/meal-menus', { name: `menu ${unique()}`, date: '2026-01-02', mealType: 'lunch' });
const newUser = () =>
  created('/access-control/users', { email: `e${unique()}@example.test`, firstName: 'Ada', password: 'Passw0rd!', createdBy: admin.id, updatedBy: admin.id });
const newKey = () => created('/api-keys', { name: `key ${unique()}`, scopes: ['menus:read'] });
const newWebhook = () => created('/webhooks', { url: `http://127.0.0.1:9/${unique()}`, events: ['webhooks.disabled'] }); // a type this file never causes: no delivery changes the record under test
const newRole = () => created('/access-control/roles', { name: `role-${unique()}`, permissions: ['menus:read'] });
/** The current refresh token of each session newSession made. */
const refreshTokens = new Map<string, string>();
async function newSession(): Promise<string> {
  const answer = await app.rest('POST', '/auth/login', { body: { email: admin.email, password: admin.password, tenantId: TENANT } });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  const sid = JSON.parse(Buffer.from(answer.body.accessToken.split('.')[1], 'base64url').toString()).sid as string;
  refreshTokens.set(sid, answer.body.refreshToken);
  return sid;
}

interface RecordKind {
  collection: string;
  create(): Promise<string>;
  read: { operation: string; path: (id: string) => string };
  /** Another change of the record, made without a precondition. */
  touch(id: string): Promise<void>;
}

const kinds: Record<string, RecordKind> = {
  menu: {
    collection: 'mealmenus',
    create: newMenu,
    read: { operation: 'Query.mealMenu', path: (id) => `/restaurant/meal-menus/${id}` },
    touch: async (id) => void (await app.rest('PATCH', `/restaurant/meal-menus/${id}/estimated-portions/7`, { token: admin.token })),
  },
  user: {
    collection: 'users',
    create: newUser,
    read: { operation: 'Query.user', path: (id) => `/access-control/users/${id}` },
    touch: async (id) => void (await app.rest('PATCH', `/access-control/users/${id}`, { token: admin.token, body: { firstName: `T${unique()}`, updatedBy: admin.id } })),
  },
  apiKey: {
    collection: 'apikeys',
    create: newKey,
    read: { operation: 'Query.apiKey', path: (id) => `/api-keys/${id}` },
    touch: async (id) => void (await app.db.collection('apikeys').updateOne({ _id: new ObjectId(id) }, { $set: { description: unique(), updatedAt: new Date() } })),
  },
  role: {
    collection: 'roles',
    create: newRole,
    read: { operation: 'Query.role', path: (id) => `/access-control/roles/${id}` },
    touch: async (id) => void (await app.rest('PATCH', `/access-control/roles/${id}`, { token: admin.token, body: { description: `d${unique()}` } })),
  },
  webhook: {
    collection: 'webhooks',
    create: newWebhook,
    read: { operation: 'Query.webhook', path: (id) => `/webhooks/${id}` },
    touch: async (id) => void (await app.rest('PATCH', `/webhooks/${id}`, { token: admin.token, body: { description: `d${unique()}` } })),
  },
  // A sign-in session of the admin (read and ended by the admin, in person); a refresh changes it.
  session: {
    collection: 'sessions',
    create: newSession,
    read: { operation: 'Query.session', path: (id) => `/auth/sessions/${id}` },
    touch: async (id) => {
      const answer = await app.rest('POST', '/auth/refresh', { body: { refreshToken: refreshTokens.get(id) } });
      expect(answer.status).toBe(200);
      refreshTokens.set(id, answer.body.refreshToken);
    },
  },
};

/** A key paused (disableApiKey) when made: enabling it is the write. Not in `kinds`: its read is the apiKey one. */
const disabledApiKey: RecordKind = {
  ...kinds.apiKey,
  create: async () => {
    const id = await newKey();
    expect((await app.rest('PATCH', `/api-keys/${id}/disable`, { token: admin.token, body: { reason: 'paused' } })).status).toBe(200);
    return id;
  },
};

/** A user disabled (disableUser) when made: enabling them is the write. Not in `kinds`: its read is the user one. */
const disabledUser: RecordKind = {
  ...kinds.user,
  create: async () => {
    const id = await newUser();
    expect((await app.rest('PATCH', `/access-control/users/${id}/disable`, { token: admin.token })).status).toBe(200);
    return id;
  },
};

interface Write {
  operation: string;
  kind: RecordKind;
  method: 'PATCH' | 'DELETE';
  path: (id: string) => string;
  body?: () => Record<string, unknown>;
}

const writes: Write[] = [
  { operation: 'Mutation.updateEstimatedPortions', kind: kinds.menu, method: 'PATCH', path: (id) => `/restaurant/meal-menus/${id}/estimated-portions/42` },
  { operation: 'Mutation.deleteMealMenu', kind: kinds.menu, method: 'DELETE', path: (id) => `/restaurant/meal-menus/${id}` },
  { operation: 'Mutation.updateUser', kind: kinds.user, method: 'PATCH', path: (id) => `/access-control/users/${id}`, body: () => ({ lastName: `L${unique()}`, updatedBy: admin.id }) },
  { operation: 'Mutation.revokeApiKey', kind: kinds.apiKey, method: 'PATCH', path: (id) => `/api-keys/${id}/revoke` },
  { operation: 'Mutation.updateApiKey', kind: kinds.apiKey, method: 'PATCH', path: (id) => `/api-keys/${id}`, body: () => ({ description: `d${unique()}` }) },
  { operation: 'Mutation.disableApiKey', kind: kinds.apiKey, method: 'PATCH', path: (id) => `/api-keys/${id}/disable`, body: () => ({ reason: 'paused' }) },
  { operation: 'Mutation.enableApiKey', kind: disabledApiKey, method: 'PATCH', path: (id) => `/api-keys/${id}/enable` },
  { operation: 'Mutation.updateRole', kind: kinds.role, method: 'PATCH', path: (id) => `/access-control/roles/${id}`, body: () => ({ description: `d${unique()}` }) },
  { operation: 'Mutation.deleteRole', kind: kinds.role, method: 'DELETE', path: (id) => `/access-control/roles/${id}` },
  { operation: 'Mutation.disableUser', kind: kinds.user, method: 'PATCH', path: (id) => `/access-control/users/${id}/disable`, body: () => ({ reason: 'paused' }) },
  { operation: 'Mutation.enableUser', kind: disabledUser, method: 'PATCH', path: (id) => `/access-control/users/${id}/enable` },
  { operation: 'Mutation.deleteUser', kind: kinds.user, method: 'DELETE', path: (id) => `/access-control/users/${id}` },
  { operation: 'Mutation.endSession', kind: kinds.session, method: 'DELETE', path: (id) => `/auth/sessions/${id}` },
  { operation: 'Mutation.updateWebhook', kind: kinds.webhook, method: 'PATCH', path: (id) => `/webhooks/${id}`, body: () => ({ description: `d${unique()}` }) },
  { operation: 'Mutation.deleteWebhook', kind: kinds.webhook, method: 'DELETE', path: (id) => `/webhooks/${id}` },
  { operation: 'Mutation.endUserSessions', kind: kinds.user, method: 'DELETE', path: (id) => `/access-control/users/${id}/sessions` },
];

const read = (kind: RecordKind, id: string, headers: Record<string, string> = {}) => app.rest('GET', kind.read.path(id), { token: admin.token, headers });
const stored = (kind: RecordKind, id: string) => app.db.collection(kind.collection).findOne({ _id: new ObjectId(id) });

it('covers every single-record GET, PATCH and DELETE route', () => {
  const { reads, writes: routed } = recordRoutes(restRoutes);
  expect([...reads].sort()).toEqual(Object.values(kinds).map((kind) => kind.read.operation).sort());
  // A new PATCH or DELETE of one record fails here until its store's write takes the version
  // (versionCondition / orStale, shared/write-precondition.ts) and it has a row below.
  expect([...routed].sort()).toEqual(writes.map((write) => write.operation).sort());
});

describe.each(Object.entries(kinds))('GET of one %s', (_name, kind) => {
  it('answers a strong ETag; If-None-Match with it is 304 without a body; a change gives a new one', async () => {
    const id = await kind.create();
    const first = await read(kind, id);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"\d+-[0-9a-f]{16}"$/);
    expect((await read(kind, id)).headers.get('etag')).toBe(etag);

    const unchanged = await read(kind, id, { 'If-None-Match': etag! });
    expect(unchanged.status).toBe(304);
    expect(unchanged.body).toBe('');
    expect(unchanged.headers.get('etag')).toBe(etag);

    await kind.touch(id);
    const changed = await read(kind, id, { 'If-None-Match': etag! });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
  });
});

describe.each(writes)('$method of $operation', (write) => {
  const send = (id: string, headers: Record<string, string>) => app.rest(write.method, write.path(id), { token: admin.token, body: write.body?.(), headers });

  it('runs with the current ETag in If-Match', async () => {
    const id = await write.kind.create();
    const etag = (await read(write.kind, id)).headers.get('etag')!;
    const answer = await send(id, { 'If-Match': etag });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  });

  it('refuses a stale If-Match with 412 problem+json naming it, changing nothing', async () => {
    const id = await write.kind.create();
    const etag = (await read(write.kind, id)).headers.get('etag')!;
    await write.kind.touch(id);
    const before = await stored(write.kind, id);
    const answer = await send(id, { 'If-Match': etag });
    expect(answer.status).toBe(412);
    expect(answer.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(answer.body).toMatchObject({ status: 412, code: 'PRECONDITION_FAILED', errors: [expect.objectContaining({ field: 'If-Match' })] });
    expect(await stored(write.kind, id)).toEqual(before);
  });

  it('refuses an If-Match this service never made (412), changing nothing', async () => {
    const id = await write.kind.create();
    const before = await stored(write.kind, id);
    expect((await send(id, { 'If-Match': '"not-an-etag"' })).status).toBe(412);
    expect(await stored(write.kind, id)).toEqual(before);
  });

  it('lets exactly one of 10 concurrent requests with one ETag through', async () => {
    const id = await write.kind.create();
    const etag = (await read(write.kind, id)).headers.get('etag')!;
    const answers = await Promise.all(Array.from({ length: 10 }, () => send(id, { 'If-Match': etag })));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    // The others are stale (412); after a DELETE the record is gone, which is a 404 when read first.
    const refused = write.method === 'DELETE' ? [412, 404] : [412];
    expect(statuses.filter((status) => refused.includes(status))).toHaveLength(9);
  });

  it('still runs without If-Match', async () => {
    const id = await write.kind.create();
    expect((await send(id, {})).status).toBe(200);
  });
});

it('a still-current ETag after a refused write keeps working', async () => {
  const id = await newMenu();
  const etag = (await read(kinds.menu, id)).headers.get('etag')!;
  expect((await app.rest('PATCH', `/restaurant/meal-menus/${id}/estimated-portions/5`, { token: admin.token, headers: { 'If-Match': '"1-0000000000000000"' } })).status).toBe(412);
  expect((await app.rest('PATCH', `/restaurant/meal-menus/${id}/estimated-portions/5`, { token: admin.token, headers: { 'If-Match': etag } })).status).toBe(200);
});

it('refuses a stale If-Match on revoking a key already revoked (412), changing nothing', async () => {
  const id = await newKey();
  const etag = (await read(kinds.apiKey, id)).headers.get('etag')!;
  expect((await app.rest('PATCH', `/api-keys/${id}/revoke`, { token: admin.token })).status).toBe(200);
  const before = await stored(kinds.apiKey, id);
  const answer = await app.rest('PATCH', `/api-keys/${id}/revoke`, { token: admin.token, headers: { 'If-Match': etag } });
  expect(answer.status).toBe(412);
  expect(await stored(kinds.apiKey, id)).toEqual(before);
});
