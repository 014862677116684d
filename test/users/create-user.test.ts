import { describe, expect, it } from 'vitest';
import { apiCase, callOperation, runCases } from '../support/surfaces.js';
import {
  admin,
  app,
  auditorRoleId,
  clerk,
  client,
  countByEmail,
  EVERY_OPTIONAL,
  freshEmail,
  manager,
  member,
  nobody,
  op,
  OTHER_TENANT,
  otherTenantRoleId,
  platform,
  refusedCreate,
  TENANT,
  tenantless,
  unknownId,
  users,
  useUsersApp,
  validUser,
} from './user-fixtures.js';

/** Creating a user (`POST /access-control/users`, `createUser`): every rule and refusal over both surfaces, and concurrent creates of one email. */

useUsersApp();

// ---------------------------------------------------------------- create

runCases('creating a user', client, [
  apiCase({
    name: 'answers 201 with the user, never the password or its hash, in the caller tenant',
    arrange: () => validUser(admin),
    caller: () => admin,
    operation: (body) => op.create(body),
    expect: {
      status: 201,
      data: (user, body) => {
        expect(user).toMatchObject({ email: body.email, firstName: 'Ada', tenant_id: TENANT, createdBy: admin.id, updatedBy: admin.id, roles: [], defaultColor: 'bg-blue-500', lastName: null });
        expect(JSON.stringify(user)).not.toMatch(/Str0ng-Pass|argon2|passwordHash|"password"/);
      },
      db: async (body) => {
        const stored = await users().findOne({ email: body.email });
        expect(stored?.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
        expect(stored?.passwordHash).not.toContain('Str0ng-Pass');
      },
    },
  }),
  apiCase({
    name: 'keeps every optional field of 2.2',
    arrange: () => validUser(admin, EVERY_OPTIONAL),
    caller: () => admin,
    operation: (body) => op.create(body),
    expect: { status: 201, data: (user) => expect(user).toMatchObject(EVERY_OPTIONAL) },
  }),
  refusedCreate('refuses an email that is no email address', { email: 'not-an-email' }, 'email', 'isEmail'),
  refusedCreate('refuses a password under 6 characters', { password: 'Ab1!' }, 'password', 'isAcceptablePassword'),
  refusedCreate('refuses a password over 50 characters (no silent truncation)', { password: `Aa1${'x'.repeat(48)}` }, 'password', 'isAcceptablePassword'),
  refusedCreate('refuses a password without an uppercase letter', { password: 'abcdef1!' }, 'password', 'isAcceptablePassword'),
  refusedCreate('refuses a password without a lowercase letter', { password: 'ABCDEF1!' }, 'password', 'isAcceptablePassword'),
  refusedCreate('refuses a password without a digit or non-word character', { password: 'Abcdefgh' }, 'password', 'isAcceptablePassword'),
  refusedCreate('refuses an empty firstName', { firstName: '' }, 'firstName', 'isLength'),
  refusedCreate('refuses an empty lastName', { lastName: '' }, 'lastName', 'isLength'),
  refusedCreate('refuses a profilePicture that is no http(s) URL', { profilePicture: 'ftp://files.example.test/a.png' }, 'profilePicture', 'isUrl'),
  refusedCreate('refuses a mobile of 6 digits', { mobile: '123456' }, 'mobile', 'matches'),
  refusedCreate('refuses a mobile of 16 digits', { mobile: '+1234567890123456' }, 'mobile', 'matches'),
  refusedCreate('refuses a mobile with separators', { mobile: '300-123-4567' }, 'mobile', 'matches'),
  refusedCreate('refuses an identificationType outside CC, CE, PA, TI, NIT', { identificationType: 'DNI' }, 'identificationType', 'type'),
  refusedCreate('refuses a social link that is no URL', { social: { twitter: 'not a url' } }, 'social.twitter', 'isUrl'),
  refusedCreate('refuses an unknown social key', { social: { myspace: 'https://myspace.example.test/ada' } }, 'social.myspace', 'unknown'),
  refusedCreate('refuses a createdBy that is no MongoId', { createdBy: 'me' }, 'createdBy', 'isMongoId'),
  refusedCreate('refuses an updatedBy that is no MongoId', { updatedBy: '12345' }, 'updatedBy', 'isMongoId'),
  refusedCreate('refuses a role id of the wrong shape', { roles: ['superuser'] }, 'roles', 'matches'),
  refusedCreate('refuses a defaultColor with spaces', { defaultColor: 'bg blue 500' }, 'defaultColor', 'matches'),
  apiCase({
    name: 'names every failing field at once',
    arrange: () => validUser(admin, { email: 'nope', firstName: '', mobile: '12' }),
    caller: () => admin,
    operation: (body) => op.create(body),
    expect: {
      status: 400,
      fieldErrors: [
        { field: 'email', rule: 'isEmail' },
        { field: 'firstName', rule: 'isLength' },
        { field: 'mobile', rule: 'matches' },
      ],
    },
  }),
  apiCase({
    name: 'refuses an unknown field',
    arrange: () => validUser(admin, { nickname: 'ada' }),
    caller: () => admin,
    operation: (body) => op.create(body),
    expect: { status: 400, db: async (body) => expect(await countByEmail(body.email)).toBe(0) },
  }),
  apiCase({
    name: 'refuses a missing required field',
    arrange: () => {
      const { updatedBy: _omitted, ...body } = validUser(admin);
      return body;
    },
    caller: () => admin,
    operation: (body) => op.create(body),
    expect: { status: 400, db: async (body) => expect(await countByEmail(body.email)).toBe(0) },
  }),
  apiCase({
    name: 'refuses an email taken in the tenant, in another letter case, with 409 naming email',
    arrange: async () => {
      const taken = await app.createUser({ tenantId: TENANT, email: freshEmail('Taken') });
      return validUser(admin, { email: taken.email.toUpperCase() });
    },
    caller: () => admin,
    operation: (body) => op.create(body),
    expect: { status: 409, code: 'CONFLICT', fieldErrors: [{ field: 'email', rule: 'unique' }] },
  }),
  apiCase({
    name: 'accepts an email that exists only in another tenant',
    arrange: async () => {
      const elsewhere = await app.createUser({ tenantId: OTHER_TENANT, email: freshEmail('twin') });
      return validUser(admin, { email: elsewhere.email });
    },
    caller: () => admin,
    operation: (body) => op.create(body),
    expect: { status: 201, data: (user) => expect(user.tenant_id).toBe(TENANT) },
  }),
  apiCase({
    name: "refuses a createdBy that is someone else's id with 403",
    arrange: () => validUser(admin, { createdBy: member.id }),
    caller: () => admin,
    operation: (body) => op.create(body),
    expect: { status: 403, code: 'FORBIDDEN', db: async (body) => expect(await countByEmail(body.email)).toBe(0) },
  }),
  apiCase({
    name: "refuses an updatedBy that is someone else's id with 403",
    arrange: () => validUser(admin, { updatedBy: unknownId() }),
    caller: () => admin,
    operation: (body) => op.create(body),
    expect: { status: 403, code: 'FORBIDDEN' },
  }),
  apiCase({
    name: 'makes a platform administrator name tenant_id (400)',
    arrange: () => validUser(platform),
    caller: () => platform,
    operation: (body) => op.create(body),
    expect: { status: 400, fieldErrors: [{ field: 'tenant_id', rule: 'required' }] },
  }),
  apiCase({
    name: 'lets a platform administrator create a user in the tenant it names',
    arrange: () => validUser(platform, { tenant_id: OTHER_TENANT, roles: ['admin'] }),
    caller: () => platform,
    operation: (body) => op.create(body),
    expect: { status: 201, data: (user) => expect([user.tenant_id, user.roles]).toEqual([OTHER_TENANT, ['admin']]) },
  }),
  apiCase({
    name: 'refuses a tenant administrator naming another tenant with 403',
    arrange: () => validUser(admin, { tenant_id: OTHER_TENANT }),
    caller: () => admin,
    operation: (body) => op.create(body),
    expect: { status: 403, code: 'FORBIDDEN' },
  }),
  apiCase({
    name: 'refuses a caller without users:create with 403',
    arrange: () => validUser(member),
    caller: () => member,
    operation: (body) => op.create(body),
    expect: { status: 403, code: 'FORBIDDEN' },
  }),
  apiCase({
    name: 'refuses a request without a credential with 401',
    arrange: () => validUser(admin),
    caller: () => nobody,
    operation: (body) => op.create(body),
    expect: { status: 401, code: 'UNAUTHENTICATED', headers: { 'www-authenticate': 'Bearer' } },
  }),
  apiCase({
    name: 'refuses roles from a caller without users:assign-roles with 403',
    arrange: () => validUser(clerk, { roles: ['member'] }),
    caller: () => clerk,
    operation: (body) => op.create(body),
    expect: { status: 403, code: 'FORBIDDEN', db: async (body) => expect(await countByEmail(body.email)).toBe(0) },
  }),
  apiCase({
    name: 'lets a caller without users:assign-roles create a user without roles',
    arrange: () => validUser(clerk),
    caller: () => clerk,
    operation: (body) => op.create(body),
    expect: { status: 201 },
  }),
  apiCase({
    name: 'refuses granting a role whose permissions the caller lacks (admin) with 403',
    arrange: () => validUser(manager, { roles: ['admin'] }),
    caller: () => manager,
    operation: (body) => op.create(body),
    expect: { status: 403, code: 'FORBIDDEN', db: async (body) => expect(await countByEmail(body.email)).toBe(0) },
  }),
  apiCase({
    name: 'refuses granting a custom role whose permissions the caller lacks with 403',
    arrange: () => validUser(manager, { roles: [auditorRoleId] }),
    caller: () => manager,
    operation: (body) => op.create(body),
    expect: { status: 403, code: 'FORBIDDEN' },
  }),
  apiCase({
    name: 'lets a caller grant a role whose permissions it holds',
    arrange: () => validUser(manager, { roles: ['member'] }),
    caller: () => manager,
    operation: (body) => op.create(body),
    expect: { status: 201, data: (user) => expect(user.roles).toEqual(['member']) },
  }),
  apiCase({
    name: "refuses a role of another tenant (400 naming roles)",
    arrange: () => validUser(admin, { roles: [otherTenantRoleId] }),
    caller: () => admin,
    operation: (body) => op.create(body),
    expect: { status: 400, fieldErrors: [{ field: 'roles', rule: 'exists' }] },
  }),
  apiCase({
    name: 'refuses a caller without a tenant who is no platform administrator',
    arrange: () => validUser(tenantless, { tenant_id: TENANT }),
    caller: () => tenantless,
    operation: (body) => op.create(body),
    expect: { status: 403, code: 'FORBIDDEN' },
  }),
]);

describe('one email, many concurrent creates', () => {
  it('lets exactly one of 20 concurrent creates of one email (in varied case, over both surfaces) win', async () => {
    const email = freshEmail('race');
    const attempts = Array.from({ length: 20 }, (_, i) => {
      const body = validUser(admin, { email: i % 2 ? email.toUpperCase() : email });
      return callOperation(client(), i % 3 ? 'rest' : 'graphql', op.create(body), admin);
    });
    const statuses = (await Promise.all(attempts)).map((outcome) => outcome.status);
    expect(statuses.filter((status) => status === 201 || status === 200).length).toBe(1);
    expect(statuses.filter((status) => status === 409).length).toBe(19);
    expect(await users().countDocuments({ tenant_id: TENANT, email: { $in: [email, email.toUpperCase()] } })).toBe(1);
  });
});
