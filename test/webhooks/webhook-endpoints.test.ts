import { ObjectId } from 'mongodb';
import { expect, it } from 'vitest';
import { apiCase, runCases, type Operation } from '../support/surfaces.js';
import { makeWebhook, useWebhookApp, WEBHOOK_FIELDS } from './webhook-fixtures.js';

/**
 * Webhook endpoints (contract "Events and webhooks"): create (secret shown
 * once, sealed at rest), list, read, update, delete; webhooks:manage,
 * tenant-scoped; every bad input 400 naming each field and rule, nothing written.
 */
const world = useWebhookApp();
const client = () => world.app;
const stored = (id: string) => world.app.db.collection('webhooks').findOne({ _id: new ObjectId(id) });
const count = () => world.app.db.collection('webhooks').countDocuments();
const URL = 'http://127.0.0.1:9/hook';

const create = (body: Record<string, unknown>): Operation => ({
  rest: { method: 'POST', path: '/webhooks', body },
  graphql: {
    query: `mutation($url: String!, $events: [String!]!, $description: String) { createWebhook(url: $url, events: $events, description: $description) { ${WEBHOOK_FIELDS} secret } }`,
    variables: body,
  },
});
const read = (id: string): Operation => ({
  rest: { method: 'GET', path: `/webhooks/${id}` },
  graphql: { query: `query($id: ID!) { webhook(id: $id) { ${WEBHOOK_FIELDS} } }`, variables: { id } },
});
const list = (): Operation => ({
  rest: { method: 'GET', path: '/webhooks' },
  graphql: { query: `{ webhooks { items { ${WEBHOOK_FIELDS} } nextCursor } }` },
});
const update = (id: string, body: Record<string, unknown>): Operation => ({
  rest: { method: 'PATCH', path: `/webhooks/${id}`, body },
  graphql: {
    query: `mutation($id: ID!, $url: String, $events: [String!], $description: String, $enabled: Boolean) { updateWebhook(id: $id, url: $url, events: $events, description: $description, enabled: $enabled) { ${WEBHOOK_FIELDS} } }`,
    variables: { id, ...body },
  },
});
const remove = (id: string): Operation => ({
  rest: { method: 'DELETE', path: `/webhooks/${id}` },
  graphql: { query: `mutation($id: ID!) { deleteWebhook(id: $id) { id deleted } }`, variables: { id } },
});

const acmeHook = () => makeWebhook(world.app, world.admin, { url: URL, events: ['menus.create'], description: 'kitchen' });
const globexHook = () => makeWebhook(world.app, world.otherAdmin, { url: URL, events: ['*'] });
const withCount = async () => ({ before: await count() });

runCases('creating a webhook endpoint (POST /webhooks, createWebhook)', client, [
  apiCase({
    name: 'answers 201 with the endpoint and its whsec_ secret (32 random bytes), stored sealed, never in clear',
    caller: () => world.admin,
    operation: () => create({ url: URL, events: ['menus.create', 'api-keys.revoke'], description: 'kitchen' }),
    expect: {
      status: 201,
      data: async (hook) => {
        expect(hook).toMatchObject({ url: URL, events: ['menus.create', 'api-keys.revoke'], description: 'kitchen', enabled: true, tenant_id: 'acme', disabledReason: null });
        expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
        expect(Buffer.from(hook.secret.slice(6), 'base64')).toHaveLength(32);
        const record = await stored(hook.id);
        expect(JSON.stringify(record)).not.toContain(hook.secret.slice(6));
        expect(record!.secretSealed).toMatch(/^v1\./);
      },
    },
  }),
  apiCase({
    name: 'takes "*" alone for every type',
    caller: () => world.admin,
    operation: () => create({ url: 'https://hooks.example.com/x', events: ['*'] }),
    expect: { status: 201, data: (hook) => expect(hook.events).toEqual(['*']) },
  }),
  apiCase({
    name: 'refuses a relative or non-http url, an unknown event type and a long description, naming each, writing nothing',
    arrange: withCount,
    caller: () => world.admin,
    operation: () => create({ url: 'ftp://example.com/x', events: ['menus.create', 'menus.explode'], description: 'x'.repeat(501) }),
    expect: {
      status: 400,
      fieldErrors: [
        { field: 'url', rule: 'isUrl' },
        { field: 'events', rule: 'eventType' },
        { field: 'description', rule: 'maxLength' },
      ],
      db: async ({ before }) => expect(await count()).toBe(before),
    },
  }),
  apiCase({
    name: 'refuses "*" with other types, and an empty list',
    caller: () => world.admin,
    operation: () => create({ url: URL, events: ['*', 'menus.create'] }),
    expect: { status: 400, fieldErrors: [{ field: 'events', rule: 'eventType' }] },
  }),
  apiCase({
    name: 'refuses an empty list of events',
    caller: () => world.admin,
    operation: () => create({ url: URL, events: [] }),
    expect: { status: 400, fieldErrors: [{ field: 'events', rule: 'arrayMinSize' }] },
  }),
  apiCase({
    name: 'is 403 without webhooks:manage',
    arrange: withCount,
    caller: () => world.member,
    operation: () => create({ url: URL, events: ['*'] }),
    expect: { status: 403, db: async ({ before }) => expect(await count()).toBe(before) },
  }),
]);

