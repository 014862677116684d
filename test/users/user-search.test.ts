import { ObjectId } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserModel } from '../../src/users/index.js';
import { backfillSearchKeys, searchConditions, searchKeysOf } from '../../src/users/user-search.js';
import { apiCase, runCases, type Caller, type Operation } from '../support/surfaces.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * `users(search)` goes through the index of stored word prefixes
 * (src/users/user-search.ts): what it matches on both surfaces, that it
 * follows updates, that users stored without keys get them at start, and
 * that an unmatched search reads no document.
 */

let app: TestApp;
const TENANT = 'tenant-search';
let reader: Caller & { id: string };

function list(search: string): Operation {
  return {
    rest: { method: 'GET', path: `/access-control/users?${new URLSearchParams({ search, limit: '100' })}` },
    graphql: { query: 'query($search: String) { users(search: $search, limit: 100) { items { email } nextCursor } }', variables: { search } },
  };
}

/** A user record as stored, with the fields its search keys come from. */
interface StoredUser {
  email: string;
  firstName?: string;
  lastName?: string;
  searchKeys: string[];
}

const emails = (page: { items: Array<{ email: string }> }) => page.items.map((user) => user.email).sort();

beforeAll(async () => {
  app = await startTestApp();
  const admin = await app.createUser({ tenantId: TENANT, roles: ['admin'], email: 'root@search.example.test', firstName: 'Root' });
  reader = { token: admin.token, id: admin.id };
  await UserModel.create([
    { email: 'ada.lovelace@analytical.example.test', firstName: 'Ada', lastName: 'Lovelace', passwordHash: 'x', tenant_id: TENANT },
    { email: 'grace@navy.example.test', firstName: 'Grace', lastName: 'Hopper', passwordHash: 'x', tenant_id: TENANT },
    { email: 'kjell@extraordinarily.example.test', firstName: 'Kjell', lastName: 'Åström', passwordHash: 'x', tenant_id: TENANT },
    // Another tenant's Ada is never found.
    { email: 'ada@elsewhere.example.test', firstName: 'Ada', passwordHash: 'x', tenant_id: 'tenant-search-elsewhere' },
  ]);
});

afterAll(async () => {
  await app?.close();
});

runCases('users(search)', () => app, [
  apiCase({
    name: 'finds a word start of the email, first or last name, in any letter case',
    caller: () => reader,
    operation: () => list('LOVE'),
    expect: { status: 200, data: (page) => expect(emails(page)).toEqual(['ada.lovelace@analytical.example.test']) },
  }),
  apiCase({
    name: 'needs every word of the search, in any field',
    caller: () => reader,
    operation: () => list('grace hop'),
    expect: { status: 200, data: (page) => expect(emails(page)).toEqual(['grace@navy.example.test']) },
  }),
  apiCase({
    name: 'finds a whole email (its words)',
    caller: () => reader,
    operation: () => list('Grace@Navy.example.test'),
    expect: { status: 200, data: (page) => expect(emails(page)).toEqual(['grace@navy.example.test']) },
  }),
  apiCase({
    name: 'finds a word longer than the stored prefixes, and only its own',
    caller: () => reader,
    operation: () => list('extraordinarily'),
    expect: { status: 200, data: (page) => expect(emails(page)).toEqual(['kjell@extraordinarily.example.test']) },
  }),
  apiCase({
    name: 'does not take a longer word for one sharing its stored prefix',
    caller: () => reader,
    operation: () => list('extraordinarilx'),
    expect: { status: 200, data: (page) => expect(page).toEqual({ items: [], nextCursor: null }) },
  }),
  apiCase({
    name: 'reads letters beyond ASCII',
    caller: () => reader,
    operation: () => list('åstr'),
    expect: { status: 200, data: (page) => expect(emails(page)).toEqual(['kjell@extraordinarily.example.test']) },
  }),
  apiCase({
    name: 'does not match inside a word (the rule is word starts)',
    caller: () => reader,
    operation: () => list('velace'),
    expect: { status: 200, data: (page) => expect(page).toEqual({ items: [], nextCursor: null }) },
  }),
  apiCase({
    name: 'refuses a search without a letter or digit (400 naming search)',
    caller: () => reader,
    operation: () => list('@.-'),
    expect: { status: 400, fieldErrors: [{ field: 'search', rule: 'matches' }] },
  }),
]);

