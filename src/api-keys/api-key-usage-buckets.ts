import { USAGE_OUTCOMES } from './api-key-usage-rollup.model.js';
import { BUCKET_MS, type UsageGranularity } from './api-key.inputs.js';
import type { StoredRollup } from './api-key.store.js';
import type { UsageBucket } from './api-key.types.js';

/** The start of the bucket holding `at`. */
export function bucketStart(granularity: UsageGranularity, at: Date): Date {
  const size = BUCKET_MS[granularity];
  return new Date(Math.floor(at.getTime() / size) * size);
}

/**
 * Every bucket from `from`'s to the one holding the last instant before
 * `to`, oldest first, zeros where nothing was rolled up: the hours summed
 * into the bucket holding them.
 */
export function fillBuckets(granularity: UsageGranularity, from: Date, to: Date, hours: readonly StoredRollup[]): UsageBucket[] {
  const size = BUCKET_MS[granularity];
  const first = bucketStart(granularity, from).getTime();
  const buckets: UsageBucket[] = [];
  for (let start = first; start < to.getTime(); start += size) {
    buckets.push({ start: new Date(start), total: 0, success: 0, unauthorized: 0, forbidden: 0, rateLimited: 0 });
  }
  for (const hour of hours) {
    const bucket = buckets[Math.floor((hour.hour.getTime() - first) / size)];
    if (!bucket) continue;
    for (const outcome of USAGE_OUTCOMES) {
      const count = hour[outcome] ?? 0;
      bucket[outcome] += count;
      bucket.total += count;
    }
  }
  return buckets;
}

/**
 * What a limit of `rateLimit` per hour would have refused: each hour's
 * requests past it. An hour's requests are its uses but the 401 refusals,
 * which never reach the limit.
 */
export function refusedByLimit(rateLimit: number, hours: readonly StoredRollup[]): { hoursRefused: number; requestsRefused: number } {
  let hoursRefused = 0;
  let requestsRefused = 0;
  for (const hour of hours) {
    const requests = (hour.success ?? 0) + (hour.forbidden ?? 0) + (hour.rateLimited ?? 0);
    if (requests <= rateLimit) continue;
    hoursRefused += 1;
    requestsRefused += requests - rateLimit;
  }
  return { hoursRefused, requestsRefused };
}
