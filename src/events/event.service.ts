import { tenantScope, type Actor } from '../auth/index.js';
import type { Page } from '../shared/index.js';
import type { EventsArgs } from './event.inputs.js';
import type { EventDocument, EventRecords } from './event.store.js';

export type { EventDocument } from './event.store.js';

/** The event log as callers read it: their tenant's committed events (a platform administrator: every tenant's). */
export class EventService {
  constructor(private readonly events: EventRecords) {}

  list(actor: Actor, args: EventsArgs): Promise<Page<EventDocument>> {
    return this.events.list(tenantScope(actor), args);
  }
}
