import type { ReturnModelType } from '@typegoose/typegoose';
import { Types } from 'mongoose';
import { GroupWrite } from '../shared/index.js';
import { type EvidenceCollection, withEventStamp } from './event-stamp.js';
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
 * How long an event with a dedupeKey is kept at least: its stored key is what
 * makes it happen once, so it must outlive its occasion (an expiring key is
 * announced 7 days ahead), whatever EVENT_RETENTION says.
 */
export const ONCE_KEPT_SECONDS = 8 * 24 * 3600;

/**
 * `committedAt` orders the tail every instance follows (event-tail.ts), so it
 * is the database's clock, never a writer's: an instance whose clock runs
 * ahead (or behind) would otherwise hide other instances' events from the
 * tails. Writes set it with `$$NOW` in a pipeline update, where every other
 * value is a `$literal` (a value is never read as an expression).
 */
export const DATABASE_NOW = '$$NOW';
function literally(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).map(([key, value]) => [key, { $literal: value }]));
}

/** The fields every stored event has, whichever writer (append, the outbox's open) writes it. */
function eventRecord(_id: Types.ObjectId, event: Omit<NewEvent, 'dedupeKey'>, now: Date, retentionSeconds: number) {
  return {
    _id,
    type: event.type,
    tenant_id: event.tenant_id,
    occurredAt: now,
    actor: { type: event.actor.type, id: event.actor.id },
    target: { type: event.target.type, id: event.target.id },
    data: event.data ?? {},
    expireAt: new Date(now.getTime() + retentionSeconds * 1000),
  };
}

/**
 * The writer of the event outbox. `append` writes an event that is its own
 * change (a system event, a test event): committed at once.
 */
export class EventLog {
  constructor(
    private readonly options: EventLogOptions,
    private readonly model: ReturnModelType<typeof ServiceEvent> = EventModel,
  ) {}

  /** The dedupeKeys among `keys` that an event holds (its occasion happened). */
  async storedDedupeKeys(keys: readonly string[]): Promise<Set<string>> {
    const found = await this.model.collection.find({ dedupeKey: { $in: [...keys] } }, { projection: { _id: 0, dedupeKey: 1 } }).toArray();
    return new Set(found.map((event) => event['dedupeKey'] as string));
  }

  /** Writes a committed event; null when its dedupeKey was already used (it happened already). */
  async append(event: NewEvent): Promise<{ id: string } | null> {
    const now = new Date();
    const _id = new Types.ObjectId();
    const { _id: _, ...record } = {
      ...eventRecord(_id, event, now, event.dedupeKey === undefined ? this.options.retentionSeconds : Math.max(this.options.retentionSeconds, ONCE_KEPT_SECONDS)),
      state: EventState.committed,
      ...(event.dedupeKey === undefined ? {} : { dedupeKey: event.dedupeKey }),
    };
    try {
      // An insert by upsert: an insert cannot read the database's clock, a pipeline update can.
      await this.model.collection.updateOne({ _id }, [{ $set: { ...literally(record), committedAt: DATABASE_NOW } }], { upsert: true });
    } catch (err) {
      if ((err as { code?: unknown }).code === DUPLICATE_KEY && event.dedupeKey !== undefined) return null;
      throw err;
    }
    this.options.onCommit?.();
    return { id: _id.toHexString() };
  }
}

/** The occasion of a cascade's event: the call's event and the further record (unique, so written once by whoever comes first). */
export function cascadeKey(eventId: Types.ObjectId, targetId: string): string {
  return `cascade:${eventId.toHexString()}:${targetId}`;
}

/** Fields of a pending event only, removed when it commits. */
const OPEN_ONLY_FIELDS = ['leaseUntil', 'removesTarget', 'actorIsTarget'] as const;

/** The opened record's fields a committed event of the call keeps: not its id, nor the pending-only ones, nor a commit time. */
export function committedFields(opened: Record<string, unknown>): Record<string, unknown> {
  const { _id: _, ...fields } = opened;
  for (const field of [...OPEN_ONLY_FIELDS, 'committedAt']) delete fields[field];
  return fields;
}

const ABSENT = { $eq: [{ $type: '$state' }, 'missing'] };

/** A pipeline update (with upsert) that writes `record` (values as $literal), committed now, only where no event is yet. */
function writtenIfAbsent(record: Record<string, unknown>): Record<string, unknown>[] {
  return [{ $replaceWith: { $cond: [ABSENT, { $mergeObjects: ['$$ROOT', record, { committedAt: DATABASE_NOW }] }, '$$ROOT'] } }];
}

