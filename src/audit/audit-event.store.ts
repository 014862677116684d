import type { DocumentType, ReturnModelType } from '@typegoose/typegoose';
import { trusted, Types } from 'mongoose';
import type { TenantFilter } from '../auth/index.js';
import { findPage, GroupWrite, leanDefaults, type Page, recordValidator } from '../shared/index.js';
import type { AuditEventsArgs } from './audit-event.inputs.js';
import { AuditEvent, AuditEventModel } from './audit-event.model.js';

export type AuditEventDocument = DocumentType<AuditEvent>;

/** What the `Audited` middleware hands over; `_id` and `at` are the trail's own. */
export type NewAuditEvent = Omit<AuditEvent, '_id' | 'id' | 'at'>;

/** A record as inserted. */
type StoredAuditEvent = NewAuditEvent & { _id: Types.ObjectId; at: Date };

/**
 * The reads and writes of the audit trail: inserts and pages, nothing that
 * changes or removes a record (the model refuses it too). The rules are
 * AuditEventService's.
 */
export class AuditEventRecords {
  /** The schema's rules for a whole record, as Model.validate applies them (path-validator.ts). */
  private readonly validate: (record: object) => Promise<void>;
  /** The schema's defaults (mongoose's applyDefaults, its plan made once). */
  private readonly withDefaults: (record: StoredAuditEvent) => StoredAuditEvent;
  /** The records of concurrent calls, one insert command per batch (group-write.ts). */
  private readonly inserts: GroupWrite<StoredAuditEvent>;

  constructor(private readonly model: ReturnModelType<typeof AuditEvent> = AuditEventModel) {
    this.validate = recordValidator(model);
    this.withDefaults = leanDefaults<StoredAuditEvent>(model.schema);
    this.inserts = new GroupWrite(() => this.model.collection as never);
  }

  /**
   * Validated by the model's schema rules, defaults applied, then inserted
   * through the driver: a full mongoose document for a record that is never
   * read back was about 7% of a write's CPU, Model.validate's walk and cast
   * of it about 4%. The values are the middleware's, already of their
   * paths' types (strings, null, an array of names, a Date). The records of
   * concurrent calls share one insert command (GroupWrite). Resolves once
   * the record is stored. Only an insert, which the append-only rules allow.
   */
  async insert(event: NewAuditEvent): Promise<void> {
    const record: StoredAuditEvent = { _id: new Types.ObjectId(), ...event, at: new Date() };
    await this.validate(record);
    await this.inserts.insert(this.withDefaults(record));
  }

  /** Newest first. */
  list(scope: TenantFilter, args: AuditEventsArgs): Promise<Page<AuditEventDocument>> {
    const at = {
      ...(args.from ? { $gte: args.from } : {}),
      ...(args.to ? { $lte: args.to } : {}),
    };
    const filter = {
      ...scope,
      ...(args.actor ? { 'actor.id': args.actor } : {}),
      ...(args.action ? { action: args.action } : {}),
      ...(args.target ? { 'target.id': args.target } : {}),
      ...(Object.keys(at).length > 0 ? { at: trusted(at) } : {}),
    };
    return findPage(this.model, filter, args, { order: 'desc' });
  }
}
