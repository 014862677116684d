import type { Logger } from '../logger.js';
import type { ApiKeyStore, ApiKeyUse } from './ports.js';

export interface UsageRecorderOptions {
  keys: Pick<ApiKeyStore, 'recordUses'>;
  logger: Logger;
  /** How often the buffer is written (the contract: within a second). */
  flushIntervalMs?: number;
  /** A batch this large is written at once, without waiting for the timer. */
  maxBatch?: number;
  /** Past this many unwritten uses (the database is down), the oldest are dropped, with an error logged. */
  maxBuffered?: number;
}

export interface UsageRecorder {
  /** Queues one accepted use of a key; never waits for the database. */
  record(use: ApiKeyUse): void;
  /** Writes everything queued so far. */
  flush(): Promise<void>;
  /** Stops the timer and writes what is left (service shutdown). */
  close(): Promise<void>;
}

/**
 * Usage counting and logs off the request path: uses are queued in memory
 * and written in one batch (usage entries + each key's usageCount and
 * lastUsedAt) at most a second later, and on shutdown, so a key-authenticated
 * request costs no write of its own. A failed batch is kept and retried.
 */
export function createUsageRecorder(options: UsageRecorderOptions): UsageRecorder {
  const { keys, logger, flushIntervalMs = 1000, maxBatch = 500, maxBuffered = 100_000 } = options;
  let queued: ApiKeyUse[] = [];
  let writing: Promise<void> = Promise.resolve();
  /** A flush is queued behind the one writing: a second request for one would write nothing more. */
  let flushPending = false;

  const flush = (): Promise<void> => {
    if (flushPending) return writing;
    flushPending = true;
    // One batch at a time, in order: a flush waits for the one before it.
    writing = writing.then(async () => {
      flushPending = false;
      if (queued.length === 0) return;
      const batch = queued;
      queued = [];
      try {
        await keys.recordUses(batch);
      } catch (err) {
        queued = [...batch, ...queued];
        const dropped = queued.length - maxBuffered;
        if (dropped > 0) queued = queued.slice(dropped);
        logger.error({ err, pending: queued.length, dropped: Math.max(0, dropped) }, 'could not write API key usage; will retry');
      }
    });
    return writing;
  };

  const timer = setInterval(() => void flush(), flushIntervalMs);
  timer.unref();

  return {
    record(use) {
      queued.push(use);
      if (queued.length > maxBuffered) {
        // The database is slow or down: keep the newest, say what was dropped.
        queued.shift();
        logger.error({ pending: queued.length, dropped: 1 }, 'API key usage queue full; dropped the oldest use');
      }
      if (queued.length >= maxBatch) void flush();
    },
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}
