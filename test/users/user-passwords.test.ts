import { describe, expect, it } from 'vitest';
import { callOperation, type Surface } from '../support/surfaces.js';
import { admin, app, client, op, storedById, TENANT, tenantUser, users, useUsersApp, validUser } from './user-fixtures.js';

/** Passwords: a change ends older tokens, hashing holds up no other request, and no GraphQL request hashes twice. */

useUsersApp();

describe('a password change', () => {
  it.each(['rest', 'graphql'] as Surface[])('ends every token issued before it; tokens issued after it work (%s)', async (surface) => {
    const target = await tenantUser({ roles: ['member'] });
    const oldToken = target.user.token;
    const changed = await callOperation(client(), surface, op.update(target.id, { password: 'N3w-Passw0rd', updatedBy: admin.id }), admin);
    expect(changed.status).toBe(200);
    const withOld = await callOperation(client(), surface, op.get(target.id), { token: oldToken });
    expect([withOld.status, withOld.code]).toEqual([401, 'UNAUTHENTICATED']);
    const login = await app.rest('POST', '/auth/login', { body: { email: target.user.email, password: 'N3w-Passw0rd', tenantId: TENANT } });
    const withNew = await callOperation(client(), surface, op.get(target.id), { token: login.body.accessToken });
    expect(withNew.status).toBe(200);
    const stored = await storedById(target.id);
    expect(stored?.passwordHash).not.toBe(target.before?.passwordHash);
  });
});

describe('hashing a password', () => {
  it('does not hold up other requests while users are being created', async () => {
    const finished: string[] = [];
    const creates = Array.from({ length: 4 }, () =>
      app.rest('POST', '/access-control/users', { token: admin.token, body: validUser(admin) }).then(() => finished.push('create')),
    );
    const health = app.http('GET', '/healthz').then(() => finished.push('health'));
    await Promise.all([...creates, health]);
    expect(finished[0]).toBe('health');
  });
});

describe('operations that hash a password, aliased in one GraphQL request', () => {
  it('refuses two createUser selections and creates nobody', async () => {
    const [a, b] = [validUser(admin), validUser(admin)];
    const field = (alias: string, body: Record<string, unknown>) =>
      `${alias}: createUser(email: "${body.email}", password: "Str0ng-Pass", firstName: "A", createdBy: "${admin.id}", updatedBy: "${admin.id}") { id }`;
    const response = await app.graphql(`mutation { ${field('a', a)} ${field('b', b)} }`, undefined, { token: admin.token });
    expect([response.status, response.body.errors?.[0]?.extensions?.code]).toEqual([400, 'GRAPHQL_VALIDATION_FAILED']);
    expect(await users().countDocuments({ email: { $in: [a.email, b.email] } })).toBe(0);
  });

  it('refuses two updateUser selections', async () => {
    const target = await tenantUser();
    const field = (alias: string) => `${alias}: updateUser(id: "${target.id}", password: "N3w-Passw0rd", updatedBy: "${admin.id}") { id }`;
    const response = await app.graphql(`mutation { ${field('a')} ${field('b')} }`, undefined, { token: admin.token });
    expect([response.status, await storedById(target.id)]).toEqual([400, target.before]);
  });
});
