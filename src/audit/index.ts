/**
 * The audit trail, a mechanism every area uses: the `Audited` middleware that
 * records each create, update, delete, revoke, roll and role change, the
 * append-only `AuditEvent` record, and its read-only query (`auditEvents`,
 * `GET /audit-events`). It imports no area.
 */
export { AppendOnlyViolation } from './append-only.plugin.js';
export { AuditEventsArgs } from './audit-event.inputs.js';
export {
  AUDIT_EVENT_COLLECTION,
  AuditActor,
  AuditActorType,
  AuditEvent,
  AuditEventModel,
  AuditOutcome,
  AuditTarget,
} from './audit-event.model.js';
export { AuditEventResolver } from './audit-event.resolver.js';
export { AuditEventService, type AuditEventDocument, type NewAuditEvent } from './audit-event.service.js';
export { AuditEventRecords } from './audit-event.store.js';
export { AuditEventPage } from './audit-event.types.js';
export { auditRestRoutes } from './audit.routes.js';
export { asEvent, auditActions, auditedTargetTypes, Audited, declareAuditAction, recordAuditEvent, reportAlsoChanged, withAuditTrail, type AuditedContext, type AuditedOptions } from './audited.middleware.js';
