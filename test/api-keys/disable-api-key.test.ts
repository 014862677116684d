import type { Document } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { apiCase, callOperation, runCases, SURFACES, type Caller, type Operation } from '../support/surfaces.js';
import {
  admin,
  app,
  client,
  exactMessage,
  expiredKey,
  KEY_FIELDS,
  makeKey,
  member,
  op,
  outsider,
  reader,
  revokedKey,
  revoker,
  storedById,
  TENANT,
  useApiKeysApp,
} from './api-key-fixtures.js';

/**
 * Pausing an API key (contract "API keys: managing a key through its life"):
 * disableApiKey / enableApiKey set status disabled / active, with
 * disabledAt and disabledReason; as revoking needs; disabling twice keeps
 * the first pause; a revoked or expired key cannot be enabled (409); a
 * revoked one cannot be disabled (409). Refusing a disabled key on use is
 * the credential path's (another change).
 */

useApiKeysApp();

const disable = (id: string, reason?: unknown): Operation => {
  const body = reason === undefined ? undefined : { reason };
  return {
    rest: { method: 'PATCH', path: `/api-keys/${id}/disable`, body },
    graphql: { query: `mutation($id: ID!, $reason: String) { disableApiKey(id: $id, reason: $reason) { ${KEY_FIELDS} } }`, variables: { id, ...body } },
  };
};
const enable = (id: string): Operation => ({
  rest: { method: 'PATCH', path: `/api-keys/${id}/enable` },
  graphql: { query: `mutation($id: ID!) { enableApiKey(id: $id) { ${KEY_FIELDS} } }`, variables: { id } },
});

async function withBefore<T extends { id: string }>(made: Promise<T>) {
  const key = await made;
  return { ...key, before: await storedById(key.id) };
}
const unchanged = async (fixture: { id: string; before: Document | null }) => expect(await storedById(fixture.id)).toEqual(fixture.before);

