import type { OnceEvent } from '../events/index.js';
import type { Logger } from '../logger.js';
import { keysExpiringBetween, type ExpiringKey } from './api-key-expiry.store.js';

const DAY_MS = 86_400_000;

/** The two announcements of a key's expiry, nearest first. */
export const EXPIRY_WINDOWS = [
  { name: '1d', ms: DAY_MS },
  { name: '7d', ms: 7 * DAY_MS },
] as const;

export type ExpiryWindow = (typeof EXPIRY_WINDOWS)[number]['name'];

/**
 * The window a key expiring at `expiresAt` is in at `now`: the nearest one
 * that holds it (a key within a day of expiry is in `1d` only, so a key
 * created 20 hours before its expiry gets one announcement, not two); null
 * when it is over 7 days away or already expired.
 */
export function expiryWindowAt(expiresAt: Date, now: Date): ExpiryWindow | null {
  const left = expiresAt.getTime() - now.getTime();
  if (left <= 0) return null;
  return EXPIRY_WINDOWS.find((window) => left <= window.ms)?.name ?? null;
}

/** The `api-keys.expiring` event of a key in a window; its dedupeKey names the key, the window and the expiry instant. */
export function expiringEvent(key: ExpiringKey, window: ExpiryWindow): OnceEvent {
  const expiresAt = key.expiresAt.toISOString();
  return {
    type: 'api-keys.expiring',
    tenant_id: key.tenantId,
    actor: { type: 'system', id: null },
    target: { type: 'ApiKey', id: key.id },
    data: { expiresAt, window },
    // A new expiresAt (updateApiKey) is a new occasion: the key is announced again for it.
    dedupeKey: `api-keys.expiring:${key.id}:${window}:${expiresAt}`,
  };
}

export interface ApiKeyExpirySweeperOptions {
  /** Writes an event once across instances (OnceEvents.write). */
  write: (event: OnceEvent) => Promise<void>;
  /** Of these events, those not written yet (OnceEvents.unwritten): a sweep writes only those. */
  unwritten?: (events: readonly OnceEvent[]) => Promise<OnceEvent[]>;
  /** Between sweeps (default 60 s). */
  intervalMs?: number;
  logger?: Pick<Logger, 'error'>;
  now?: () => Date;
}

/**
 * Announces keys about to expire (`api-keys.expiring`). Every instance
 * sweeps: the events' unique dedupeKey makes each announcement happen once
 * however many sweep, so no instance has to be chosen. Revoked keys are not
 * announced; disabled ones are (they may be enabled again before they expire).
 * A failed sweep is logged and the next one tries again.
 */
export class ApiKeyExpirySweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly options: ApiKeyExpirySweeperOptions) {}

  /** One sweep: every key within 7 days of expiry gets its window's event (once). */
  async sweep(): Promise<void> {
    const now = (this.options.now ?? (() => new Date()))();
    // A page at a time, and only the announcements not made yet: a sweep every minute over many keys
    // costs a read per page, not an insert refused as a duplicate per key.
    for await (const keys of keysExpiringBetween(now, new Date(now.getTime() + 7 * DAY_MS))) {
      const events = keys.flatMap((key) => {
        const window = expiryWindowAt(key.expiresAt, now);
        return window ? [expiringEvent(key, window)] : [];
      });
      for (const event of this.options.unwritten ? await this.options.unwritten(events) : events) await this.options.write(event);
    }
  }

  /** Sweeps now and then every interval, one sweep at a time. */
  start(): void {
    const tick = () => {
      this.running = this.sweep()
        .catch((err: unknown) => this.options.logger?.error({ err }, 'API key expiry sweep failed; the next one retries'))
        .finally(() => {
          this.running = undefined;
          if (this.timer) this.timer = setTimeout(tick, this.options.intervalMs ?? 60_000).unref();
        });
    };
    this.timer = setTimeout(tick, 0).unref();
  }

  /** Stops sweeping and waits for a sweep under way. */
  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
