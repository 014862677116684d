import { ObjectId } from 'mongodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { RoleModel } from '../../src/users/index.js';
import { callOperation, SURFACES, type Operation } from '../support/surfaces.js';
import { app, caller, client, nextCount, TENANT, useUsersApp, type Who } from './user-fixtures.js';

/**
 * deleteRole against requests landing in between its steps: a role widened
 * after the caller was checked against it is not deleted (409 naming
 * permissions, as updateRole answers); a role that cannot be put back
 * because one of its name was created meanwhile is no 500 (the delete
 * stands, as for an assignment stored after it). Over both surfaces; the
 * requests in between are timed by wrapping the model's own reads.
 */

useUsersApp();

const remove = (id: string): Operation => ({
  rest: { method: 'DELETE', path: `/access-control/roles/${id}` },
  graphql: { query: 'mutation($id: ID!) { deleteRole(id: $id) { id name permissions } }', variables: { id } },
});

const roles = () => app.db.collection('roles');
const storedRole = (id: string) => roles().findOne({ _id: new ObjectId(id) });

async function freshRole(permissions: string[] = ['menus:read']) {
  const role = await RoleModel.create({ name: `race-${nextCount()}-${Date.now().toString(36)}`, tenant_id: TENANT, permissions });
  return { id: String(role._id), name: role.name };
}

/** roles:delete and menus, not users:update. */
let editor: Who;
beforeAll(async () => {
  const role = await RoleModel.create({ name: 'race-editor', tenant_id: TENANT, permissions: ['roles:read', 'roles:update', 'roles:delete', 'menus:read'] });
  editor = caller(await app.createUser({ tenantId: TENANT, roles: [String(role._id)] }));
});

/** Runs `during` once, right after the next `RoleModel.<method>(…).lean()` read resolves, then puts the method back. */
async function withInBetween<T>(method: 'findOne' | 'findOneAndDelete', during: () => Promise<unknown>, run: () => Promise<T>): Promise<T> {
  const original = (RoleModel[method] as (...args: unknown[]) => { lean(): Promise<unknown> }).bind(RoleModel);
  const wrapped = (...args: unknown[]) => {
    (RoleModel as unknown as Record<string, unknown>)[method] = original;
    return { lean: () => original(...args).lean().then(async (read) => (await during(), read)) };
  };
  (RoleModel as unknown as Record<string, unknown>)[method] = wrapped;
  try {
    return await run();
  } finally {
    (RoleModel as unknown as Record<string, unknown>)[method] = original;
  }
}

describe('deleteRole with a role widened between its check and its delete', () => {
  it.each(SURFACES)('is 409 naming permissions (concurrentChange) and keeps the widened role (%s)', async (surface) => {
    const role = await freshRole(['menus:read']);
    const widen = () => roles().updateOne({ _id: new ObjectId(role.id) }, { $set: { permissions: ['menus:read', 'users:update'] } });
    const outcome = await withInBetween('findOne', widen, () => callOperation(client(), surface, remove(role.id), editor));
    expect(outcome.status, JSON.stringify(outcome.raw.body)).toBe(409);
    expect(outcome.fieldErrors).toEqual([expect.objectContaining({ field: 'permissions', rule: 'concurrentChange' })]);
    expect(await storedRole(role.id)).toMatchObject({ permissions: ['menus:read', 'users:update'] });
  });
});

describe('deleteRole whose put-back meets a role of the same name created meanwhile', () => {
  it.each(SURFACES)('is no 500: the delete stands, the new role is untouched (%s)', async (surface) => {
    const role = await freshRole(['menus:read']);
    const late = await app.createUser({ tenantId: TENANT, roles: [] });
    let sameName: string | undefined;
    // Between the delete and its second count: a user is given the role, and a role of its name is created.
    const inBetween = async () => {
      await app.db.collection('users').updateOne({ _id: new ObjectId(late.id) }, { $set: { roles: [role.id] } });
      sameName = String((await RoleModel.create({ name: role.name, tenant_id: TENANT, permissions: ['menus:read'] }))._id);
    };
    const outcome = await withInBetween('findOneAndDelete', inBetween, () => callOperation(client(), surface, remove(role.id), editor));
    expect(outcome.status, JSON.stringify(outcome.raw.body)).toBe(200);
    expect(outcome.data).toMatchObject({ id: role.id, name: role.name });
    expect(await storedRole(role.id)).toBeNull();
    expect(await storedRole(sameName!)).toMatchObject({ name: role.name, permissions: ['menus:read'] });
  });
});
