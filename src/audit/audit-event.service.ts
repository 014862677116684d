import { tenantScope, type Actor } from '../auth/index.js';
import type { Page } from '../shared/index.js';
import type { AuditEventsArgs } from './audit-event.inputs.js';
import type { AuditEventDocument, AuditEventRecords, NewAuditEvent } from './audit-event.store.js';

export type { AuditEventDocument, NewAuditEvent } from './audit-event.store.js';

/**
 * The audit trail: append a record, read pages of them. There is no method
 * that changes or removes one. Reads are confined to the caller's tenant; a
 * platform administrator reads every tenant's. The composition root builds
 * one and gives it to the `Audited` middleware (through each request's
 * context) and to the resolver.
 */
export class AuditEventService {
  private readonly recording = new Set<Promise<void>>();

  constructor(private readonly events: AuditEventRecords) {}

  /** Resolves once the record is stored, so it can be read right after (audit-event.store.ts). */
  record(event: NewAuditEvent): Promise<void> {
    const recording = this.events.insert(event);
    // Tracked from the call on, so that a drain also waits for records still being validated.
    this.recording.add(recording);
    return recording.finally(() => this.recording.delete(recording));
  }

  /** Waits for every record asked for so far to be written or refused (shutdown, before the database closes). */
  async drain(): Promise<void> {
    // A queued record's insert goes out by itself (GroupWrite schedules it); its promise is in `recording`.
    while (this.recording.size > 0) await Promise.allSettled([...this.recording]);
  }

  list(actor: Actor, args: AuditEventsArgs): Promise<Page<AuditEventDocument>> {
    return this.events.list(tenantScope(actor), args);
  }
}
