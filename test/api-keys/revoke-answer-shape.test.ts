import { describe, expect, it } from 'vitest';
import { apiCase, callOperation, runCases, type Operation, type Outcome } from '../support/surfaces.js';
import { KEY_FIELDS, USAGE_FIELDS, admin, app, client, makeKey, member, op, useApiKeysApp } from './api-key-fixtures.js';

/**
 * Where `wouldRevoke` lives: a field of ApiKey, so revokeApiKey keeps
 * answering ApiKey and every client selection of it (fragments on ApiKey
 * included) stays valid; filled only by a dry-run revoke, and over REST
 * answered only with dryRun=true. Reads and lists of keys never carry it over
 * REST (null when GraphQL selects it), and a revoke answers what it answered
 * before it existed: every field of the key, the same values a read then answers.
 */

useApiKeysApp();

/** The key as a read over the same surface answers it now. */
const readOf = async (id: string, { surface }: Outcome) => (await callOperation(client(), surface, op.get(id), member)).data;

/** Every field a read selects (op.get). */
const READ_FIELDS = `${KEY_FIELDS} usageLogs { ${USAGE_FIELDS} }`;

const revokeSelecting = (id: string, selection: string, dryRun?: boolean): Operation => ({
  rest: { method: 'PATCH', path: `/api-keys/${id}/revoke${dryRun === undefined ? '' : `?dryRun=${dryRun}`}` },
  graphql: {
    query: `mutation($id: ID!, $dryRun: Boolean) { revokeApiKey(id: $id, dryRun: $dryRun) { ${selection} } }`,
    variables: { id, ...(dryRun === undefined ? {} : { dryRun }) },
  },
});

runCases('the answer of revoking an API key', client, [
  apiCase({
    name: 'a real revoke answers every field of the key as a read then answers it, and no wouldRevoke',
    arrange: () => makeKey(member),
    caller: () => member,
    operation: (key) => revokeSelecting(key.id, READ_FIELDS),
    expect: {
      status: 200,
      data: async (answer, key, outcome) => {
        expect(answer).not.toHaveProperty('wouldRevoke');
        expect(answer).toMatchObject({ _id: key.id, status: 'revoked' });
        expect(answer).toEqual(await readOf(key.id, outcome));
      },
    },
  }),
  apiCase({
    name: 'dryRun=false is a real revoke, without wouldRevoke',
    arrange: () => makeKey(member),
    caller: () => member,
    operation: (key) => revokeSelecting(key.id, READ_FIELDS, false),
    expect: {
      status: 200,
      data: (answer) => {
        expect(answer).not.toHaveProperty('wouldRevoke');
        expect(answer.status).toBe('revoked');
      },
    },
  }),
  apiCase({
    name: 'a dry run answers the key unchanged, status computed as on a read, with wouldRevoke',
    arrange: () => makeKey(member),
    caller: () => member,
    operation: (key) => revokeSelecting(key.id, `${READ_FIELDS} wouldRevoke { id status }`, true),
    expect: {
      status: 200,
      data: async (answer, key, outcome) => {
        const { wouldRevoke, ...record } = answer;
        expect(wouldRevoke).toHaveLength(1);
        expect(wouldRevoke[0]).toMatchObject({ id: key.id, status: 'active' });
        expect(record).toEqual(await readOf(key.id, outcome));
      },
    },
  }),
]);

runCases('reads and lists of API keys', client, [
  apiCase({
    name: 'a read never carries wouldRevoke',
    arrange: () => makeKey(member),
    caller: () => member,
    operation: (key) => op.get(key.id),
    expect: { status: 200, data: (answer) => expect(answer).not.toHaveProperty('wouldRevoke') },
  }),
  apiCase({
    name: 'a list never carries wouldRevoke',
    arrange: () => makeKey(admin),
    caller: () => admin,
    operation: () => op.list(),
    expect: {
      status: 200,
      data: (page) => {
        expect(page.items.length).toBeGreaterThan(0);
        for (const item of page.items) expect(item).not.toHaveProperty('wouldRevoke');
      },
    },
  }),
]);

let lastKey = '';

describe('the GraphQL types of API keys', () => {
  it('a real revoke selecting wouldRevoke answers it null (the key is revoked)', async () => {
    const key = await makeKey(member);
    const response = await app.graphql('mutation($id: ID!) { revokeApiKey(id: $id) { _id status wouldRevoke { id } } }', { id: key.id }, { token: member.token });
    expect(response.body).toEqual({ data: { revokeApiKey: { _id: key.id, status: 'revoked', wouldRevoke: null } } });
  });

  it.each([
    ['a read', 'query($id: ID!) { apiKey(id: $id) { _id wouldRevoke { id } } }', (data: any) => data.apiKey],
    ['a list', 'query { apiKeys(limit: 100) { items { _id wouldRevoke { id } } } }', (data: any) => data.apiKeys.items.find((item: { _id: string }) => item._id === lastKey)],
  ])('%s selecting wouldRevoke answers it null: only a dry-run revoke fills it', async (_name, query, pick) => {
    const key = await makeKey(member);
    lastKey = key.id;
    const response = await app.graphql(query, { id: key.id }, { token: member.token });
    expect([response.status, pick(response.body.data)]).toEqual([200, { _id: key.id, wouldRevoke: null }]);
  });

  it('a fragment on ApiKey spreads in the revoke answer, as it did before the dry run existed', async () => {
    const key = await makeKey(member);
    const response = await app.graphql(
      'mutation($id: ID!, $dryRun: Boolean) { revokeApiKey(id: $id, dryRun: $dryRun) { ...Key wouldRevoke { id } } } fragment Key on ApiKey { _id status }',
      { id: key.id, dryRun: true },
      { token: member.token },
    );
    expect(response.body).toEqual({ data: { revokeApiKey: { _id: key.id, status: 'active', wouldRevoke: [{ id: key.id }] } } });
  });
});

describe('the OpenAPI document of revoking an API key', () => {
  it('describes ?dryRun=true as a query parameter, the answer as ApiKey, and wouldRevoke as the dry run\'s', async () => {
    const document = (await app.http('GET', '/api/v1/openapi.json')).body;
    const revoke = document.paths['/api-keys/{id}/revoke'].patch;
    expect(revoke.parameters).toContainEqual(expect.objectContaining({ in: 'query', name: 'dryRun', required: false, schema: { type: 'boolean' } }));
    expect(revoke.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ApiKey' });
    expect(JSON.stringify(document.components.schemas.ApiKey.properties.wouldRevoke)).toMatch(/dryRun/);
  });
});
