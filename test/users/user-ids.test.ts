import { expect } from 'vitest';
import { apiCase, runCases } from '../support/surfaces.js';
import {
  admin,
  app,
  BAD_TENANT_IDS,
  caller,
  client,
  countByEmail,
  member,
  nextCount,
  op,
  platform,
  storedById,
  tenantUser,
  users,
  useUsersApp,
  validUser,
} from './user-fixtures.js';

/** Ids in any letter case, and the tenant ids the rule refuses, for users and roles over both surfaces. */

useUsersApp();

runCases('ids in any letter case', client, [
  apiCase({
    name: 'takes your own id in uppercase as createdBy and updatedBy, and stores it in lowercase',
    arrange: () => validUser(admin, { createdBy: admin.id.toUpperCase(), updatedBy: admin.id.toUpperCase() }),
    caller: () => admin,
    operation: (body) => op.create(body),
    expect: {
      status: 201,
      data: (user) => expect([user.createdBy, user.updatedBy]).toEqual([admin.id, admin.id]),
      db: async (body) => expect((await users().findOne({ email: body.email }))?.createdBy).toBe(admin.id),
    },
  }),
  apiCase({
    name: 'treats your own id in uppercase in the path as your own record (no users:update needed)',
    arrange: () => tenantUser({ roles: [] }),
    caller: ({ user }) => caller(user),
    operation: ({ id }) => op.update(id.toUpperCase(), { firstName: 'Upper', updatedBy: id.toUpperCase() }),
    expect: { status: 200, data: (user, { id }) => expect([user.firstName, user.updatedBy]).toEqual(['Upper', id]) },
  }),
  apiCase({
    name: 'refuses changing your own roles through your id in uppercase (403, nothing changes)',
    arrange: () => tenantUser({ roles: ['admin'] }),
    caller: ({ user }) => caller(user),
    operation: ({ id }) => op.update(id.toUpperCase(), { roles: [], updatedBy: id }),
    expect: { status: 403, code: 'FORBIDDEN', db: async ({ id, before }) => expect(await storedById(id)).toEqual(before) },
  }),
  apiCase({
    name: "still refuses someone else's id as createdBy (403, nothing stored)",
    arrange: () => validUser(admin, { createdBy: member.id.toUpperCase() }),
    caller: () => admin,
    operation: (body) => op.create(body),
    expect: { status: 403, code: 'FORBIDDEN', db: async (body) => expect(await countByEmail(body.email)).toBe(0) },
  }),
]);

runCases('tenant ids', client, [
  ...BAD_TENANT_IDS.map(([what, tenantId]) =>
    apiCase({
      name: `refuses a user in a tenant_id ${what} (400 naming tenant_id and the rule, nothing stored)`,
      arrange: () => validUser(platform, { tenant_id: tenantId }),
      caller: () => platform,
      operation: (body) => op.create(body),
      expect: {
        status: 400,
        code: 'BAD_USER_INPUT',
        fieldErrors: [{ field: 'tenant_id', rule: 'matches', message: 'tenant_id must be 1 to 100 lowercase letters (a-z), digits, -, _ or . (no spaces)' }],
        db: async (body) => expect(await countByEmail(body.email)).toBe(0),
      },
    }),
  ),
  ...BAD_TENANT_IDS.map(([what, tenantId]) =>
    apiCase({
      name: `refuses a role in a tenant_id ${what} (400 naming tenant_id, nothing stored)`,
      arrange: () => ({ name: `bad-tenant-${nextCount()}` }),
      caller: () => platform,
      operation: ({ name }) => op.createRole({ name, permissions: ['menus:read'], tenant_id: tenantId }),
      expect: {
        status: 400,
        code: 'BAD_USER_INPUT',
        fieldErrors: [{ field: 'tenant_id', rule: 'matches' }],
        db: async ({ name }) => expect(await app.db.collection('roles').countDocuments({ name })).toBe(0),
      },
    }),
  ),
  apiCase({
    name: 'takes a tenant_id of lowercase letters, digits, -, _ and .',
    arrange: () => validUser(platform, { tenant_id: 'acme_2.eu-west' }),
    caller: () => platform,
    operation: (body) => op.create(body),
    expect: { status: 201, data: (user) => expect(user.tenant_id).toBe('acme_2.eu-west') },
  }),
]);
