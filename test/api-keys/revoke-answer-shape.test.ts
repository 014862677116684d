import { describe, expect, it } from 'vitest';
import { apiCase, callOperation, runCases, type Operation, type Outcome } from '../support/surfaces.js';
import { KEY_FIELDS, USAGE_FIELDS, admin, app, client, makeKey, member, op, useApiKeysApp } from './api-key-fixtures.js';

/**
 * Where `wouldRevoke` lives: only in what revokeApiKey answers (its own type,
 * ApiKeyRevocation), and there over REST only with dryRun=true. Reads and
 * lists of keys never carry it, and a revoke answers what it answered before
 * it existed: every field of the key, the same values a read then answers.
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

describe('the GraphQL types of API keys', () => {
  it('a real revoke selecting wouldRevoke answers it null (the key is revoked)', async () => {
    const key = await makeKey(member);
    const response = await app.graphql('mutation($id: ID!) { revokeApiKey(id: $id) { _id status wouldRevoke { id } } }', { id: key.id }, { token: member.token });
    expect(response.body).toEqual({ data: { revokeApiKey: { _id: key.id, status: 'revoked', wouldRevoke: null } } });
  });

  it.each([
    ['a read', 'query($id: ID!) { apiKey(id: $id) { _id wouldRevoke { id } } }'],
    ['a list', 'query { apiKeys { items { _id wouldRevoke { id } } } }'],
  ])('%s cannot select wouldRevoke: ApiKey has no such field (400)', async (_name, query) => {
    const key = await makeKey(member);
    const response = await app.graphql(query, { id: key.id }, { token: member.token });
    expect([response.status, response.body.errors?.[0]?.extensions?.code]).toEqual([400, 'GRAPHQL_VALIDATION_FAILED']);
    expect(response.body.errors[0].message).toMatch(/wouldRevoke.*ApiKey/);
  });
});

describe('the OpenAPI document of revoking an API key', () => {
  it('describes ?dryRun=true as a query parameter and the answer as ApiKeyRevocation; ApiKey has no wouldRevoke', async () => {
    const document = (await app.http('GET', '/api/v1/openapi.json')).body;
    const revoke = document.paths['/api-keys/{id}/revoke'].patch;
    expect(revoke.parameters).toContainEqual(expect.objectContaining({ in: 'query', name: 'dryRun', required: false, schema: { type: 'boolean' } }));
    expect(revoke.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ApiKeyRevocation' });
    const schemas = document.components.schemas;
    expect(Object.keys(schemas.ApiKeyRevocation.properties).sort()).toEqual([...Object.keys(schemas.ApiKey.properties), 'wouldRevoke'].sort());
    expect(schemas.ApiKey.properties).not.toHaveProperty('wouldRevoke');
  });
});