/**
 * The commit of a call's event (a pipeline update with upsert, by _id), whatever became of it
 * meanwhile, in one write that needs no answer read back (so the commits of concurrent calls go
 * together): still pending, it is committed with `settled`; gone, because a reconciler took the
 * call for a crashed one and removed it finding no evidence yet, it is written committed again
 * under the same id (the call knows better); committed by a reconciler, it stays as it is.
 */
function settledOnce(opened: Record<string, unknown>, settled: Record<string, unknown>): Record<string, unknown>[] {
  const restored = { ...literally(committedFields(opened)), ...settled };
  return [
    {
      $replaceWith: {
        $switch: {
          branches: [
            { case: ABSENT, then: { $mergeObjects: ['$$ROOT', restored, { committedAt: DATABASE_NOW }] } },
            { case: { $eq: ['$state', EventState.pending] }, then: { $mergeObjects: ['$$ROOT', settled, { committedAt: DATABASE_NOW }] } },
          ],
          default: '$$ROOT',
        },
      },
    },
    // A committed event never has them (the reconciler's commit removes them too).
    { $unset: [...OPEN_ONLY_FIELDS] },
  ];
}

/**
 * The events of a cascade: one committed event per further record `targetIds` of the call's event
 * `eventId`, with `fields` (those of a committed event of the call, but its target), each unique by
 * its occasion (cascadeKey): one already written, by the call or a reconciler, is kept as it is.
 */
export async function writeCascadeEvents(
  model: ReturnModelType<typeof ServiceEvent>,
  eventId: Types.ObjectId,
  fields: Record<string, unknown>,
  targetType: string,
  targetIds: readonly string[],
): Promise<void> {
  await model.collection.bulkWrite(
    targetIds.map((targetId) => {
      const record = literally({ ...fields, state: EventState.committed, target: { type: targetType, id: targetId }, dedupeKey: cascadeKey(eventId, targetId) });
      return { updateOne: { filter: { dedupeKey: cascadeKey(eventId, targetId) }, update: writtenIfAbsent(record), upsert: true } };
    }),
    { ordered: false },
  );
}

/** The event of an audited call as the outbox opens it, before the change. */
export interface PendingEvent extends NewEvent {
  id: Types.ObjectId;
  /** The call removes its named record (a hard delete): its absence is the reconciler's evidence. */
  removesTarget?: boolean;
  /** The caller is the target user, known only once the call ran (redeeming a password ticket): the reconciler names it so. */
  actorIsTarget?: boolean;
}

/** What the call's success settles: the final tenant, target and data, and one more event per further record. */
export interface EventOutcome {
  /** The caller when only the call made it known (a redeemed ticket's user); else the pending event's. */
  actor?: EventActor;
  tenant_id: string | null;
  target: EventTarget;
  data: Record<string, unknown>;
  /** Further records the call changed (a cascade): one committed event each, the same but for the target id. */
  alsoChanged: readonly string[];
}

export interface EventOutboxOptions extends EventLogOptions {
  /**
   * The stamped collections by the GraphQL type of their records: a hard delete's event says its
   * record's absence is evidence only when the record existed as the call began (`removesTarget`).
   */
  targets?: Readonly<Record<string, EvidenceCollection>>;
}

/**
 * The outbox of audited calls, made of single-document writes (no
 * multi-document transactions: the embedded engine refuses them and a
 * standalone mongod has none): `open` writes the event pending before the
 * change, `commit` settles it once the change succeeded, `discard` removes it
 * when the call failed. A crash between them leaves it pending, and the
 * reconciler settles it by the evidence in the changed records (event-stamp.ts).
 */
export class EventOutbox {
  /**
   * The opens, commits and discards of concurrent calls, one bulk write per batch (group-write.ts):
   * each was a command of its own, two per audited call, and a command's round trip (its encoding,
   * a socket write each way, the engine's dispatch) cost both processes more than the write itself.
   */
  private readonly writes: GroupWrite<Record<string, unknown>>;

  constructor(
    private readonly options: EventOutboxOptions,
    private readonly model: ReturnModelType<typeof ServiceEvent> = EventModel,
  ) {
    this.writes = new GroupWrite(() => this.model.collection as never);
  }

