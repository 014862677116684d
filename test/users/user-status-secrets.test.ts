import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { callOperation, SURFACES, type Operation } from '../support/surfaces.js';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

/**
 * No secret of a user leaves through a disable, a refused sign-in of the
 * disabled account, or a delete: not in a log line (debug level, every line
 * the service writes), not in an audit record, not in any answer. The
 * secrets: the user's password, its hash, their access token and their API
 * key's secret (both surfaces).
 */

const lines: string[] = [];
const sink = new Writable({
  write(chunk, _encoding, done) {
    lines.push(...String(chunk).split('\n').filter(Boolean));
    done();
  },
});

const TENANT = 'tenant-status-secrets';
let app: TestApp;
let admin: TestUser;

beforeAll(async () => {
  app = await startTestApp({ logger: createLogger({ logLevel: 'debug' }, sink) });
  admin = await app.createUser({ tenantId: TENANT, roles: ['admin'] });
});
afterAll(() => app?.close());

const op = (rest: Operation['rest'], query: string, variables: Record<string, unknown>): Operation => ({ rest, graphql: { query, variables } });

describe('the life of a user leaves no secret behind', () => {
  it.each(SURFACES)('over %s: disable, sign-in refused, enable, delete', async (surface) => {
    const user = await app.createUser({ tenantId: TENANT, roles: ['member'] });
    const made = await app.rest('POST', '/api-keys', { token: user.token, body: { name: 'secret-bearing', scopes: ['menus:read'] } });
    expect(made.status).toBe(201);
    const keySecret = made.body.key as string;
    const hash = (await app.db.collection('users').findOne({ email: user.email }, { projection: { passwordHash: 1 } }))!.passwordHash as string;
    const before = lines.length;

    const answers = [];
    const asAdmin = { token: admin.token };
    const id = user.id;
    answers.push(await callOperation(app, surface, op({ method: 'PATCH', path: `/access-control/users/${id}/disable`, body: { reason: 'left' } }, 'mutation($id: ID!, $reason: String) { disableUser(id: $id, reason: $reason) { id status } }', { id, reason: 'left' }), asAdmin));
    const login = { email: user.email, password: user.password, tenantId: TENANT };
    answers.push(await callOperation(app, surface, op({ method: 'POST', path: '/auth/login', body: login }, 'mutation($email: String!, $password: String!, $tenantId: String) { login(email: $email, password: $password, tenantId: $tenantId) { accessToken } }', login), {}));
    answers.push(await callOperation(app, surface, op({ method: 'GET', path: '/auth/me' }, '{ me { id } }', {}), { token: user.token }));
    answers.push(await callOperation(app, surface, op({ method: 'GET', path: '/auth/me' }, '{ me { id } }', {}), { token: keySecret }));
    answers.push(await callOperation(app, surface, op({ method: 'PATCH', path: `/access-control/users/${id}/enable` }, 'mutation($id: ID!) { enableUser(id: $id) { id status } }', { id }), asAdmin));
    answers.push(await callOperation(app, surface, op({ method: 'DELETE', path: `/access-control/users/${id}` }, 'mutation($id: ID!) { deleteUser(id: $id) { id deletedAt revokedKeys } }', { id }), asAdmin));
    expect(answers.map((answer) => (answer.code ? answer.status : 200))).toEqual([200, 401, 401, 401, 200, 200]);
    // The request log lines are written when each response finishes.
    await new Promise((resolve) => setTimeout(resolve, 50));

    expect(lines.length - before).toBeGreaterThanOrEqual(answers.length);
    const audit = await app.db.collection('auditevents').find({ 'target.id': id }).toArray();
    expect(audit.map((record) => record.action).sort()).toEqual(['users.delete', 'users.disable', 'users.enable']);
    const everything = [lines.slice(before).join('\n'), JSON.stringify(audit), JSON.stringify(answers.map((answer) => answer.raw.body))].join('\n');
    for (const secret of [user.password, hash, user.token, user.token.split('.')[2], keySecret]) {
      expect(everything).not.toContain(secret);
    }
  });
});
