import { isMongoCommandError } from '../errors.js';
import { isNumeric, toDouble } from '../query/index.js';
import type { CollectionInfo, Storage } from './types.js';

/**
 * mongod's TTL monitor: every `intervalMs`, documents whose TTL-indexed date
 * is older than now - expireAfterSeconds are deleted. An array expires by its
 * earliest date; documents without a date there never expire.
 */
export interface TtlSweeper {
  stop(): void;
  /** setParameter ttlMonitorSleepSecs: the next pass comes this long after now, and so on. */
  setSleepSeconds(seconds: number): void;
  sleepSeconds(): number;
  /** setParameter ttlMonitorEnabled: false skips the passes until it is true again. */
  setEnabled(enabled: boolean): void;
}

const MIN_DATE = new Date(-8.64e15);

/** One pass over every TTL index; returns how many documents it removed. */
export function sweepOnce(storage: Storage, now: Date = new Date()): number {
  let removed = 0;
  for (const db of storage.databases()) {
    for (const info of storage.collections(db)) {
      removed += sweepTimeSeries(storage, info, now);
      for (const spec of info.indexes) {
        if (!isNumeric(spec.expireAfterSeconds)) continue;
        // A hashed key holds no date to bound (mongod's TTL monitor reads only ascending/descending keys).
        if (!Object.values(spec.key).every(isNumeric)) continue;
        const seconds = toDouble(spec.expireAfterSeconds);
        if (!Number.isFinite(seconds)) continue;
        const cutoff = new Date(now.getTime() - seconds * 1000);
        // The index holds one entry per array element, so a range over dates
        // below the cutoff finds exactly the documents whose earliest date expired.
        const plan = { index: spec.name, range: { min: MIN_DATE, max: cutoff, maxInclusive: false } };
        for (const doc of [...storage.scan(db, info.name, plan)]) if (storage.remove(db, info.name, doc._id, doc)) removed++;
      }
    }
  }
  return removed;
}

export interface TtlSweeperOptions {
  intervalMs?: number;
  /** True while no pass may run (an fsync lock holds every write back, the monitor's too, as mongod's does). */
  paused?: () => boolean;
}

export function startTtlSweeper(storage: Storage, { intervalMs = 60_000, paused = () => false }: TtlSweeperOptions = {}): TtlSweeper {
  let enabled = true;
  let every = intervalMs;
  const pass = () => {
    if (!enabled || paused()) return;
    try {
      sweepOnce(storage);
    } catch (err) {
      // A storage that failed refuses the removals (storage.failed reports it); anything else is a bug.
      if (!isMongoCommandError(err)) throw err;
    }
    // Nobody awaits a sweep: a failed flush surfaces on the next acknowledged write.
    void storage.flush().catch(() => undefined);
  };
  const schedule = () => {
    const timer = setInterval(pass, every);
    timer.unref();
    return timer;
  };
  let timer = schedule();
  return {
    stop: () => clearInterval(timer),
    setSleepSeconds(seconds) {
      every = seconds * 1000;
      clearInterval(timer);
      timer = schedule();
    },
    sleepSeconds: () => every / 1000,
    setEnabled(on) {
      enabled = on;
    },
  };
}

/** A time-series collection's `expireAfterSeconds` expires measurements by their time field. */
function sweepTimeSeries(storage: Storage, info: CollectionInfo, now: Date): number {
  const ts = info.options.timeseries as { timeField?: unknown } | undefined;
  const expire = info.options.expireAfterSeconds;
  if (!ts || typeof ts.timeField !== 'string' || !isNumeric(expire)) return 0;
  const cutoff = now.getTime() - toDouble(expire) * 1000;
  const field = ts.timeField;
  const expired = [...storage.scan(info.db, info.name)].filter((d) => d[field] instanceof Date && (d[field] as Date).getTime() < cutoff);
  let removed = 0;
  // Measurements are keyed by record, not by _id (several may share one): each is removed as scanned.
  for (const doc of expired) if (storage.remove(info.db, info.name, doc._id, doc)) removed++;
  return removed;
}
