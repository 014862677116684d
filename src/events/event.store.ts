import type { DocumentType, ReturnModelType } from '@typegoose/typegoose';
import { trusted } from 'mongoose';
import type { TenantFilter } from '../auth/index.js';
import { findPage, type Page } from '../shared/index.js';
import type { EventsArgs } from './event.inputs.js';
import { EventModel, EventState, type ServiceEvent } from './event.model.js';

export type EventDocument = DocumentType<ServiceEvent>;

/** The reads of the event log: committed events only (a pending one is a call not known to have happened). */
export class EventRecords {
  constructor(private readonly model: ReturnModelType<typeof ServiceEvent> = EventModel) {}

  /** Newest first. */
  list(scope: TenantFilter, args: EventsArgs): Promise<Page<EventDocument>> {
    const occurredAt = {
      ...(args.from ? { $gte: args.from } : {}),
      ...(args.to ? { $lte: args.to } : {}),
    };
    const filter = {
      ...scope,
      state: EventState.committed,
      ...(args.type ? { type: args.type } : {}),
      ...(Object.keys(occurredAt).length > 0 ? { occurredAt: trusted(occurredAt) } : {}),
    };
    return findPage(this.model, filter, args, { order: 'desc' });
  }
}