runCases('reading webhook endpoints (GET /webhooks, /webhooks/{id})', client, [
  apiCase({
    name: 'reads its own tenant\'s endpoint, without any secret',
    arrange: acmeHook,
    caller: () => world.admin,
    operation: ({ id }) => read(id),
    expect: {
      status: 200,
      data: (hook, made) => {
        expect(hook).toMatchObject({ id: made.id, url: URL, tenant_id: 'acme' });
        expect(JSON.stringify(hook)).not.toMatch(/whsec_|secretSealed|v1\./);
      },
    },
  }),
  apiCase({ name: "another tenant's endpoint is 404", arrange: globexHook, caller: () => world.admin, operation: ({ id }) => read(id), expect: { status: 404 } }),
  apiCase({ name: 'a malformed id is 400', caller: () => world.admin, operation: () => read('nope'), expect: { status: 400, fieldErrors: [{ field: 'id', rule: 'isMongoId' }] } }),
  apiCase({ name: 'an unknown id is 404', caller: () => world.admin, operation: () => read(new ObjectId().toHexString()), expect: { status: 404 } }),
  apiCase({
    name: "lists its own tenant's only; a platform administrator sees every tenant's",
    arrange: async () => ({ mine: await acmeHook(), theirs: await globexHook() }),
    caller: () => world.admin,
    operation: () => list(),
    expect: {
      status: 200,
      data: async (page, { mine, theirs }) => {
        const ids = page.items.map((hook: { id: string }) => hook.id);
        expect(ids).toContain(mine.id);
        expect(ids).not.toContain(theirs.id);
        expect(page.items.every((hook: { tenant_id: string }) => hook.tenant_id === 'acme')).toBe(true);
        const all = await world.app.rest('GET', '/webhooks?limit=100', { token: world.platform.token });
        expect(all.body.items.map((hook: { id: string }) => hook.id)).toEqual(expect.arrayContaining([mine.id, theirs.id]));
      },
    },
  }),
]);