async function disabledKey(creator: Caller & { token?: string }, reason = 'suspected leak') {
  const made = await makeKey(creator);
  const answer = await app.rest('PATCH', `/api-keys/${made.id}/disable`, { token: creator.token, body: { reason } });
  if (answer.status !== 200) throw new Error(`disableApiKey answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return made;
}

runCases('disabling an API key (PATCH /api-keys/{id}/disable, disableApiKey)', client, [
  apiCase({
    name: 'lets its creator pause it: status disabled, disabledAt and the reason set',
    arrange: () => makeKey(member),
    caller: () => member,
    operation: ({ id }) => disable(id, 'suspected leak'),
    expect: {
      status: 200,
      data: (key, made) => {
        expect(key).toMatchObject({ _id: made.id, status: 'disabled', disabledReason: 'suspected leak', updatedBy: member.id, revokedAt: null });
        expect(Date.parse(key.disabledAt)).toBeLessThanOrEqual(Date.now());
      },
      db: async (made) => expect(await storedById(made.id)).toMatchObject({ disabledReason: 'suspected leak', disabledAt: expect.any(Date) }),
    },
  }),
  apiCase({
    name: 'takes no reason too (disabledReason null)',
    arrange: () => makeKey(member),
    caller: () => member,
    operation: ({ id }) => disable(id),
    expect: { status: 200, data: (key) => expect([key.status, key.disabledReason]).toEqual(['disabled', null]) },
  }),
  apiCase({
    name: 'lets a holder of api-keys:revoke pause a key someone else created',
    arrange: () => makeKey(member),
    caller: () => revoker,
    operation: ({ id }) => disable(id, 'paused'),
    expect: { status: 200, data: (key) => expect([key.status, key.updatedBy, key.createdBy]).toEqual(['disabled', revoker.id, member.id]) },
  }),
  apiCase({
    name: 'answers the same record when disabled again: the first disabledAt and reason stay',
    arrange: () => withBefore(disabledKey(member, 'first')),
    caller: () => admin,
    operation: ({ id }) => disable(id, 'second'),
    expect: {
      status: 200,
      data: (key, made) => expect([key.status, key.disabledAt, key.disabledReason]).toEqual(['disabled', made.before!.disabledAt.toISOString(), 'first']),
      db: unchanged,
    },
  }),
  apiCase({
    name: 'refuses a revoked key with 409, changing nothing',
    arrange: () => withBefore(revokedKey(member)),
    caller: () => member,
    operation: ({ id }) => disable(id, 'late'),
    expect: { status: 409, code: 'CONFLICT', fieldErrors: [{ field: 'status', rule: 'revoked' }], db: unchanged },
  }),
  apiCase({
    name: 'refuses anyone else of the tenant with 403, changing nothing',
    arrange: () => withBefore(makeKey(member)),
    caller: () => reader,
    operation: ({ id }) => disable(id, 'not mine'),
    expect: { status: 403, code: 'FORBIDDEN', data: exactMessage('You do not have permission to disable this API key'), db: unchanged },
  }),
  apiCase({
    name: "answers 404 for another tenant's key, changing nothing",
    arrange: () => withBefore(makeKey(member)),
    caller: () => outsider,
    operation: ({ id }) => disable(id, 'elsewhere'),
    expect: { status: 404, code: 'NOT_FOUND', db: unchanged },
  }),
  apiCase({
    name: 'refuses a reason over 500 characters with 400 naming reason, changing nothing',
    arrange: () => withBefore(makeKey(member)),
    caller: () => member,
    operation: ({ id }) => disable(id, 'x'.repeat(501)),
    expect: { status: 400, code: 'BAD_USER_INPUT', fieldErrors: [{ field: 'reason', rule: 'isLength' }], db: unchanged },
  }),
  apiCase({
    name: 'refuses an empty reason with 400 naming reason, changing nothing',
    arrange: () => withBefore(makeKey(member)),
    caller: () => member,
    operation: ({ id }) => disable(id, ''),
    expect: { status: 400, code: 'BAD_USER_INPUT', fieldErrors: [{ field: 'reason', rule: 'isLength' }], db: unchanged },
  }),
]);

runCases('enabling an API key (PATCH /api-keys/{id}/enable, enableApiKey)', client, [
  apiCase({
    name: 'ends the pause: status active, disabledAt and disabledReason cleared',
    arrange: () => disabledKey(member),
    caller: () => member,
    operation: ({ id }) => enable(id),
    expect: {
      status: 200,
      data: (key) => expect([key.status, key.disabledAt, key.disabledReason, key.updatedBy]).toEqual(['active', null, null, member.id]),
      db: async (made) => expect(await storedById(made.id)).toMatchObject({ disabledAt: null, disabledReason: null }),
    },
  }),
  apiCase({
    name: 'answers an enabled key unchanged',
    arrange: () => withBefore(makeKey(member)),
    caller: () => member,
    operation: ({ id }) => enable(id),
    expect: { status: 200, data: (key) => expect(key.status).toBe('active'), db: unchanged },
  }),
  apiCase({
    name: 'refuses a revoked key (disabled before its revoke) with 409, changing nothing',
    arrange: async () => {
      const made = await disabledKey(member);
      expect((await app.rest('PATCH', `/api-keys/${made.id}/revoke`, { token: member.token })).status).toBe(200);
      return { ...made, before: await storedById(made.id) };
    },
    caller: () => member,
    operation: ({ id }) => enable(id),
    expect: { status: 409, code: 'CONFLICT', fieldErrors: [{ field: 'status', rule: 'revoked' }], db: unchanged },
  }),
  apiCase({
    name: 'refuses an expired key with 409, changing nothing',
    arrange: () => withBefore(expiredKey(member)),
    caller: () => member,
    operation: ({ id }) => enable(id),
    expect: { status: 409, code: 'CONFLICT', fieldErrors: [{ field: 'status', rule: 'expired' }], db: unchanged },
  }),
  apiCase({
    name: 'refuses anyone else of the tenant with 403, changing nothing',
    arrange: () => withBefore(disabledKey(member)),
    caller: () => reader,
    operation: ({ id }) => enable(id),
    expect: { status: 403, code: 'FORBIDDEN', data: exactMessage('You do not have permission to enable this API key'), db: unchanged },
  }),
  apiCase({
    name: "answers 404 for another tenant's key, changing nothing",
    arrange: () => withBefore(disabledKey(member)),
    caller: () => outsider,
    operation: ({ id }) => enable(id),
    expect: { status: 404, code: 'NOT_FOUND', db: unchanged },
  }),
]);

describe('a paused key as read', () => {
  it.each(SURFACES)('over %s: reads disabled with its reason after disableApiKey, active with both fields cleared after enableApiKey', async (surface) => {
    const made = await makeKey(member);
    const call = (operation: Operation) => callOperation(client(), surface, operation, member);
    expect((await call(disable(made.id, 'rotation pending'))).status).toBe(200);
    expect((await call(op.get(made.id))).data).toMatchObject({ status: 'disabled', disabledReason: 'rotation pending', disabledAt: expect.any(String) });
    expect((await call(op.list({ status: 'disabled', limit: 100 }))).data).toMatchObject({ items: expect.arrayContaining([expect.objectContaining({ id: made.id })]) });
    expect((await call(enable(made.id))).status).toBe(200);
    expect((await call(op.get(made.id))).data).toMatchObject({ status: 'active', disabledReason: null, disabledAt: null });
  });

  it('reads disabled when only status is selected (the read fetches disabledAt for it)', async () => {
    const made = await disabledKey(member);
    const answer = await app.graphql(`query($id: ID!) { apiKey(id: $id) { status } }`, { id: made.id }, { token: member.token });
    expect(answer.body).toEqual({ data: { apiKey: { status: 'disabled' } } });
  });
});

describe('the audit records of a pause', () => {
  it.each(SURFACES)('over %s: api-keys.disable naming reason, then api-keys.enable', async (surface) => {
    const made = await makeKey(member);
    const recorded = async (operation: Operation, requestId: string) => {
      expect((await callOperation(client(), surface, operation, { token: member.token, headers: { 'x-request-id': requestId } })).status).toBe(200);
      return app.db.collection('auditevents').find({ requestId }).toArray();
    };
    const disabled = await recorded(disable(made.id, 'audited pause'), `disable-${surface}-${made.id}`);
    expect(disabled.map((r) => [r.action, r.target.id, r.tenant_id, r.actor.id, r.outcome, r.changes])).toEqual([
      ['api-keys.disable', made.id, TENANT, member.id, 'success', ['reason']],
    ]);
    expect(JSON.stringify(disabled)).not.toContain('audited pause');
    const enabled = await recorded(enable(made.id), `enable-${surface}-${made.id}`);
    expect(enabled.map((r) => [r.action, r.target.id, r.outcome, r.changes])).toEqual([['api-keys.enable', made.id, 'success', []]]);
  });
});
