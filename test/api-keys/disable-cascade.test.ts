import { describe, expect, it } from 'vitest';
import { callOperation, SURFACES, type Caller, type Operation, type Surface } from '../support/surfaces.js';
import { admin, app, client, KEY_FIELDS, makeKey, storedById, useApiKeysApp } from './api-key-fixtures.js';

/**
 * A disable reaches the keys a key made (contract "API keys: managing a key
 * through its life", with the revoke's rule that nothing a leaked key minted
 * outlives it): pausing a key pauses the keys made with its credential, and
 * theirs, so a child key can neither act nor switch its parent back on;
 * enabling the key resumes exactly the keys its disable paused.
 */

useApiKeysApp();

const disable = (id: string, reason?: string): Operation => ({
  rest: { method: 'PATCH', path: `/api-keys/${id}/disable`, body: reason === undefined ? undefined : { reason } },
  graphql: { query: `mutation($id: ID!, $reason: String) { disableApiKey(id: $id, reason: $reason) { ${KEY_FIELDS} disabledWith } }`, variables: { id, reason } },
});
const enable = (id: string): Operation => ({
  rest: { method: 'PATCH', path: `/api-keys/${id}/enable` },
  graphql: { query: `mutation($id: ID!) { enableApiKey(id: $id) { ${KEY_FIELDS} disabledWith } }`, variables: { id } },
});

const LINEAGE_SCOPES = ['api-keys:create', 'api-keys:revoke', 'menus:read'];

/** A key of the admin, a child made with its credential, and a grandchild made with the child's: each may revoke (and so disable, enable). */
async function family() {
  const parent = await makeKey(admin, { scopes: LINEAGE_SCOPES });
  const child = await makeKey({ token: parent.key }, { scopes: LINEAGE_SCOPES });
  const grandchild = await makeKey({ token: child.key }, { scopes: ['menus:read'] });
  return { parent, child, grandchild };
}

const menusWith = async (key: string) => {
  const answer = await app.rest('GET', '/restaurant/meal-menus?limit=1', { token: key });
  return answer.status === 200 ? 200 : `${answer.status} ${answer.body.detail}`;
};
const call = (surface: Surface, operation: Operation, caller: Caller) => callOperation(client(), surface, operation, caller);
const stored = async (id: string) => {
  const { disabledAt, disabledReason, disabledWith } = (await storedById(id))!;
  return { disabled: disabledAt !== null, disabledReason, disabledWith };
};

describe('disabling an API key pauses the keys it made', () => {
  for (const surface of SURFACES) {
    it(`a child can neither act nor enable its parent, and enabling the parent resumes both (${surface})`, async () => {
      const { parent, child, grandchild } = await family();
      const paused = await call(surface, disable(parent.id, 'suspected leak'), admin);
      expect(paused.status).toBe(200);
      expect(paused.data).toMatchObject({ status: 'disabled', disabledReason: 'suspected leak', disabledWith: null });
      expect(await stored(child.id)).toEqual({ disabled: true, disabledReason: 'suspected leak', disabledWith: parent.id });
      expect(await stored(grandchild.id)).toEqual({ disabled: true, disabledReason: 'suspected leak', disabledWith: parent.id });
      for (const key of [parent, child, grandchild]) expect(await menusWith(key.key)).toBe('401 API key disabled');

      // The child, holding api-keys:revoke, would otherwise switch its leaked parent back on.
      const byChild = await call(surface, enable(parent.id), { token: child.key });
      expect(byChild.status).toBe(401);
      expect((await stored(parent.id)).disabled).toBe(true);

      const resumed = await call(surface, enable(parent.id), admin);
      expect(resumed.status).toBe(200);
      expect(resumed.data).toMatchObject({ status: 'active', disabledAt: null, disabledReason: null, disabledWith: null });
      for (const key of [parent, child, grandchild]) expect(await menusWith(key.key)).toBe(200);
      expect(await stored(grandchild.id)).toEqual({ disabled: false, disabledReason: null, disabledWith: null });
    });

    it(`a key paused on its own stays paused when its parent is enabled, also one whose pause it made its own (${surface})`, async () => {
      const { parent, child, grandchild } = await family();
      expect((await call(surface, disable(grandchild.id, 'its own'), admin)).status).toBe(200);
      expect((await call(surface, disable(parent.id), admin)).status).toBe(200);
      // The grandchild kept its own pause; the child's pause came with the parent's until disabled itself.
      expect(await stored(grandchild.id)).toEqual({ disabled: true, disabledReason: 'its own', disabledWith: null });
      const own = await call(surface, disable(child.id, 'this one too'), admin);
      expect(own.data).toMatchObject({ status: 'disabled', disabledReason: 'this one too', disabledWith: null });

      expect((await call(surface, enable(parent.id), admin)).status).toBe(200);
      expect(await menusWith(parent.key)).toBe(200);
      expect(await menusWith(child.key)).toBe('401 API key disabled');
      expect(await menusWith(grandchild.key)).toBe('401 API key disabled');
    });
  }

  it('writes one audit record per key paused and per key resumed', async () => {
    const { parent, child, grandchild } = await family();
    const requestId = `cascade-${parent.id}`;
    await app.rest('PATCH', `/api-keys/${parent.id}/disable`, { token: admin.token, headers: { 'x-request-id': requestId } });
    await app.rest('PATCH', `/api-keys/${parent.id}/enable`, { token: admin.token, headers: { 'x-request-id': `${requestId}-on` } });
    const targets = async (id: string, action: string) =>
      (await app.db.collection('auditevents').find({ requestId: id, action, outcome: 'success' }).toArray()).map((record) => record.target.id).sort();
    const all = [parent.id, child.id, grandchild.id].sort();
    expect(await targets(requestId, 'api-keys.disable')).toEqual(all);
    expect(await targets(`${requestId}-on`, 'api-keys.enable')).toEqual(all);
  });
});

describe('enabling takes no dry run', () => {
  it('enableApiKey has no dryRun argument (400), and the key stays disabled', async () => {
    const key = await makeKey(admin);
    await app.rest('PATCH', `/api-keys/${key.id}/disable`, { token: admin.token });
    const response = await app.graphql('mutation($id: ID!) { enableApiKey(id: $id, dryRun: true) { status } }', { id: key.id }, { token: admin.token });
    expect([response.status, response.body.errors?.[0]?.extensions?.code]).toEqual([400, 'GRAPHQL_VALIDATION_FAILED']);
    const rest = await app.rest('PATCH', `/api-keys/${key.id}/enable?dryRun=true`, { token: admin.token });
    expect(rest.status).toBe(400);
    expect((await storedById(key.id))!.disabledAt).not.toBeNull();
    expect((await app.rest('GET', `/api-keys/${key.id}`, { token: admin.token })).body.status).toBe('disabled');
  });
});

