import { ObjectId } from 'mongodb';
import { expect } from 'vitest';
import { apiCase, runCases } from '../support/surfaces.js';
import {
  admin,
  app,
  auditorRoleId,
  caller,
  client,
  freshEmail,
  idTimes,
  manager,
  managerRoleId,
  member,
  op,
  OTHER_TENANT,
  platform,
  refusedDemotion,
  refusedTakeover,
  signInStatus,
  storedById,
  TENANT,
  tenantUser,
  unknownId,
  unstampedUser,
  updater,
  users,
  useUsersApp,
} from './user-fixtures.js';

/** Updating a user (`PATCH /access-control/users/:id`, `updateUser`): every rule and refusal over both surfaces, and sending back what a user holds. */

useUsersApp();

// ---------------------------------------------------------------- update

runCases('updating a user', client, [
  apiCase({
    name: 'updates a user stored without createdAt/updatedAt: 200, updatedAt as stored, createdAt the time of its id',
    arrange: unstampedUser,
    caller: () => admin,
    operation: ({ id }) => op.update(id, { bio: 'Imported.', updatedBy: admin.id }),
    expect: {
      status: 200,
      data: (user, { id }) => expect(user).toMatchObject({ bio: 'Imported.', createdAt: idTimes(id).createdAt }),
      db: async ({ id }, outcome) => {
        const record = await storedById(id);
        expect((record?.['updatedAt'] as Date).toISOString()).toBe((outcome.data as { updatedAt: string }).updatedAt);
      },
    },
  }),
  apiCase({
    name: 'changes only the fields given',
    arrange: () => tenantUser(),
    caller: () => admin,
    operation: ({ id }) => op.update(id, { lastName: 'Byron', bio: 'Poet', updatedBy: admin.id }),
    expect: {
      status: 200,
      data: (user, { before }) => expect(user).toMatchObject({ lastName: 'Byron', bio: 'Poet', firstName: before!.firstName, email: before!.email, updatedBy: admin.id }),
      db: async ({ id, before }) => expect(await storedById(id)).toMatchObject({ lastName: 'Byron', bio: 'Poet', email: before!.email, passwordHash: before!.passwordHash }),
    },
  }),
  apiCase({
    name: 'clears an optional field given as null',
    arrange: async () => {
      const target = await tenantUser();
      await users().updateOne({ _id: new ObjectId(target.id) }, { $set: { lastName: 'Byron', social: { twitter: 'https://twitter.com/x' } } });
      return target;
    },
    caller: () => admin,
    operation: ({ id }) => op.update(id, { lastName: null, social: null, updatedBy: admin.id }),
    expect: { status: 200, data: (user) => expect([user.lastName, user.social]).toEqual([null, null]) },
  }),
  apiCase({
    name: 'replaces the whole social object with the one sent (a link left out is gone)',
    arrange: async () => {
      const target = await tenantUser();
      await users().updateOne({ _id: new ObjectId(target.id) }, { $set: { social: { twitter: 'https://twitter.com/x' } } });
      return target;
    },
    caller: () => admin,
    operation: ({ id }) => op.update(id, { social: { instagram: 'https://instagram.com/x' }, updatedBy: admin.id }),
    expect: {
      status: 200,
      data: (user) => expect(user.social).toEqual({ twitter: null, instagram: 'https://instagram.com/x', linkedin: null }),
      db: async ({ id }) => expect((await storedById(id))?.social?.twitter ?? null).toBeNull(),
    },
  }),
  apiCase({
    name: 'refuses clearing a required field (firstName: null) and changes nothing',
    arrange: () => tenantUser(),
    caller: () => admin,
    operation: ({ id }) => op.update(id, { firstName: null, updatedBy: admin.id }),
    expect: {
      status: 400,
      fieldErrors: [{ field: 'firstName', rule: 'isDefined' }],
      db: async ({ id, before }) => expect(await storedById(id)).toEqual(before),
    },
  }),
  apiCase({
    name: 'applies every rule of 2.2 on update too',
    arrange: () => tenantUser(),
    caller: () => admin,
    operation: ({ id }) => op.update(id, { email: 'bad', password: 'short', mobile: 'x', updatedBy: admin.id }),
    expect: {
      status: 400,
      fieldErrors: [
        { field: 'email', rule: 'isEmail' },
        { field: 'password', rule: 'isAcceptablePassword' },
        { field: 'mobile', rule: 'matches' },
      ],
      db: async ({ id, before }) => expect(await storedById(id)).toEqual(before),
    },
  }),
  apiCase({
    name: 'requires updatedBy',
    arrange: () => tenantUser(),
    caller: () => admin,
    operation: ({ id }) => op.update(id, { bio: 'x' }),
    expect: { status: 400, db: async ({ id, before }) => expect(await storedById(id)).toEqual(before) },
  }),
  apiCase({
    name: "refuses an updatedBy that is someone else's id with 403",
    arrange: () => tenantUser(),
    caller: () => admin,
    operation: ({ id }) => op.update(id, { bio: 'x', updatedBy: member.id }),
    expect: { status: 403, code: 'FORBIDDEN', db: async ({ id, before }) => expect(await storedById(id)).toEqual(before) },
  }),
  apiCase({
    name: 'lets users edit their own profile without users:update',
    arrange: () => tenantUser({ roles: [] }),
    caller: ({ user }) => caller(user),
    operation: ({ id }) => op.update(id, { bio: 'My own words', updatedBy: id }),
    expect: { status: 200, data: (user) => expect(user.bio).toBe('My own words') },
  }),
  apiCase({
    name: 'never lets users change their own roles',
    arrange: () => tenantUser({ roles: ['admin'] }),
    caller: ({ user }) => caller(user),
    operation: ({ id }) => op.update(id, { roles: ['admin', 'member'], updatedBy: id }),
    expect: { status: 403, code: 'FORBIDDEN', db: async ({ id }) => expect((await storedById(id))?.roles).toEqual(['admin']) },
  }),
  apiCase({
    name: 'never lets users move themselves to another tenant',
    arrange: () => tenantUser({ roles: ['admin'] }),
    caller: ({ user }) => caller(user),
    operation: ({ id }) => op.update(id, { tenant_id: OTHER_TENANT, updatedBy: id }),
    expect: { status: 403, code: 'FORBIDDEN', db: async ({ id }) => expect((await storedById(id))?.tenant_id).toBe(TENANT) },
  }),
  apiCase({
    name: "refuses editing another user's profile without users:update",
    arrange: () => tenantUser(),
    caller: () => member,
    operation: ({ id }) => op.update(id, { bio: 'x', updatedBy: member.id }),
    expect: { status: 403, code: 'FORBIDDEN' },
  }),
  apiCase({
    name: 'changes roles for a holder of users:assign-roles',
    arrange: () => tenantUser({ roles: [] }),
    caller: () => admin,
    operation: ({ id }) => op.update(id, { roles: ['member', auditorRoleId], updatedBy: admin.id }),
    expect: { status: 200, data: (user) => expect(user.roles).toEqual(['member', auditorRoleId]) },
  }),
  apiCase({
    name: 'refuses a role escalation on update with 403',
    arrange: () => tenantUser({ roles: ['member'] }),
    caller: () => manager,
    operation: ({ id }) => op.update(id, { roles: ['admin'], updatedBy: manager.id }),
    expect: { status: 403, code: 'FORBIDDEN', db: async ({ id }) => expect((await storedById(id))?.roles).toEqual(['member']) },
  }),
  refusedDemotion("refuses taking some of an administrator's roles away without holding what they hold (403)", ['member']),
  refusedDemotion("refuses taking all of an administrator's roles away without holding what they hold (403)", []),
  apiCase({
    name: 'lets a holder of users:assign-roles change the roles of a user holding less',
    arrange: () => tenantUser({ roles: ['member'] }),
    caller: () => manager,
    operation: ({ id }) => op.update(id, { roles: [], updatedBy: manager.id }),
    expect: { status: 200, data: (user) => expect(user.roles).toEqual([]) },
  }),
  apiCase({
    name: 'lets a holder of users:assign-roles change the roles of a peer holding the same permissions',
    arrange: () => tenantUser({ roles: [managerRoleId] }),
    caller: () => manager,
    operation: ({ id }) => op.update(id, { roles: ['member'], updatedBy: manager.id }),
    expect: { status: 200, data: (user) => expect(user.roles).toEqual(['member']) },
  }),
  refusedTakeover("refuses setting an administrator's password without holding what it holds (403)", 'password', () => manager, () => ({ password: 'Hijack3d!' })),
  refusedTakeover("refuses setting an administrator's email without holding what it holds (403)", 'email', () => manager, () => ({ email: freshEmail('hijack') })),
  apiCase({
    name: "refuses a password and email takeover of a user with a custom role whose permissions the caller lacks, naming both fields",
    arrange: () => tenantUser({ roles: [auditorRoleId] }),
    caller: () => manager,
    operation: ({ id }) => op.update(id, { email: freshEmail('hijack'), password: 'Hijack3d!', updatedBy: manager.id }),
    expect: {
      status: 403,
      code: 'FORBIDDEN',
      db: async ({ id, before }, outcome) => {
        expect(outcome.message).toMatch(/^Changing the password and email of a user .*: 'api-keys:read' \(role auditor\)$/);
        expect(await storedById(id)).toEqual(before);
      },
    },
  }),
  apiCase({
    name: "lets a caller set the password and email of a peer holding the same permissions",
    arrange: () => tenantUser({ roles: [managerRoleId] }),
    caller: () => manager,
    operation: ({ id }) => op.update(id, { email: freshEmail('peer'), password: 'Peer-Passw0rd', updatedBy: manager.id }),
    expect: { status: 200, data: async (user) => expect(await signInStatus(user.email, 'Peer-Passw0rd')).toBe(200) },
  }),
  apiCase({
    name: "lets a caller set the password and email of a user holding less",
    arrange: () => tenantUser({ roles: ['member'] }),
    caller: () => manager,
    operation: ({ id }) => op.update(id, { email: freshEmail('lesser'), password: 'Less3r-Pass', updatedBy: manager.id }),
    expect: { status: 200, data: async (user) => expect(await signInStatus(user.email, 'Less3r-Pass')).toBe(200) },
  }),
  apiCase({
    name: "lets a caller edit other fields of an administrator, and send the administrator's unchanged email",
    arrange: () => tenantUser({ roles: ['admin'] }),
    caller: () => manager,
    operation: ({ user }) => op.update(user.id, { email: user.email, bio: 'Edited by a manager', updatedBy: manager.id }),
    expect: { status: 200, data: (user) => expect(user.bio).toBe('Edited by a manager') },
  }),
  apiCase({
    name: 'lets users without admin rights change their own password and email (proved with the current password)',
    arrange: () => tenantUser({ roles: [managerRoleId] }),
    caller: ({ user }) => caller(user),
    operation: ({ id, user }) => op.update(id, { email: freshEmail('own'), password: '0wn-Passw0rd', currentPassword: user.password, updatedBy: id }),
    expect: { status: 200, data: async (user) => expect(await signInStatus(user.email, '0wn-Passw0rd')).toBe(200) },
  }),
  apiCase({
    name: "lets a tenant administrator set another administrator's password",
    arrange: () => tenantUser({ roles: ['admin'] }),
    caller: () => admin,
    operation: ({ id }) => op.update(id, { password: 'Adm1n-Reset', updatedBy: admin.id }),
    expect: { status: 200, db: async ({ user }) => expect(await signInStatus(user.email, 'Adm1n-Reset')).toBe(200) },
  }),
  apiCase({
    name: "lets a platform administrator set a tenant administrator's password and email",
    arrange: () => tenantUser({ roles: ['admin'] }),
    caller: () => platform,
    operation: ({ id }) => op.update(id, { email: freshEmail('platform-set'), password: 'Pl4tform-Set', updatedBy: platform.id }),
    expect: { status: 200, data: async (user) => expect(await signInStatus(user.email, 'Pl4tform-Set')).toBe(200) },
  }),
  apiCase({
    name: "answers 404 for another tenant's user",
    arrange: () => tenantUser({ tenantId: OTHER_TENANT }),
    caller: () => admin,
    operation: ({ id }) => op.update(id, { bio: 'x', updatedBy: admin.id }),
    expect: { status: 404, code: 'NOT_FOUND', db: async ({ id, before }) => expect(await storedById(id)).toEqual(before) },
  }),
  apiCase({
    name: 'answers 404 for an unknown id and 400 for a malformed one',
    caller: () => admin,
    operation: () => op.update(unknownId(), { bio: 'x', updatedBy: admin.id }),
    expect: { status: 404, code: 'NOT_FOUND' },
  }),
  apiCase({
    name: 'refuses a malformed id (400 naming id)',
    caller: () => admin,
    operation: () => op.update('not-an-id', { bio: 'x', updatedBy: admin.id }),
    expect: { status: 400, fieldErrors: [{ field: 'id', rule: 'isMongoId' }] },
  }),
  apiCase({
    name: 'refuses an email taken in the tenant with 409',
    arrange: async () => ({ target: await tenantUser(), taken: await app.createUser({ tenantId: TENANT, email: freshEmail('taken') }) }),
    caller: () => admin,
    operation: ({ target, taken }) => op.update(target.id, { email: taken.email.toUpperCase(), updatedBy: admin.id }),
    expect: { status: 409, code: 'CONFLICT', fieldErrors: [{ field: 'email', rule: 'unique' }] },
  }),
  apiCase({
    name: 'refuses changing createdBy',
    arrange: () => tenantUser(),
    caller: () => admin,
    operation: ({ id }) => op.update(id, { createdBy: admin.id, updatedBy: admin.id }),
    expect: { status: 400, fieldErrors: [{ field: 'createdBy', rule: 'immutable' }] },
  }),
]);

