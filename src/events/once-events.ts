import { LRUCache } from 'lru-cache';
import type { Logger } from '../logger.js';
import type { EventLog, NewEvent } from './event-log.js';

/** A system event that happens once: its dedupeKey names the occasion (the key and its hour, the lock, the window). */
export type OnceEvent = NewEvent & { dedupeKey: string };

/** How many occasions an instance remembers having written (memory bound): past it, the least recently seen are forgotten. */
export const REMEMBERED_OCCASIONS = 10_000;

/**
 * The writer of system events (docs/events.md "System events"): each
 * through EventLog.append with its dedupeKey, so the database's unique index
 * decides that it happens once across every instance. The occasions this
 * instance has already written (or found written) are remembered, so a burst
 * of the same occasion (a key's 429s, a sweep every minute) costs one insert;
 * the memory only saves work, it never decides.
 */
export class OnceEvents {
  // Least recently seen forgotten first: more occasions than the bound (a sweep's many expiring keys)
  // cost one insert each, not one per sweep as a set cleared at the bound did.
  private readonly written: LRUCache<string, true>;

  constructor(
    private readonly log: Pick<EventLog, 'append' | 'storedDedupeKeys'>,
    private logger?: Pick<Logger, 'error'>,
    remembered = REMEMBERED_OCCASIONS,
  ) {
    this.written = new LRUCache({ max: remembered });
  }

  /** Logs failed writes to `logger` (the composition root's, when this was built before it). */
  logTo(logger: Pick<Logger, 'error'>): void {
    this.logger = logger;
  }

  /**
   * Of `events`, those neither this instance remembers nor the database holds
   * (by their dedupeKey, one read); those found are remembered.
   */
  async unwritten(events: readonly OnceEvent[]): Promise<OnceEvent[]> {
    const unknown = events.filter((event) => !this.written.get(event.dedupeKey));
    if (unknown.length === 0) return [];
    const stored = await this.log.storedDedupeKeys(unknown.map((event) => event.dedupeKey));
    for (const key of stored) this.written.set(key, true);
    return unknown.filter((event) => !stored.has(event.dedupeKey));
  }

  /** Writes the event in the background (the caller never waits); a failed write is logged, and a later occasion tries again. */
  raise(event: OnceEvent): void {
    this.write(event).catch(() => {});
  }

  /** Writes the event unless this instance knows it is written; a failed write is logged and thrown. */
  async write(event: OnceEvent): Promise<void> {
    // get, not has: a hit counts as recently seen, so an occasion seen all along stays remembered.
    if (this.written.get(event.dedupeKey)) return;
    // Remembered before the write, so concurrent occasions on this instance make one insert.
    this.written.set(event.dedupeKey, true);
    try {
      await this.log.append(event);
    } catch (err) {
      this.written.delete(event.dedupeKey);
      this.logger?.error({ err, eventType: event.type }, 'system event not written');
      throw err;
    }
  }
}
