import type { Logger } from '../logger.js';
import type { EventLog, NewEvent } from './event-log.js';

/** A system event that happens once: its dedupeKey names the occasion (the key and its hour, the lock, the window). */
export type OnceEvent = NewEvent & { dedupeKey: string };

/** How many occasions an instance remembers having written before it starts over (memory bound). */
const REMEMBERED_OCCASIONS = 10_000;

/**
 * The writer of system events (docs/events.md "System events"): each
 * through EventLog.append with its dedupeKey, so the database's unique index
 * decides that it happens once across every instance. The occasions this
 * instance has already written (or found written) are remembered, so a burst
 * of the same occasion (a key's 429s, a sweep every minute) costs one insert;
 * the memory only saves work, it never decides.
 */
export class OnceEvents {
  private readonly written = new Set<string>();

  constructor(
    private readonly log: Pick<EventLog, 'append'>,
    private readonly logger?: Pick<Logger, 'error'>,
  ) {}

  /** Writes the event in the background (the caller never waits); a failed write is logged, and a later occasion tries again. */
  raise(event: OnceEvent): void {
    this.write(event).catch(() => {});
  }

  /** Writes the event unless this instance knows it is written; a failed write is logged and thrown. */
  async write(event: OnceEvent): Promise<void> {
    if (this.written.has(event.dedupeKey)) return;
    if (this.written.size >= REMEMBERED_OCCASIONS) this.written.clear();
    // Remembered before the write, so concurrent occasions on this instance make one insert.
    this.written.add(event.dedupeKey);
    try {
      await this.log.append(event);
    } catch (err) {
      this.written.delete(event.dedupeKey);
      this.logger?.error({ err, eventType: event.type }, 'system event not written');
      throw err;
    }
  }
}
