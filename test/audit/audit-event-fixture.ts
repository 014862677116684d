import { AuditActorType, AuditOutcome } from '../../src/audit/index.js';

/** One audit record as the `Audited` middleware hands it over (a menu created by a user), with overrides. */
export const auditEvent = (overrides: Record<string, unknown> = {}) => ({
  actor: { type: AuditActorType.user, id: '65f0c0ffee0000000000cafe' },
  tenant_id: 't1',
  action: 'menus.create',
  target: { type: 'MealMenu', id: '65f0c0ffee0000000000beef' },
  changes: ['name'],
  requestId: 'req-1',
  ip: '127.0.0.1',
  outcome: AuditOutcome.success,
  ...overrides,
});