describe('search keys follow writes', () => {
  it('finds a user by a changed name and no longer by the old one, over both surfaces', async () => {
    const made = await app.createUser({ tenantId: TENANT, roles: ['member'], firstName: 'Zebulon' });
    const patched = await app.rest('PATCH', `/access-control/users/${made.id}`, {
      token: reader.token,
      body: { lastName: 'Quixote', updatedBy: reader.id },
    });
    expect(patched.status).toBe(200);
    const renamed = await app.graphql(
      'mutation($id: ID!, $by: String!) { updateUser(id: $id, firstName: "Yolanda", updatedBy: $by) { id } }',
      { id: made.id, by: reader.id },
      { token: reader.token },
    );
    expect(renamed.body.errors).toBeUndefined();
    const byNew = await app.rest('GET', '/access-control/users?search=yolanda%20quix', { token: reader.token });
    expect(byNew.body.items.map((user: { id: string }) => user.id)).toEqual([made.id]);
    const byOld = await app.graphql('{ users(search: "Zebulon") { items { id } } }', {}, { token: reader.token });
    expect(byOld.body.data.users.items).toEqual([]);
  });

  it('keeps the keys of the stored fields when an email change and a name change race (one over REST, one over GraphQL)', async () => {
    const made = await app.createUser({ tenantId: TENANT, roles: ['member'], firstName: 'Racer' });
    for (let round = 0; round < 12; round += 1) {
      await Promise.all([
        app.rest('PATCH', `/access-control/users/${made.id}`, {
          token: reader.token,
          body: { email: `racer.${round}@track${round}.example.test`, updatedBy: reader.id },
        }),
        app.graphql(
          'mutation($id: ID!, $name: String!, $by: String!) { updateUser(id: $id, lastName: $name, updatedBy: $by) { id } }',
          { id: made.id, name: `Lap${round}`, by: reader.id },
          { token: reader.token },
        ),
      ]);
      const stored = await app.db.collection<StoredUser>('users').findOne({ _id: new ObjectId(made.id) });
      expect([...stored!.searchKeys].sort(), `round ${round}`).toEqual(searchKeysOf(stored!).sort());
    }
    const found = await app.rest('GET', '/access-control/users?search=lap11%20track11', { token: reader.token });
    expect(found.body.items.map((user: { id: string }) => user.id)).toEqual([made.id]);
  });

  it('gives users stored without keys (imports) their keys at start, and then finds them', async () => {
    await app.db.collection('users').insertOne({ email: 'imported.person@legacy.example.test', firstName: 'Imported', tenant_id: TENANT, roles: [] });
    const before = await app.rest('GET', '/access-control/users?search=legacy', { token: reader.token });
    expect(before.body.items).toEqual([]);
    expect(await backfillSearchKeys(UserModel)).toBeGreaterThanOrEqual(1);
    const after = await app.graphql('{ users(search: "imported LEGACY") { items { email } } }', {}, { token: reader.token });
    expect(after.body.data.users.items).toEqual([{ email: 'imported.person@legacy.example.test' }]);
  });
});

describe('an unmatched search reads through the index', () => {
  it('examines no document, whatever the tenant holds', async () => {
    await app.db.collection('users').insertMany(
      Array.from({ length: 2000 }, (_, i) => ({ email: `bulk${i}@bulk.example.test`, firstName: 'Bulk', tenant_id: TENANT, roles: [] })),
    );
    await backfillSearchKeys(UserModel);
    // The filter UserService.list sends for a search, as findPage pages it.
    const filter = { tenant_id: TENANT, $and: searchConditions('nobodyhasthisname') };
    const explained = await app.db.collection('users').find(filter).sort({ _id: 1 }).limit(21).explain('executionStats');
    expect(JSON.stringify(explained.queryPlanner.winningPlan)).toContain('searchKeys_1_tenant_id_1');
    expect(explained.executionStats.totalDocsExamined).toBe(0);
  });
});

describe('the cost of filters that may read beyond their page', () => {
  const aliases = (count: number, args: string) =>
    `query${args.includes('$q') ? '($q: String)' : ''} { ${Array.from({ length: count }, (_, i) => `a${i}: users(${args}, limit: 1) { items { id } }`).join(' ')} }`;

  it.each([
    ['search', 'search: "nothingmatches"'],
    ['search given by a variable', 'search: $q'],
    ['createdAfter', 'createdAfter: "2000-01-01T00:00:00.000Z"'],
  ])('refuses 15 aliases of users(%s) before any runs (400)', async (_name, args) => {
    const response = await app.graphql(aliases(15, args), { q: 'nothingmatches' }, { token: reader.token });
    expect(response.status).toBe(400);
    expect(response.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(response.body.errors[0].message).toMatch(/costs \d+, over the limit of 5000/);
  });

  it('still answers 15 aliases of an unfiltered users page, and a few searches', async () => {
    const plain = await app.graphql(aliases(15, 'role: "admin"'), {}, { token: reader.token });
    expect(plain.status).toBe(200);
    const few = await app.graphql(aliases(3, 'search: $q'), { q: 'grace' }, { token: reader.token });
    expect(few.status).toBe(200);
    expect(few.body.data.a0.items).toHaveLength(1);
  });
});
