import type { Document } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { callOperation, type Caller, type Operation, type Surface } from '../support/surfaces.js';
import { admin, app, client, manager, op, TENANT, tenantUser, useUsersApp, validUser } from './user-fixtures.js';

/** The audit records users and roles changes leave, over both surfaces. */

useUsersApp();

// ---------------------------------------------------------------- audit trail

describe('the audit records users and roles changes leave', () => {
  let seq = 0;
  async function recordOf(requestId: string): Promise<Document[]> {
    return app.db.collection('auditevents').find({ requestId }).toArray();
  }
  async function call(surface: Surface, operation: Operation, who: Caller) {
    seq += 1;
    const requestId = `audit-users-${surface}-${seq}`;
    const outcome = await callOperation(client(), surface, operation, { ...who, headers: { 'x-request-id': requestId } });
    return { outcome, records: await recordOf(requestId) };
  }

  describe.each(['rest', 'graphql'] as Surface[])('over %s', (surface) => {
    it('a create: one success record naming the fields, never a value', async () => {
      const body = validUser(admin, { lastName: 'Lovelace' });
      const { outcome, records } = await call(surface, op.create(body), admin);
      expect(records).toHaveLength(1);
      expect(records[0]).toMatchObject({
        actor: { type: 'user', id: admin.id },
        tenant_id: TENANT,
        action: 'users.create',
        target: { type: 'User', id: (outcome.data as { id: string }).id },
        outcome: 'success',
      });
      expect(records[0].changes).toEqual(expect.arrayContaining(['email', 'password', 'firstName', 'lastName']));
      expect(JSON.stringify(records[0])).not.toMatch(/Str0ng-Pass|argon2|Lovelace/);
    });

    it('a role change: one record listing roles', async () => {
      const target = await tenantUser({ roles: [] });
      const { records } = await call(surface, op.update(target.id, { roles: ['member'], updatedBy: admin.id }), admin);
      expect(records.map((r) => [r.action, r.target.id, r.changes, r.outcome])).toEqual([['users.update', target.id, ['roles', 'updatedBy'], 'success']]);
    });

    it('a refused escalation: one failure record', async () => {
      const target = await tenantUser({ roles: ['member'] });
      const { outcome, records } = await call(surface, op.update(target.id, { roles: ['admin'], updatedBy: manager.id }), manager);
      expect([outcome.status, records.map((r) => [r.action, r.target.id, r.outcome])]).toEqual([403, [['users.update', target.id, 'failure']]]);
    });

    it('a refused removal of an administrator\'s roles: one failure record', async () => {
      const target = await tenantUser({ roles: ['admin'] });
      const { outcome, records } = await call(surface, op.update(target.id, { roles: [], updatedBy: manager.id }), manager);
      expect([outcome.status, records.map((r) => [r.action, r.target.id, r.outcome])]).toEqual([403, [['users.update', target.id, 'failure']]]);
    });

    it('a refused password takeover: one failure record, naming no value', async () => {
      const target = await tenantUser({ roles: ['admin'] });
      const { outcome, records } = await call(surface, op.update(target.id, { password: 'Hijack3d!', updatedBy: manager.id }), manager);
      expect([outcome.status, records.map((r) => [r.action, r.target.id, r.changes, r.outcome])]).toEqual([
        403,
        [['users.update', target.id, ['password', 'updatedBy'], 'failure']],
      ]);
      expect(JSON.stringify(records[0])).not.toContain('Hijack3d!');
    });

    it('a role creation: one record', async () => {
      const { outcome, records } = await call(surface, op.createRole({ name: `audited-${surface}-${seq}`, permissions: ['menus:read'] }), admin);
      expect(records.map((r) => [r.action, r.target.type, r.target.id, r.tenant_id, r.outcome])).toEqual([
        ['roles.create', 'Role', (outcome.data as { id: string }).id, TENANT, 'success'],
      ]);
    });
  });
});
