import type { ReturnModelType } from '@typegoose/typegoose';
import { trusted } from 'mongoose';
import type { Logger } from '../logger.js';
import { EventModel, type ServiceEvent } from './event.model.js';

/** A committed event as the tail hands it out (a plain object, `id` filled in). */
export type TailedEvent = Omit<ServiceEvent, 'id'> & { id: string };

export interface EventTailOptions {
  /** How often the collection is read while someone listens. */
  intervalMs?: number;
  /**
   * How far behind the newest `committedAt` seen a sweep looks again. An
   * event's `committedAt` is the database's clock when its commit began, and
   * the write becomes visible a little later: an event of another instance
   * can appear with a time just before one already seen. Ids already handed
   * out are skipped.
   */
  lookbackMs?: number;
  /** How often a read sweeps the lookback; the reads between start at the newest committedAt seen. */
  sweepEveryMs?: number;
  /** The most events one query takes; a full page is followed by the next at once. */
  batch?: number;
  /** Told when reads start failing (once per outage, not once per poll) and when they work again. */
  logger?: Pick<Logger, 'error' | 'info'>;
}

type Listener = (events: readonly TailedEvent[]) => void;

/**
 * Every committed event, in commit order, as it appears in the database: the
 * one feed that subscriptions and webhook fan-out follow on each instance,
 * so that an event written by any instance reaches the listeners of all of
 * them (no change streams: the embedded engine has none). It reads only
 * while someone listens, from the moment the first one came. `wake()` reads
 * now (the writer's own instance need not wait for the next interval).
 */
export class EventTail {
  private readonly listeners = new Set<Listener>();
  private readonly intervalMs: number;
  private readonly lookbackMs: number;
  private readonly batch: number;
  private logger: EventTailOptions['logger'];
  /** The newest committedAt handed out (the database's clock); 0: not anchored yet. */
  private watermark = 0;
  /** When the first listener came, by the database's clock: events committed before it are not handed out (the lookback would replay them). */
  private startedAt = 0;
  /** When the lookback was last swept (this instance's clock: it only paces the sweeps). */
  private sweptAt = 0;
  private readonly sweepEveryMs: number;
  /** Ids handed out within the lookback, by their committedAt (ms). */
  private readonly seen = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private reading: Promise<void> | null = null;
  private again = false;
  /** Reads are failing (the database is away): logged once when it starts, once when it ends. */
  private failing = false;

  constructor(
    private readonly model: ReturnModelType<typeof ServiceEvent> = EventModel,
    options: EventTailOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 100;
    this.lookbackMs = options.lookbackMs ?? 2000;
    this.sweepEveryMs = options.sweepEveryMs ?? 1000;
    this.batch = options.batch ?? 500;
    this.logger = options.logger;
  }

  /** Calls `listener` with each batch of newly committed events until the returned function is called. */
  subscribe(listener: Listener): () => void {
    const first = this.listeners.size === 0;
    if (first) this.start();
    this.listeners.add(listener);
    // Anchored now, not at the next interval: what commits after this call is handed out.
    if (first) void this.read();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stop();
    };
  }

  /** Reads now rather than at the next interval. */
  wake(): void {
    if (this.listeners.size > 0) void this.read();
  }

  /** Logs read failures to `logger` (the composition root's, when the tail was built before it). */
  logTo(logger: NonNullable<EventTailOptions['logger']>): void {
    this.logger = logger;
  }

  /** Stops reading (shutdown), once the read under way has ended: the database may close after it. */
  async close(): Promise<void> {
    this.listeners.clear();
    this.stop();
    await this.reading;
  }

  private start(): void {
    // Anchored by the first read, on the database's clock (this instance's may be off).
    this.watermark = this.startedAt = 0;
    this.seen.clear();
    this.timer = setInterval(() => void this.read(), this.intervalMs);
    this.timer.unref();
  }

  private stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** One read at a time; a wake during a read reads once more after it. */
  private read(): Promise<void> {
    if (this.reading) {
      this.again = true;
      return this.reading;
    }
    this.reading = this.readOnce()
      .then(() => this.recovered(), (err: unknown) => this.failed(err)) // the next interval tries again
      .finally(() => {
        this.reading = null;
        if (this.again && this.listeners.size > 0) {
          this.again = false;
          void this.read();
        }
      });
    return this.reading;
  }

  /**
   * Pages (by committedAt, then id) through everything committed since the
   * watermark, or since the watermark less the lookback when a sweep is due:
   * a late commit is found by the next sweep, and the reads between (one per
   * commit on the writer's own instance) read only what is new.
   */
  private async readOnce(): Promise<void> {
    if (this.watermark === 0) {
      const { localTime } = (await this.model.db.db!.command({ hello: 1 })) as { localTime: Date };
      this.watermark = this.startedAt = localTime.getTime();
    }
    const sweep = Date.now() - this.sweptAt >= this.sweepEveryMs;
    if (sweep) this.sweptAt = Date.now();
    const since = new Date(sweep ? this.watermark - this.lookbackMs : this.watermark);
    let after: { at: Date; id: unknown } | null = null;
    for (;;) {
      // Operators marked trusted: sanitizeFilter is on (src/database.ts) and would read them as values.
      // No state condition: committedAt is set exactly when an event commits, and the range alone is
      // served by the (committedAt, _id) index with no other index to weigh against it.
      const filter: Record<string, unknown> = { committedAt: trusted({ $gte: after?.at ?? since }) };
      if (after) filter['$or'] = [{ committedAt: trusted({ $gt: after.at }) }, { _id: trusted({ $gt: after.id }) }];
      const found = await this.model
        .find(filter, { state: 0, dedupeKey: 0, expireAt: 0 })
        .sort({ committedAt: 1, _id: 1 })
        .limit(this.batch)
        .lean();
      const fresh: TailedEvent[] = [];
      for (const event of found) {
        const id = String(event._id);
        if (this.seen.has(id)) continue;
        const at = (event.committedAt as Date).getTime();
        this.seen.set(id, at);
        if (at > this.watermark) this.watermark = at;
        if (at >= this.startedAt) fresh.push({ ...(event as unknown as TailedEvent), id });
      }
      if (fresh.length > 0) for (const listener of [...this.listeners]) listener(fresh);
      const last = found.at(-1);
      if (!last || found.length < this.batch || this.listeners.size === 0) break;
      after = { at: last.committedAt as Date, id: last._id };
    }
    this.forgetOld();
  }

  private failed(err: unknown): void {
    if (this.failing) return;
    this.failing = true;
    this.logger?.error({ err }, 'could not read the event log; subscriptions and webhook fan-out wait until it can be read again');
  }

  private recovered(): void {
    if (!this.failing) return;
    this.failing = false;
    this.logger?.info('the event log can be read again');
  }

  private forgetOld(): void {
    const horizon = this.watermark - this.lookbackMs;
    for (const [id, at] of this.seen) if (at < horizon) this.seen.delete(id);
  }
}