  /** Writes the event pending; answers the record as written (commit writes it again if a reconciler removed it meanwhile). */
  async open(event: PendingEvent): Promise<Record<string, unknown>> {
    const now = new Date();
    const record = {
      ...eventRecord(event.id, event, now, this.options.retentionSeconds),
      state: EventState.pending,
      committedAt: null,
      ...(event.removesTarget ? { removesTarget: true } : {}),
      ...(event.actorIsTarget ? { actorIsTarget: true } : {}),
    };
    await this.writes.insert(record);
    return record;
  }

  /**
   * Commits the pending event (only while still pending: a reconciler may have settled it), after
   * the cascade's events: those first, so a crash between the two leaves the cascade written and the
   * event pending, which the reconciler commits (its own cascade refused as the same occasions).
   */
  async commit(id: Types.ObjectId, outcome: EventOutcome, opened: Record<string, unknown>): Promise<void> {
    if (outcome.alsoChanged.length > 0) await this.writeCascade(id, opened, outcome);
    const settled = literally({
      state: EventState.committed,
      tenant_id: outcome.tenant_id,
      target: outcome.target,
      data: outcome.data,
      ...(outcome.actor ? { actor: outcome.actor } : {}),
    });
    await this.writes.write({ updateOne: { filter: { _id: id }, update: settledOnce(opened, settled), upsert: true } });
    this.options.onCommit?.();
  }

  /**
   * The whole outbox around one call: `open` before it, `call` with every
   * write stamped (event-stamp.ts), then `commit` with what `outcomeOf` says
   * of its result, or `discard` when it says null (nothing changed) or the
   * call throws. A failed open refuses the call (no change without its
   * event); a failed commit or discard goes to `onSettleError` and is left
   * to the reconciler (the evidence decides). A call that throws is
   * discarded unless `outcomeOfRefusal` gives its error an outcome: a refusal
   * whose change stands anyway.
   */
  async around<T>(
    event: Omit<PendingEvent, 'id'>,
    call: () => Promise<T>,
    outcomeOf: (result: T) => EventOutcome | null,
    // Default: nothing more to do; the reconciler settles it.
    onSettleError: (err: unknown, what: 'committed' | 'discarded') => void = () => undefined,
    outcomeOfRefusal: (error: unknown) => EventOutcome | null = () => null,
  ): Promise<T> {
    const id = new Types.ObjectId();
    const opened = await this.open({ ...event, id, removesTarget: await this.removable(event) });
    const settle = (what: 'committed' | 'discarded', step: () => Promise<void>) => step().catch((err: unknown) => onSettleError(err, what));
    let result: T;
    try {
      result = await withEventStamp(id, call);
    } catch (error) {
      const stood = outcomeOfRefusal(error);
      await (stood ? settle('committed', () => this.commit(id, stood, opened)) : settle('discarded', () => this.discard(id)));
      throw error;
    }
    const outcome = outcomeOf(result);
    await (outcome ? settle('committed', () => this.commit(id, outcome, opened)) : settle('discarded', () => this.discard(id)));
    return result;
  }

  /**
   * Whether the call's absent record will say it happened: a hard delete of a record there now. A
   * delete of a record that does not exist (a 404) changes nothing, and a crash before its event is
   * removed must not leave an absence the reconciler reads as the delete.
   */
  private async removable(event: Omit<PendingEvent, 'id'>): Promise<boolean> {
    const { id } = event.target;
    if (!event.removesTarget || id === null || !Types.ObjectId.isValid(id)) return false;
    const own = this.options.targets?.[event.target.type];
    // No collection to read (an outbox given none): taken as the call says.
    return own ? (await own.findOne({ _id: new Types.ObjectId(id) }, { projection: { _id: 1 } })) !== null : true;
  }

  /** One committed event per further record of the call, each unique by its occasion (cascadeKey). */
  private async writeCascade(id: Types.ObjectId, opened: Record<string, unknown>, outcome: EventOutcome): Promise<void> {
    const fields = { ...committedFields(opened), tenant_id: outcome.tenant_id, data: outcome.data, ...(outcome.actor ? { actor: outcome.actor } : {}) };
    await writeCascadeEvents(this.model, id, fields, outcome.target.type, outcome.alsoChanged);
  }

  /** Removes the pending event of a call that failed (it changed nothing). */
  async discard(id: Types.ObjectId): Promise<void> {
    await this.writes.write({ deleteOne: { filter: { _id: id, state: EventState.pending } } });
  }
}
