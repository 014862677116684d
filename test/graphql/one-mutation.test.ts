import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';

/**
 * One mutation field per GraphQL request (src/graphql/one-mutation.rule.ts):
 * mutation fields run one after the other and a refusal answers `data: null`,
 * so a second field refused would hide the change the first one made.
 */
let app: TestApp;
let admin: TestUser;
let member: TestUser;
const TENANT = 'tenant-one-mutation';

beforeAll(async () => {
  app = await startTestApp();
  admin = await app.createUser({ tenantId: TENANT, roles: ['admin'] });
  member = await app.createUser({ tenantId: TENANT, roles: [] });
});
afterAll(() => app?.close());

const menu = (name: string) => `createMealMenu(name: "${name}", date: "2026-03-03", mealType: lunch) { id }`;
const menusNamed = (name: string) => app.db.collection('mealmenus').countDocuments({ name });
const signInStatus = async (user: TestUser, password: string) =>
  (await app.rest('POST', '/auth/login', { body: { email: user.email, password, tenantId: TENANT } })).status;

function expectRefused(response: { status: number; body: { data?: unknown; errors?: { message: string; extensions?: { code?: string } }[] } }, fields: string) {
  expect({ status: response.status, data: response.body.data, errors: response.body.errors?.map((error) => [error.extensions?.code, error.message]) }).toEqual({
    status: 400,
    data: undefined,
    errors: [['GRAPHQL_VALIDATION_FAILED', expect.stringContaining(`selects 2 mutation fields (${fields})`)]],
  });
}

describe('a mutation request selects one mutation field', () => {
  it('refuses two, before either runs: a refused second would otherwise hide the first one\'s change', async () => {
    const response = await app.graphql(
      `mutation { a: updateUser(id: "${member.id}", password: "Zz9-new-passw0rd", updatedBy: "${member.id}") { id }
        b: deleteMealMenu(id: "aaaaaaaaaaaaaaaaaaaaaaaa") { id } }`,
      undefined,
      { token: member.token },
    );
    expectRefused(response, 'updateUser, deleteMealMenu');
    expect([await signInStatus(member, member.password), await signInStatus(member, 'Zz9-new-passw0rd')]).toEqual([200, 401]);
  });

  it('counts the fields of fragments on the mutation type, and the same field twice', async () => {
    const spread = await app.graphql(
      `mutation { ...Both } fragment Both on Mutation { ${menu('spread-1')} b: ${menu('spread-2')} }`,
      undefined,
      { token: admin.token },
    );
    expectRefused(spread, 'createMealMenu, createMealMenu');
    const inline = await app.graphql(`mutation { ${menu('inline-1')} ... on Mutation { b: ${menu('inline-2')} } }`, undefined, { token: admin.token });
    expectRefused(inline, 'createMealMenu, createMealMenu');
    expect(await Promise.all(['spread-1', 'spread-2', 'inline-1', 'inline-2'].map(menusNamed))).toEqual([0, 0, 0, 0]);
  });

  it('runs one mutation field, with __typename beside it', async () => {
    const response = await app.graphql(`mutation { __typename ${menu('single')} }`, undefined, { token: admin.token });
    expect([response.status, response.body.errors, await menusNamed('single')]).toEqual([200, undefined, 1]);
  });

  it('leaves queries alone: several root fields read in one request', async () => {
    const response = await app.graphql('{ me { id } permissions mealMenus(limit: 1) { nextCursor } }', undefined, { token: admin.token });
    expect([response.status, response.body.errors, response.body.data?.me?.id]).toEqual([200, undefined, admin.id]);
  });
});
