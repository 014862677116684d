import type { ReturnModelType } from '@typegoose/typegoose';
import { Types } from 'mongoose';
import { EventModel, EventState, type EventActor, type EventTarget, type ServiceEvent } from './event.model.js';

/** An event as its writer describes it; id, state and times are the log's. */
export interface NewEvent {
  type: string;
  tenant_id: string | null;
  actor: EventActor;
  target: EventTarget;
  data?: Record<string, unknown>;
  /** Set for an event that must happen once across instances: a second append with the same key is a no-op. */
  dedupeKey?: string;
}

export interface EventLogOptions {
  /** How long events are kept (EVENT_RETENTION), in seconds. */
  retentionSeconds: number;
  /** Called after an event is committed (the local tail reads at once). */
  onCommit?: () => void;
}

const DUPLICATE_KEY = 11000;

/**
 * The writer of the event outbox. `append` writes an event that is its own
 * change (a system event, a test event): committed at once.
 */
export class EventLog {
  constructor(
    private readonly options: EventLogOptions,
    private readonly model: ReturnModelType<typeof ServiceEvent> = EventModel,
  ) {}

  /** Writes a committed event; null when its dedupeKey was already used (it happened already). */
  async append(event: NewEvent): Promise<{ id: string } | null> {
    const now = new Date();
    const _id = new Types.ObjectId();
    try {
      await this.model.collection.insertOne({
        _id,
        type: event.type,
        tenant_id: event.tenant_id,
        occurredAt: now,
        actor: { type: event.actor.type, id: event.actor.id },
        target: { type: event.target.type, id: event.target.id },
        data: event.data ?? {},
        state: EventState.committed,
        committedAt: now,
        ...(event.dedupeKey === undefined ? {} : { dedupeKey: event.dedupeKey }),
        expireAt: new Date(now.getTime() + this.options.retentionSeconds * 1000),
      });
    } catch (err) {
      if ((err as { code?: unknown }).code === DUPLICATE_KEY && event.dedupeKey !== undefined) return null;
      throw err;
    }
    this.options.onCommit?.();
    return { id: _id.toHexString() };
  }
}
