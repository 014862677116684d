import { performance } from 'node:perf_hooks';

/** Median of per-call latencies in microseconds, after a warm-up; bounded by a count and a time budget. */
export async function medianLatencyUs(
  fn: (i: number) => Promise<unknown>,
  { iterations, warmup = Math.ceil(iterations / 10), budgetMs = 10_000 }: { iterations: number; warmup?: number; budgetMs?: number },
): Promise<number> {
  for (let i = 0; i < warmup; i++) await fn(i);
  const samples: number[] = [];
  const deadline = performance.now() + budgetMs;
  for (let i = 0; i < iterations && performance.now() < deadline; i++) {
    const start = performance.now();
    await fn(i);
    samples.push((performance.now() - start) * 1000);
  }
  return median(samples);
}

/** The median and 99th percentile of a series of latencies, in microseconds. */
export interface LatencyStats {
  p50: number;
  p99: number;
}

/**
 * Latencies of two operations measured in alternation (a, b, a, b, ...), so
 * JIT warm-up, GC and machine noise fall on both alike and their ratio is fair.
 */
export async function pairedLatencyStatsUs(
  a: (i: number) => Promise<unknown>,
  b: (i: number) => Promise<unknown>,
  { iterations, warmup = Math.ceil(iterations / 10), budgetMs = 20_000 }: { iterations: number; warmup?: number; budgetMs?: number },
): Promise<[LatencyStats, LatencyStats]> {
  for (let i = 0; i < warmup; i++) {
    await a(i);
    await b(i);
  }
  const samplesA: number[] = [];
  const samplesB: number[] = [];
  const deadline = performance.now() + budgetMs;
  for (let i = 0; i < iterations && performance.now() < deadline; i++) {
    let start = performance.now();
    await a(i);
    samplesA.push((performance.now() - start) * 1000);
    start = performance.now();
    await b(i);
    samplesB.push((performance.now() - start) * 1000);
  }
  const stats = (samples: number[]) => ({ p50: percentile(samples, 50), p99: percentile(samples, 99) });
  return [stats(samplesA), stats(samplesB)];
}

/** Medians of two operations measured in alternation (see pairedLatencyStatsUs). */
export async function pairedMedianLatencyUs(
  a: (i: number) => Promise<unknown>,
  b: (i: number) => Promise<unknown>,
  options: { iterations: number; warmup?: number; budgetMs?: number },
): Promise<[number, number]> {
  const [statsA, statsB] = await pairedLatencyStatsUs(a, b, options);
  return [statsA.p50, statsB.p50];
}

/** Sequential operations per second over at most `count` operations or `budgetMs`. */
export async function opsPerSecond(fn: (i: number) => Promise<unknown>, { count, budgetMs = 10_000 }: { count: number; budgetMs?: number }): Promise<number> {
  const start = performance.now();
  let done = 0;
  while (done < count && performance.now() - start < budgetMs) await fn(done++);
  return done / ((performance.now() - start) / 1000);
}

export function median(samples: number[]): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The nearest-rank percentile (0 < p <= 100) of a series. */
export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