runCases('changing and deleting a webhook endpoint (PATCH / DELETE /webhooks/{id})', client, [
  apiCase({
    name: 'changes url, events and description',
    arrange: acmeHook,
    caller: () => world.admin,
    operation: ({ id }) => update(id, { url: 'http://127.0.0.1:10/h', events: ['*'], description: null }),
    expect: { status: 200, data: (hook) => expect(hook).toMatchObject({ url: 'http://127.0.0.1:10/h', events: ['*'], description: null }) },
  }),
  apiCase({
    name: 'pauses it (enabled false, with why and when) and resumes it (cleared)',
    arrange: acmeHook,
    caller: () => world.admin,
    operation: ({ id }) => update(id, { enabled: false }),
    expect: {
      status: 200,
      data: async (hook, { id }) => {
        expect(hook).toMatchObject({ enabled: false, disabledReason: 'disabled by updateWebhook' });
        const resumed = await world.app.rest('PATCH', `/webhooks/${id}`, { token: world.admin.token, body: { enabled: true } });
        expect(resumed.body).toMatchObject({ enabled: true, disabledReason: null, disabledAt: null });
      },
    },
  }),
  apiCase({
    name: 'refuses bad values naming each, and null for url, changing nothing',
    arrange: async () => {
      const hook = await acmeHook();
      return { ...hook, before: await stored(hook.id) };
    },
    caller: () => world.admin,
    operation: ({ id }) => update(id, { url: null, events: ['nope'], enabled: null }),
    expect: {
      status: 400,
      fieldErrors: [
        { field: 'url', rule: 'isDefined' },
        { field: 'events', rule: 'eventType' },
        { field: 'enabled', rule: 'isDefined' },
      ],
      db: async ({ id, before }) => expect(await stored(id)).toEqual(before),
    },
  }),
  apiCase({ name: "another tenant's endpoint is 404 (update)", arrange: globexHook, caller: () => world.admin, operation: ({ id }) => update(id, { description: 'x' }), expect: { status: 404 } }),
  apiCase({
    name: 'deletes it',
    arrange: acmeHook,
    caller: () => world.admin,
    operation: ({ id }) => remove(id),
    expect: { status: 200, data: (answer, { id }) => expect(answer).toEqual({ id, deleted: true }), db: async ({ id }) => expect(await stored(id)).toBeNull() },
  }),
  apiCase({
    name: "another tenant's endpoint is 404 (delete), and stays",
    arrange: globexHook,
    caller: () => world.admin,
    operation: ({ id }) => remove(id),
    expect: { status: 404, db: async ({ id }) => expect(await stored(id)).not.toBeNull() },
  }),
]);

it('an Idempotency-Key replay of createWebhook answers the endpoint with secret null and a detail saying to delete and create again', async () => {
  const headers = { 'idempotency-key': `hook-${Date.now()}` };
  const body = { url: URL, events: ['menus.create'] };
  const first = await world.app.rest('POST', '/webhooks', { token: world.admin.token, body, headers });
  const again = await world.app.rest('POST', '/webhooks', { token: world.admin.token, body, headers });
  expect(first.status).toBe(201);
  expect(first.body.secret).toMatch(/^whsec_/);
  expect(again.status).toBe(201);
  expect(again.body).toMatchObject({ id: first.body.id, secret: null });
  expect(JSON.stringify(again.body)).toMatch(/create it again/);
  expect(JSON.stringify(again.body)).not.toContain(first.body.secret);
});

it('holds at most 20 endpoints per tenant, also when creates race (400 url maxEndpoints)', async () => {
  const user = await world.app.createUser({ tenantId: 'limited' });
  const answers = await Promise.all(
    Array.from({ length: 26 }, () => world.app.rest('POST', '/webhooks', { token: user.token, body: { url: URL, events: ['*'] } })),
  );
  const refused = answers.filter((answer) => answer.status === 400);
  expect(refused.length).toBeGreaterThanOrEqual(6);
  for (const answer of refused) expect(answer.body.errors).toContainEqual(expect.objectContaining({ field: 'url', rule: 'maxEndpoints' }));
  expect(await world.app.db.collection('webhooks').countDocuments({ tenant_id: 'limited' })).toBeLessThanOrEqual(20);
  // Filled up to the limit, one more is refused on GraphQL too.
  while ((await world.app.db.collection('webhooks').countDocuments({ tenant_id: 'limited' })) < 20) {
    await world.app.rest('POST', '/webhooks', { token: user.token, body: { url: URL, events: ['*'] } });
  }
  const gql = await world.app.graphql('mutation { createWebhook(url: "http://127.0.0.1:9/", events: ["*"]) { id } }', {}, { token: user.token });
  expect(gql.body.errors[0].extensions.errors).toContainEqual(expect.objectContaining({ field: 'url', rule: 'maxEndpoints' }));
  expect(await world.app.db.collection('webhooks').countDocuments({ tenant_id: 'limited' })).toBe(20);
});