runCases('sending back what a user holds', client, [
  apiCase({
    name: 'lets a user send back their own roles unchanged (no permission needed, nothing changes)',
    arrange: () => tenantUser({ roles: ['member'] }),
    caller: ({ user }) => caller(user),
    operation: ({ id }) => op.update(id, { roles: ['member'], firstName: 'Same-Roles', updatedBy: id }),
    expect: {
      status: 200,
      data: (user) => expect([user.roles, user.firstName]).toEqual([['member'], 'Same-Roles']),
      db: async ({ id }) => expect((await storedById(id))?.roles).toEqual(['member']),
    },
  }),
  apiCase({
    name: 'lets a user send back their whole record (roles, tenant_id, createdBy as stored)',
    arrange: async () => {
      const made = await tenantUser({ roles: ['member'] });
      return { ...made, stored: await storedById(made.id) };
    },
    caller: ({ user }) => caller(user),
    operation: ({ id, stored }) =>
      op.update(id, { id, email: stored!.email, firstName: stored!.firstName, roles: stored!.roles, tenant_id: stored!.tenant_id, updatedBy: id }),
    expect: { status: 200, data: (user, { id }) => expect([user.id, user.roles, user.tenant_id]).toEqual([id, ['member'], TENANT]) },
  }),
  apiCase({
    name: 'still refuses a user changing their own roles (403, nothing changes)',
    arrange: () => tenantUser({ roles: ['member'] }),
    caller: ({ user }) => caller(user),
    operation: ({ id }) => op.update(id, { roles: ['member', 'admin'], updatedBy: id }),
    expect: { status: 403, code: 'FORBIDDEN', db: async ({ id, before }) => expect(await storedById(id)).toEqual(before) },
  }),
  apiCase({
    name: "lets a holder of users:update without users:assign-roles send another user's roles back unchanged, in any order",
    arrange: async () => ({ target: await tenantUser({ roles: ['member', auditorRoleId] }), who: await updater() }),
    caller: ({ who }) => who,
    operation: ({ target, who }) => op.update(target.id, { roles: [auditorRoleId, 'member'], lastName: 'Kept', updatedBy: who.id }),
    expect: {
      status: 200,
      db: async ({ target }) => expect((await storedById(target.id))?.roles).toEqual(['member', auditorRoleId]),
    },
  }),
  apiCase({
    name: "lets a holder of users:update without users:assign-roles send another user's empty roles back",
    arrange: async () => ({ target: await tenantUser({ roles: [] }), who: await updater() }),
    caller: ({ who }) => who,
    operation: ({ target, who }) => op.update(target.id, { roles: [], updatedBy: who.id }),
    expect: { status: 200, data: (user) => expect(user.roles).toEqual([]) },
  }),
  apiCase({
    name: "still refuses a holder of users:update without users:assign-roles changing another user's roles (403, nothing changes)",
    arrange: async () => ({ target: await tenantUser({ roles: [] }), who: await updater() }),
    caller: ({ who }) => who,
    operation: ({ target, who }) => op.update(target.id, { roles: ['member'], updatedBy: who.id }),
    expect: { status: 403, code: 'FORBIDDEN', db: async ({ target }) => expect(await storedById(target.id)).toEqual(target.before) },
  }),
]);
