import { ObjectId } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { ApiKeyModel } from '../../src/api-keys/index.js';
import { LINEAGE_BOUNDS } from '../../src/api-keys/api-key.service.js';
import { apiCase, callOperation, runCases, type Operation } from '../support/surfaces.js';
import { admin, apiKeys, client, makeKey, member, otherMember, outsider, unknownId, useApiKeysApp, VIEW_REFUSAL } from './api-key-fixtures.js';

/** `apiKeyLineage(id)` / `GET /api-keys/{id}/lineage`: keys made by keys, as a tree, over both surfaces. */

useApiKeysApp();

const NODE = 'id name status lastUsedAt truncated';
const lineage = (id: string): Operation => ({
  rest: { method: 'GET', path: `/api-keys/${id}/lineage` },
  graphql: {
    query: `query($id: ID!) { apiKeyLineage(id: $id) { ${NODE} children } }`,
    variables: { id },
  },
});

/** `child` marked as made with `parent`'s credential (as a create called with that key records it). */
const madeWith = (child: string, parent: string) => ApiKeyModel.updateOne({ _id: child }, { $set: { createdByKey: parent } });

/** root -> (a -> a1 revoked), b */
async function family() {
  const [root, a, a1, b] = [await makeKey(member), await makeKey(member), await makeKey(member), await makeKey(member)];
  await Promise.all([madeWith(a.id, root.id), madeWith(a1.id, a.id), madeWith(b.id, root.id)]);
  await ApiKeyModel.updateOne({ _id: a1.id }, { $set: { revokedAt: new Date(), revokedBy: member.id } });
  return { root, a, a1, b };
}

runCases('the lineage of an API key', client, [
  apiCase({
    name: 'answers the key and the keys made with it, and theirs, as a tree with status and last use',
    arrange: family,
    caller: () => member,
    operation: ({ root }) => lineage(root.id),
    expect: {
      status: 200,
      data: (tree, { root, a, a1, b }) => {
        expect(tree).toMatchObject({ id: root.id, name: root.record.name, status: 'active', lastUsedAt: null, truncated: false });
        expect(tree.children[0]).toEqual({ id: a.id, name: a.record.name, status: 'active', lastUsedAt: null, children: expect.any(Array) });
        expect(tree.children.map((child: { id: string }) => child.id)).toEqual([a.id, b.id]);
        expect(tree.children[0].children).toEqual([expect.objectContaining({ id: a1.id, status: 'revoked', children: [] })]);
        expect(tree.children[1].children).toEqual([]);
      },
    },
  }),
  apiCase({
    name: 'lets a holder of api-keys:read read it (an administrator)',
    arrange: family,
    caller: () => admin,
    operation: ({ root }) => lineage(root.id),
    expect: { status: 200, data: (tree, { root }) => expect(tree.id).toBe(root.id) },
  }),
  apiCase({
    name: 'refuses another member of the tenant without api-keys:read (403)',
    arrange: family,
    caller: () => otherMember,
    operation: ({ root }) => lineage(root.id),
    expect: { status: 403, code: 'FORBIDDEN' },
  }),
  apiCase({
    name: "answers 404 for another tenant's key",
    arrange: family,
    caller: () => outsider,
    operation: ({ root }) => lineage(root.id),
    expect: { status: 404, code: 'NOT_FOUND' },
  }),
  apiCase({
    name: 'answers 404 for an unknown key',
    caller: () => member,
    operation: () => lineage(unknownId()),
    expect: { status: 404, code: 'NOT_FOUND' },
  }),
  apiCase({
    name: 'refuses a malformed id naming the field',
    caller: () => member,
    operation: () => lineage('nope'),
    expect: { status: 400, code: 'BAD_USER_INPUT', fieldErrors: [{ field: 'id', rule: 'isMongoId' }] },
  }),
]);

describe('the bounds of a lineage', () => {
  it(`stops ${LINEAGE_BOUNDS.maxDepth} levels below the key and says so (truncated)`, async () => {
    const root = await makeKey(member);
    let parent = root.id;
    const chain: string[] = [];
    for (let level = 0; level <= LINEAGE_BOUNDS.maxDepth; level += 1) {
      const made = await makeKey(member);
      await madeWith(made.id, parent);
      chain.push((parent = made.id));
    }
    const outcome = await callOperation(client(), 'rest', lineage(root.id), member);
    expect(outcome.status).toBe(200);
    const tree = outcome.data as any;
    let depth = 0;
    for (let node = tree; node.children.length > 0; node = node.children[0]) depth += 1;
    expect(depth).toBe(LINEAGE_BOUNDS.maxDepth);
    expect(tree.truncated).toBe(true);
  });

  it(`shows at most ${LINEAGE_BOUNDS.maxKeys} keys and says so (truncated)`, async () => {
    const root = await makeKey(member);
    const stored = await apiKeys().findOne({ _id: new ObjectId(root.id) });
    const { _id: _ignored, ...template } = stored!;
    await apiKeys().insertMany(
      Array.from({ length: LINEAGE_BOUNDS.maxKeys + 1 }, (_, n) => ({ ...template, keyId: `lineage${n}`, name: `child-${n}`, createdByKey: root.id, secrets: [] })),
    );
    const outcome = await callOperation(client(), 'graphql', lineage(root.id), member);
    expect(outcome.status).toBe(200);
    const tree = outcome.data as any;
    expect(tree.children).toHaveLength(LINEAGE_BOUNDS.maxKeys);
    expect(tree.truncated).toBe(true);
  });
});
