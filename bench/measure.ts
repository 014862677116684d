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

/**
 * Medians of two operations measured in alternation (a, b, a, b, ...), so JIT
 * warm-up, GC and machine noise fall on both alike and their ratio is fair.
 */
export async function pairedMedianLatencyUs(
  a: (i: number) => Promise<unknown>,
  b: (i: number) => Promise<unknown>,
  { iterations, warmup = Math.ceil(iterations / 10), budgetMs = 20_000 }: { iterations: number; warmup?: number; budgetMs?: number },
): Promise<[number, number]> {
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
  return [median(samplesA), median(samplesB)];
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
