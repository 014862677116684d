import type { Document } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { callOperation, type Caller, type Operation, type Surface } from '../support/surfaces.js';
import { app, client, freshName, makeKey, member, op, revokedKey, TENANT, useApiKeysApp } from './api-key-fixtures.js';

/** The audit records API key changes leave, over both surfaces. */

useApiKeysApp();

// ---------------------------------------------------------------- audit trail

describe('the audit records API key changes leave', () => {
  let seq = 0;
  async function call(surface: Surface, operation: Operation, who: Caller) {
    seq += 1;
    const requestId = `audit-api-keys-${surface}-${seq}`;
    const outcome = await callOperation(client(), surface, operation, { ...who, headers: { 'x-request-id': requestId } });
    return { outcome, records: await app.db.collection('auditevents').find({ requestId }).toArray() };
  }
  const summary = (records: Document[]) => records.map((r) => [r.action, r.target.type, r.target.id, r.tenant_id, r.actor.id, r.outcome]);

  describe.each(['rest', 'graphql'] as Surface[])('over %s', (surface) => {
    it('a create: one record naming the fields, never the secret', async () => {
      const { outcome, records } = await call(surface, op.create({ name: freshName('audited'), scopes: ['menus:read'], metadata: { x: 1 } }), member);
      const created = outcome.data as { _id: string; key: string };
      expect(summary(records)).toEqual([['api-keys.create', 'ApiKey', created._id, TENANT, member.id, 'success']]);
      // rateLimit was left out: it has no schema default (the service gives it), so it is no change named.
      expect([...records[0].changes].sort()).toEqual(['metadata', 'name', 'scopes']);
      expect(JSON.stringify(records)).not.toContain(created.key.slice(16));
    });

    it('a refused create: one failure record', async () => {
      const { records } = await call(surface, op.create({ name: freshName('audited'), scopes: ['menus:read'], rateLimit: 0 }), member);
      expect(summary(records)).toEqual([['api-keys.create', 'ApiKey', null, TENANT, member.id, 'failure']]);
    });

    it('a revoke: one record', async () => {
      const made = await makeKey(member);
      const { records } = await call(surface, op.revoke(made.id), member);
      expect(summary(records)).toEqual([['api-keys.revoke', 'ApiKey', made.id, TENANT, member.id, 'success']]);
    });

    it('a roll: one record, never the new secret', async () => {
      const made = await makeKey(member);
      const { outcome, records } = await call(surface, op.roll(made.id, 60), member);
      expect(summary(records)).toEqual([['api-keys.roll', 'ApiKey', made.id, TENANT, member.id, 'success']]);
      expect(records[0].changes).toEqual(['gracePeriodSeconds']);
      expect(JSON.stringify(records)).not.toContain((outcome.data as { key: string }).key.slice(16));
    });

    it('a refused roll (409): one failure record', async () => {
      const made = await revokedKey(member);
      const { records } = await call(surface, op.roll(made.id), member);
      expect(summary(records)).toEqual([['api-keys.roll', 'ApiKey', made.id, TENANT, member.id, 'failure']]);
    });
  });
});
