/**
 * Values kept for at most `maxAgeMs`, counted from the moment their read
 * started, so a value answered at time t was read by a query sent after
 * t - maxAgeMs: a change stored before then is always seen. Concurrent
 * callers of one key share one read. A failed read is not kept. Expired
 * entries are swept as new ones arrive, so the map holds only the keys read
 * in about the last two periods.
 */
export interface ShortLivedCache<V> {
  /** The kept value of `key`, else the value `load` reads (and keeps). */
  get(key: string, load: () => Promise<V>): Promise<V>;
  /** Forgets every value: the next `get` of each key reads again. */
  clear(): void;
  /** Forgets the value of `key` only: its next `get` reads again. */
  forget(key: string): void;
}

export interface ShortLivedCacheOptions {
  maxAgeMs: number;
  now?: () => number;
}

interface Entry<V> {
  readAt: number;
  value: Promise<V>;
}

export function createShortLivedCache<V>({ maxAgeMs, now = Date.now }: ShortLivedCacheOptions): ShortLivedCache<V> {
  const entries = new Map<string, Entry<V>>();
  let lastSweep = now();

  const sweep = (at: number) => {
    if (at - lastSweep < maxAgeMs) return;
    lastSweep = at;
    for (const [key, entry] of entries) if (at - entry.readAt >= maxAgeMs) entries.delete(key);
  };

  return {
    get(key, load) {
      const at = now();
      const kept = entries.get(key);
      if (kept && at - kept.readAt < maxAgeMs) return kept.value;
      sweep(at);
      const entry: Entry<V> = { readAt: at, value: load() };
      entries.set(key, entry);
      // Only this read's own entry: a clear() meanwhile may have let a newer read in.
      entry.value.catch(() => entries.get(key) === entry && entries.delete(key));
      return entry.value;
    },
    clear: () => entries.clear(),
    forget: (key) => void entries.delete(key),
  };
}
