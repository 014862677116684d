import { ObjectId } from 'mongodb';
import { expect } from 'vitest';
import { ApiKeyModel } from '../../src/api-keys/index.js';
import { apiCase, runCases, type Operation } from '../support/surfaces.js';
import { admin, app, apiKeys, client, makeKey, member, otherMember, outsider, useApiKeysApp } from './api-key-fixtures.js';

/** `revokeApiKey(id, dryRun: true)` / `PATCH /api-keys/{id}/revoke?dryRun=true`: what a revoke would end, nothing changed. */

useApiKeysApp();

const dryRun = (id: string): Operation => ({
  rest: { method: 'PATCH', path: `/api-keys/${id}/revoke?dryRun=true` },
  graphql: {
    query: `mutation($id: ID!) { revokeApiKey(id: $id, dryRun: true) { _id status revokedAt wouldRevoke { id name status lastUsedAt } } }`,
    variables: { id },
  },
});

const madeWith = (child: string, parent: string) => ApiKeyModel.updateOne({ _id: child }, { $set: { createdByKey: parent } });

/** root -> (a -> a1 revoked -> a2), b; a2 is live below a revoked key (an interrupted revoke). */
async function family() {
  const [root, a, a1, a2, b] = [await makeKey(member), await makeKey(member), await makeKey(member), await makeKey(member), await makeKey(member)];
  await Promise.all([madeWith(a.id, root.id), madeWith(a1.id, a.id), madeWith(a2.id, a1.id), madeWith(b.id, root.id)]);
  await ApiKeyModel.updateOne({ _id: a1.id }, { $set: { revokedAt: new Date(), revokedBy: member.id } });
  const requestIds = await app.db.collection('auditevents').countDocuments({ 'target.id': root.id });
  return { root, a, a1, a2, b, auditedBefore: requestIds };
}

const liveIds = async (ids: string[]) =>
  (await apiKeys().find({ _id: { $in: ids.map((id) => new ObjectId(id)) }, revokedAt: null }).toArray()).map((key) => key._id.toHexString());

runCases('a dry run of revoking an API key', client, [
  apiCase({
    name: 'answers the key unchanged and every live key the revoke would end, and changes nothing (no audit record)',
    arrange: family,
    caller: () => member,
    operation: ({ root }) => dryRun(root.id),
    expect: {
      status: 200,
      data: (key, { root, a, a2, b }) => {
        expect(key).toMatchObject({ _id: root.id, status: 'active', revokedAt: null });
        expect(key.wouldRevoke.map((entry: { id: string }) => entry.id).sort()).toEqual([root.id, a.id, b.id, a2.id].sort());
        expect(key.wouldRevoke[0]).toEqual({ id: root.id, name: root.record.name, status: 'active', lastUsedAt: null });
      },
      db: async ({ root, a, a2, b, auditedBefore }) => {
        expect((await liveIds([root.id, a.id, a2.id, b.id])).sort()).toEqual([root.id, a.id, a2.id, b.id].sort());
        expect(await app.db.collection('auditevents').countDocuments({ 'target.id': root.id })).toBe(auditedBefore);
      },
    },
  }),
  apiCase({
    name: 'lets a holder of api-keys:revoke ask (an administrator)',
    arrange: family,
    caller: () => admin,
    operation: ({ root }) => dryRun(root.id),
    expect: { status: 200, data: (key) => expect(key.wouldRevoke).toHaveLength(4) },
  }),
  apiCase({
    name: 'refuses as revoking does: another member without api-keys:revoke (403)',
    arrange: family,
    caller: () => otherMember,
    operation: ({ root }) => dryRun(root.id),
    expect: { status: 403, code: 'FORBIDDEN' },
  }),
  apiCase({
    name: "answers 404 for another tenant's key",
    arrange: family,
    caller: () => outsider,
    operation: ({ root }) => dryRun(root.id),
    expect: { status: 404, code: 'NOT_FOUND' },
  }),
  apiCase({
    name: 'refuses a dryRun that is no boolean, naming the field',
    arrange: family,
    caller: () => member,
    operation: ({ root }) => ({
      rest: { method: 'PATCH', path: `/api-keys/${root.id}/revoke?dryRun=maybe` },
      graphql: { query: `mutation($id: ID!, $dryRun: Boolean) { revokeApiKey(id: $id, dryRun: $dryRun) { _id } }`, variables: { id: root.id, dryRun: 'maybe' } },
    }),
    expect: {
      status: 400,
      code: 'BAD_USER_INPUT',
      fieldErrors: [{ field: 'dryRun', rule: 'type' }],
      db: async ({ root }) => expect(await liveIds([root.id])).toEqual([root.id]),
    },
  }),
]);
