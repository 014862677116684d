import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPLAYED_WITHOUT_SECRET } from '../../src/api-keys/index.js';
import { REPLAYED_WITHOUT_TICKET } from '../../src/users/index.js';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

/**
 * An `Idempotency-Key` keeps the answer of the create GraphQL actually runs
 * (the operation `operationName` names), in its replay form: a document that
 * also writes another create in an operation it does not run must not make
 * the service keep a ticket or an API key in clear (in the idempotency
 * record, and so in the replay). GraphQL only: a REST route runs one fixed
 * operation.
 */

let app: TestApp;
let admin: TestUser;
let member: TestUser;
const TENANT = 'tenant-idempotency-executed';
beforeAll(async () => {
  app = await startTestApp();
  admin = await app.createUser({ tenantId: TENANT, roles: ['admin'] });
  member = await app.createUser({ tenantId: TENANT, roles: ['member'] });
});
afterAll(() => app?.close());

let counter = 0;
const unique = () => `${Date.now().toString(36)}-${(counter += 1)}`;

/** `body` twice with one key: the first answer and the replay, and what the idempotency collection holds then. */
async function sentTwice(body: Record<string, unknown>) {
  const headers = { 'Idempotency-Key': `executed-${unique()}` };
  const first = await app.http('POST', '/graphql', { token: admin.token, body, headers });
  const replay = await app.http('POST', '/graphql', { token: admin.token, body, headers });
  const stored = JSON.stringify(await app.db.collection('idempotencykeys').find().toArray());
  return { first, replay, stored };
}

describe('Idempotency-Key with a document of several operations', () => {
  it('keeps no password ticket when the executed createPasswordTicket sits beside a createRole', async () => {
    const query = `
      mutation A { createRole(name: "r-${unique()}", permissions: ["menus:read"]) { id } }
      mutation B { createPasswordTicket(id: "${member.id}", ttlSeconds: 600) { ticket expiresAt } }`;
    const { first, replay, stored } = await sentTwice({ query, operationName: 'B' });
    const ticket = first.body.data?.createPasswordTicket?.ticket as string;
    expect(ticket, JSON.stringify(first.body)).toMatch(/^pt_/);
    expect(stored).not.toContain(ticket.slice(3));
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.data.createPasswordTicket).toMatchObject({ ticket: null, detail: REPLAYED_WITHOUT_TICKET });
  });

  it('keeps no API key secret when the executed createApiKey sits beside a createRole', async () => {
    const query = `
      mutation A { createRole(name: "r-${unique()}", permissions: ["menus:read"]) { id } }
      mutation B { createApiKey(name: "k-${unique()}", scopes: ["menus:read"]) { id key } }`;
    const { first, replay, stored } = await sentTwice({ query, operationName: 'B' });
    const key = first.body.data?.createApiKey?.key as string;
    expect(key, JSON.stringify(first.body)).toBeTruthy();
    expect(stored).not.toContain(key);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.data.createApiKey).toMatchObject({ key: null, detail: REPLAYED_WITHOUT_SECRET });
  });

  it('keeps the answer of a non-secret create run beside a secret one it does not run, as made', async () => {
    const name = `r-${unique()}`;
    const query = `
      mutation A { createRole(name: "${name}", permissions: ["menus:read"]) { id name } }
      mutation B { createPasswordTicket(id: "${member.id}") { ticket } }`;
    const { first, replay } = await sentTwice({ query, operationName: 'A' });
    expect(first.body.data.createRole.name).toBe(name);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
  });
});

describe('Idempotency-Key with the secret under an alias', () => {
  it('keeps no password ticket selected as `t: ticket`', async () => {
    const query = `mutation { createPasswordTicket(id: "${member.id}", ttlSeconds: 600) { t: ticket expiresAt } }`;
    const { first, replay, stored } = await sentTwice({ query });
    const ticket = first.body.data?.createPasswordTicket?.t as string;
    expect(ticket, JSON.stringify(first.body)).toMatch(/^pt_/);
    expect(stored).not.toContain(ticket.slice(3));
    expect(JSON.stringify(replay.body)).not.toContain(ticket.slice(3));
  });

  it('keeps no API key secret selected as `k: key`', async () => {
    const query = `mutation { createApiKey(name: "k-${unique()}", scopes: ["menus:read"]) { id k: key } }`;
    const { first, replay, stored } = await sentTwice({ query });
    const key = first.body.data?.createApiKey?.k as string;
    expect(key, JSON.stringify(first.body)).toBeTruthy();
    expect(stored).not.toContain(key);
    expect(JSON.stringify(replay.body)).not.toContain(key);
  });
});
