import type { ReturnModelType } from '@typegoose/typegoose';
import { Types } from 'mongoose';
import { EventModel, EventState, type ServiceEvent } from './event.model.js';
import { committedFields, DATABASE_NOW, writeCascadeEvents } from './event-log.js';
import { EVENT_IDS_FIELD, type EvidenceCollection } from './event-stamp.js';

export type { EvidenceCollection } from './event-stamp.js';

export interface EventReconcilerOptions {
  /** The stamped collections by the GraphQL type of their records (a target type), and those only stamped (`''`-less extras). */
  records: Readonly<Record<string, EvidenceCollection>>;
  /** Stamped collections whose records are no event target (a password ticket of a User event). */
  alsoStamped?: readonly EvidenceCollection[];
  /** A pending event younger than this is a call still under way (EVENT_PENDING_GRACE). */
  graceMs: number;
  /** How often the stale pending events are looked for. */
  intervalMs: number;
  /** How long a claim keeps other instances off an event. */
  leaseMs?: number;
  onCommit?: () => void;
  onError?: (err: unknown) => void;
  /** Told after a sweep that settled something (the log says how many of each). */
  onSettled?: (counts: Record<Settlement, number>) => void;
}

/** How a stale pending event was settled. */
export type Settlement = 'committed' | 'removed' | 'lost-claim';

type StoredEvent = Record<string, unknown> & { _id: Types.ObjectId; target: { type: string; id: string | null }; tenant_id: string | null };

/**
 * Settles the pending events of calls that did not (a crash between the
 * pending write and its commit or removal). Runs on every instance; each
 * claims a stale event with a lease in the database, so two instances never
 * settle the same one. The evidence decides (docs/events.md "The event model"):
 * - records stamped with the event id: the change happened; committed, one event per stamped record of its target type;
 * - none, the call was a hard delete (`removesTarget`, which leaves nothing to stamp) and its named record is gone: committed;
 * - otherwise the call changed nothing: removed.
 */
export class EventReconciler {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private readonly leaseMs: number;

  constructor(
    private readonly options: EventReconcilerOptions,
    private readonly model: ReturnModelType<typeof ServiceEvent> = EventModel,
  ) {
    this.leaseMs = options.leaseMs ?? 60_000;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.sweep(), this.options.intervalMs);
    this.timer.unref();
  }

  /** Stops looking and waits for a sweep under way (shutdown, before the database closes). */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Settles every stale pending event there is now; answers how each went. */
  async reconcile(now = new Date()): Promise<Settlement[]> {
    const settled: Settlement[] = [];
    for (;;) {
      const event = await this.claim(now);
      if (!event) return settled;
      settled.push(await this.settle(event));
    }
  }

  private sweep(): Promise<void> {
    this.running ??= this.reconcile()
      .then((settled) => {
        if (settled.length === 0) return;
        const counts: Record<Settlement, number> = { committed: 0, removed: 0, 'lost-claim': 0 };
        for (const one of settled) counts[one] += 1;
        this.options.onSettled?.(counts);
      })
      // The database is away: logged, and the next interval tries again.
      .catch((err: unknown) => this.options.onError?.(err))
      .finally(() => (this.running = null));
    return this.running;
  }

  private async claim(now: Date): Promise<StoredEvent | null> {
    // Stale by the database's clock ($$NOW), not this instance's: an instance whose clock runs ahead would
    // otherwise take the events of calls still running on the others.
    const stale = { $expr: { $lt: ['$occurredAt', { $subtract: ['$$NOW', this.options.graceMs] }] } };
    return (await this.model.collection.findOneAndUpdate(
      { state: EventState.pending, ...stale, $or: [{ leaseUntil: { $exists: false } }, { leaseUntil: { $lt: now } }] },
      { $set: { leaseUntil: new Date(now.getTime() + this.leaseMs) } },
      { returnDocument: 'after', sort: { _id: 1 } },
    )) as StoredEvent | null;
  }

  private async settle(event: StoredEvent): Promise<Settlement> {
    const ours = { _id: event._id, state: EventState.pending, leaseUntil: event['leaseUntil'] };
    const stamped = await this.stampedRecords(event);
    if (stamped.length === 0 && !(await this.namedRecordIsGone(event))) {
      const { deletedCount } = await this.model.collection.deleteOne(ours);
      return deletedCount === 1 ? 'removed' : 'lost-claim';
    }
    const named = event.target.id;
    const ids = stamped.map((record) => String(record['_id']));
    const primary = named ?? ids[0] ?? null;
    const tenant = event.tenant_id ?? (stamped.find((record) => String(record['_id']) === primary)?.['tenant_id'] as string | null | undefined) ?? null;
    const actor = event['actorIsTarget'] ? { ...(event['actor'] as Record<string, unknown>), id: primary } : event['actor'];
    const further = ids.filter((id) => id !== primary);
    // The cascade first, as the outbox's commit writes it: a crash between leaves the event pending, and the next
    // sweep writes no cascade event twice (the call itself may have written some before it crashed).
    if (further.length > 0) await writeCascadeEvents(this.model, event._id, { ...committedFields(event), tenant_id: tenant, actor }, event.target.type, further);
    // committedAt by the database's clock, as the outbox's commit (event-log.ts).
    const { matchedCount } = await this.model.collection.updateOne(ours, [
      {
        $set: {
          state: { $literal: EventState.committed },
          committedAt: DATABASE_NOW,
          tenant_id: { $literal: tenant },
          target: { type: { $literal: event.target.type }, id: { $literal: primary } },
          actor: { $literal: actor },
        },
      },
      { $unset: ['leaseUntil', 'removesTarget', 'actorIsTarget'] },
    ]);
    if (matchedCount === 0) return 'lost-claim';
    this.options.onCommit?.();
    return 'committed';
  }

  /** The records of the event's target type stamped with its id; any other stamped record (evidence only) makes the list [named]. */
  private async stampedRecords(event: StoredEvent): Promise<Array<Record<string, unknown>>> {
    const filter = { [EVENT_IDS_FIELD]: event._id };
    const own = this.options.records[event.target.type];
    const found = own ? await own.find(filter, { projection: { _id: 1, tenant_id: 1 } }).toArray() : [];
    if (found.length > 0 || event.target.id === null) return found;
    for (const collection of [...Object.values(this.options.records), ...(this.options.alsoStamped ?? [])]) {
      if (collection === own) continue;
      if (await collection.findOne(filter, { projection: { _id: 1 } })) return [{ _id: event.target.id }];
    }
    return [];
  }

  /** A hard delete leaves no record to stamp: the absence of the record the event named says it happened. */
  private async namedRecordIsGone(event: StoredEvent): Promise<boolean> {
    const own = this.options.records[event.target.type];
    if (event['removesTarget'] !== true || !own || event.target.id === null || !Types.ObjectId.isValid(event.target.id)) return false;
    return (await own.findOne({ _id: new Types.ObjectId(event.target.id) }, { projection: { _id: 1 } })) === null;
  }
}
