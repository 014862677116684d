import { beforeAll, describe, expect, it } from 'vitest';
import { RoleModel } from '../../src/users/index.js';
import type { TestUser } from '../support/test-app.js';
import { apiCase, callOperation, runCases, type Surface } from '../support/surfaces.js';
import { admin, app, caller, client, manager, member, nextCount, op, TENANT, useUsersApp } from './user-fixtures.js';

/** Roles (`roles`, `createRole` and their pages) over both surfaces. */

useUsersApp();

// ---------------------------------------------------------------- roles

runCases('roles', client, [
  apiCase({
    name: 'lists the built-in roles first, then the tenant custom roles',
    caller: () => admin,
    operation: () => op.roles({ limit: 100 }),
    expect: {
      status: 200,
      data: (page) => {
        expect(page.items.slice(0, 2).map((r: { id: string; builtIn: boolean }) => [r.id, r.builtIn])).toEqual([
          ['admin', true],
          ['member', true],
        ]);
        const custom = page.items.slice(2);
        expect(custom.every((r: { tenant_id: string; builtIn: boolean }) => r.tenant_id === TENANT && !r.builtIn)).toBe(true);
        expect(custom.map((r: { name: string }) => r.name)).toEqual(expect.arrayContaining(['user-manager', 'clerk', 'auditor']));
      },
    },
  }),
  apiCase({
    name: 'creates a custom role (201) with catalogue permissions the caller holds',
    arrange: () => ({ name: `reader-${nextCount()}`, permissions: ['menus:read', 'users:read'] }),
    caller: () => admin,
    operation: (body) => op.createRole(body),
    expect: { status: 201, data: (role, body) => expect(role).toMatchObject({ ...body, tenant_id: TENANT, builtIn: false }) },
  }),
  apiCase({
    name: 'refuses a permission outside the catalogue (400 naming permissions)',
    arrange: () => ({ name: `bad-${nextCount()}`, permissions: ['menus:read', 'everything:*'] }),
    caller: () => admin,
    operation: (body) => op.createRole(body),
    expect: { status: 400, fieldErrors: [{ field: 'permissions', rule: 'isIn' }] },
  }),
  apiCase({
    name: 'refuses a role granting what its creator lacks with 403',
    arrange: () => ({ name: `escalate-${nextCount()}`, permissions: ['api-keys:revoke'] }),
    caller: () => manager,
    operation: (body) => op.createRole(body),
    expect: { status: 403, code: 'FORBIDDEN', db: async (body) => expect(await RoleModel.countDocuments({ name: body.name })).toBe(0) },
  }),
  apiCase({
    name: 'refuses a duplicate role name in the tenant with 409',
    arrange: () => ({ name: 'clerk', permissions: ['users:read'] }),
    caller: () => admin,
    operation: (body) => op.createRole(body),
    expect: { status: 409, code: 'CONFLICT', fieldErrors: [{ field: 'name', rule: 'unique' }] },
  }),
  apiCase({
    name: 'refuses the name of a built-in role with 409',
    arrange: () => ({ name: 'admin', permissions: ['users:read'] }),
    caller: () => admin,
    operation: (body) => op.createRole(body),
    expect: { status: 409, code: 'CONFLICT' },
  }),
  apiCase({
    name: 'refuses the name of a built-in role in another letter case with 409',
    arrange: () => ({ name: 'Member', permissions: ['users:read'] }),
    caller: () => admin,
    operation: (body) => op.createRole(body),
    expect: { status: 409, code: 'CONFLICT', db: async () => expect(await RoleModel.countDocuments({ name: /^member$/i })).toBe(0) },
  }),
  ...['admin ', ' member', '  '].map((name) =>
    apiCase({
      name: `refuses a role name starting or ending with a space (${JSON.stringify(name)}): 400, nothing stored`,
      arrange: () => ({ name, permissions: ['users:read'] }),
      caller: () => admin,
      operation: (body) => op.createRole(body),
      expect: {
        status: 400,
        fieldErrors: [{ field: 'name', rule: 'matches' }],
        db: async () => expect(await RoleModel.countDocuments({ name: { $in: ['admin', 'member', name.trim()] } })).toBe(0),
      },
    }),
  ),
  apiCase({
    name: 'refuses a caller without roles:create with 403',
    arrange: () => ({ name: `member-made-${nextCount()}`, permissions: ['menus:read'] }),
    caller: () => member,
    operation: (body) => op.createRole(body),
    expect: { status: 403, code: 'FORBIDDEN' },
  }),
]);

describe('paging through roles', () => {
  const pagingTenant = 'tenant-role-pages';
  let reader: TestUser;
  let customIds: string[];
  beforeAll(async () => {
    reader = await app.createUser({ tenantId: pagingTenant, roles: ['admin'] });
    const made = [];
    for (const name of ['first', 'second', 'third']) made.push(await RoleModel.create({ name, tenant_id: pagingTenant, permissions: ['menus:read'] }));
    customIds = made.map((role) => String(role._id));
  });

  it.each((['rest', 'graphql'] as Surface[]).flatMap((surface) => [1, 2, 3, 4].map((limit) => [surface, limit] as const)))(
    'walks the built-in roles, then the custom ones, at most `limit` a page (%s, limit %i)',
    async (surface, limit) => {
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 10; page += 1) {
        const outcome = await callOperation(client(), surface, op.roles({ limit, ...(cursor ? { cursor } : {}) }), caller(reader));
        const data = outcome.data as { items: { id: string }[]; nextCursor: string | null };
        expect(data.items.length).toBeLessThanOrEqual(limit);
        seen.push(...data.items.map((role) => role.id));
        if (!data.nextCursor) break;
        cursor = data.nextCursor;
      }
      expect(seen).toEqual(['admin', 'member', ...customIds]);
    },
  );

  it('ends on the built-ins when a tenant has no custom role', async () => {
    const alone = await app.createUser({ tenantId: 'tenant-role-pages-empty', roles: ['admin'] });
    const outcome = await callOperation(client(), 'rest', op.roles({ limit: 2 }), caller(alone));
    expect(outcome.data).toMatchObject({ items: [{ id: 'admin' }, { id: 'member' }], nextCursor: null });
  });
});
