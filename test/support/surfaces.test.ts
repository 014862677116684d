import { describe, expect, it } from 'vitest';
import { callOperation, rootFieldOf, type ApiClient, type Operation } from './surfaces.js';

const operation: Operation = {
  rest: { method: 'GET', path: '/things/1' },
  graphql: { query: 'query($id: ID!) { thing(id: $id) { id } }', variables: { id: '1' } },
};

/** A client that answers with canned responses and records what it was asked. */
function fakeClient(answer: { status: number; body: unknown }): ApiClient & { calls: unknown[][] } {
  const calls: unknown[][] = [];
  return {
    calls,
    rest: async (...args) => (calls.push(args), { ...answer, headers: new Headers() }),
    graphql: async (...args) => (calls.push(args), { ...answer, headers: new Headers() }),
  };
}

describe('the both-surfaces runner', () => {
  it('names the root field of a GraphQL document, preferring its alias', () => {
    expect(rootFieldOf('mutation { deleteMealMenu(id: "x") { id } }')).toBe('deleteMealMenu');
    expect(rootFieldOf('query { first: mealMenus { nextCursor } }')).toBe('first');
  });

  it('reads a REST problem as status, code and field errors', async () => {
    const client = fakeClient({
      status: 400,
      body: { code: 'BAD_USER_INPUT', detail: 'bad', errors: [{ field: 'id', rule: 'isMongoId', message: 'm' }] },
    });
    const outcome = await callOperation(client, 'rest', operation, { token: 't' });
    expect(outcome).toMatchObject({ status: 400, code: 'BAD_USER_INPUT', data: undefined });
    expect(outcome.fieldErrors).toEqual([{ field: 'id', rule: 'isMongoId', message: 'm' }]);
    expect(client.calls[0]).toEqual(['GET', '/things/1', { token: 't', headers: undefined }]);
  });

  it('reads a GraphQL error status from extensions.http.status, not the HTTP status', async () => {
    const client = fakeClient({
      status: 200,
      body: { data: null, errors: [{ message: 'nope', extensions: { code: 'NOT_FOUND', http: { status: 404 } } }] },
    });
    const outcome = await callOperation(client, 'graphql', operation);
    expect(outcome).toMatchObject({ status: 404, code: 'NOT_FOUND', message: 'nope' });
  });

  it('reads a GraphQL success as the data of the root field', async () => {
    const client = fakeClient({ status: 200, body: { data: { thing: { id: '1' } } } });
    const outcome = await callOperation(client, 'graphql', operation);
    expect(outcome).toMatchObject({ status: 200, code: undefined, data: { id: '1' } });
  });
});
