import type { DocumentType, ReturnModelType } from '@typegoose/typegoose';
import { trusted, Types } from 'mongoose';
import { tenantScope, type Actor } from '../auth/index.js';
import { findPage, type Page } from '../shared/pagination.js';
import type { AuditEventsArgs } from './audit-event.inputs.js';
import { AuditEvent, AuditEventModel } from './audit-event.model.js';

export type AuditEventDocument = DocumentType<AuditEvent>;

/** What the `Audited` middleware hands over; `_id` and `at` are the trail's own. */
export type NewAuditEvent = Omit<AuditEvent, 'id' | 'at'>;

/**
 * The audit trail: append a record, read pages of them. There is no method
 * that changes or removes one (and the model refuses it). Reads are confined
 * to the caller's tenant; a platform administrator reads every tenant's.
 */
export class AuditEventService {
  private readonly recording = new Set<Promise<void>>();

  constructor(private readonly model: ReturnModelType<typeof AuditEvent> = AuditEventModel) {}

  /**
   * Cast and validated by the model's schema (Model.validate), defaults
   * applied, then inserted through the driver: a full mongoose document for
   * a record that is never read back was about 7% of a write's CPU. Resolves
   * once the record is stored, so it can be read right after. Only an
   * insert, which the append-only rules allow.
   */
  record(event: NewAuditEvent): Promise<void> {
    const recording = this.validatedAndInserted(event);
    // Tracked from the call on, so that a drain also waits for records still being validated.
    this.recording.add(recording);
    return recording.finally(() => this.recording.delete(recording));
  }

  private async validatedAndInserted(event: NewAuditEvent): Promise<void> {
    const record = this.model.applyDefaults(await this.model.validate({ ...event, at: new Date() })) as Record<string, unknown>;
    await this.model.collection.insertOne({ _id: new Types.ObjectId(), ...record });
  }

  /** Waits for every record asked for so far to be written or refused (shutdown, before the database closes). */
  async drain(): Promise<void> {
    while (this.recording.size > 0) await Promise.allSettled([...this.recording]);
  }

  async list(actor: Actor, args: AuditEventsArgs): Promise<Page<AuditEventDocument>> {
    const at = {
      ...(args.from ? { $gte: args.from } : {}),
      ...(args.to ? { $lte: args.to } : {}),
    };
    const filter = {
      ...tenantScope(actor),
      ...(args.actor ? { 'actor.id': args.actor } : {}),
      ...(args.action ? { action: args.action } : {}),
      ...(args.target ? { 'target.id': args.target } : {}),
      ...(Object.keys(at).length > 0 ? { at: trusted(at) } : {}),
    };
    return findPage(this.model, filter, args, { order: 'desc' });
  }
}
