import { mongoError } from '../errors.js';
import { bsonType, isPlainObject } from './values.js';
import type { Document } from './types.js';

/**
 * A blocking sort with mongod's bounds: with a limit only the best
 * `skip + limit` documents are held (a top-k sort), and past the memory limit
 * (mongod's internalQueryMaxBlockingSortMemoryUsageBytes, 100 MiB) the sort
 * fails with QueryExceededMemoryLimitNoDiskUseAllowed unless the client
 * passed `allowDiskUse: true`. The engine does not spill to disk: with
 * allowDiskUse the sort stays in memory, as the data itself does.
 */

export const MAX_BLOCKING_SORT_BYTES = 100 * 1024 * 1024;

export interface BoundedSortOptions {
  /** Keep only the first `keep` documents of the order (0 or undefined: all). */
  keep?: number;
  allowDiskUse?: boolean;
  /** For tests; mongod's default otherwise. */
  maxBytes?: number;
}

/** Sorts `docs` (stable) within the bounds above. */
export function boundedSort(docs: Iterable<Document>, compare: (a: Document, b: Document) => number, opts: BoundedSortOptions = {}): Document[] {
  const keep = opts.keep && opts.keep > 0 ? opts.keep : 0;
  const maxBytes = opts.maxBytes ?? MAX_BLOCKING_SORT_BYTES;
  const limited = opts.allowDiskUse !== true;
  let held: Document[] = [];
  let bytes = 0;
  for (const doc of docs) {
    held.push(doc);
    if (limited) {
      bytes += approximateBsonSize(doc);
      if (bytes > maxBytes) throw sortMemoryExceeded(maxBytes);
    }
    // Sorting once every `keep` new documents keeps the work at O(n log k).
    if (keep > 0 && held.length >= 2 * keep) {
      held.sort(compare);
      held = held.slice(0, keep);
      if (limited) bytes = held.reduce((sum, d) => sum + approximateBsonSize(d), 0);
    }
  }
  held.sort(compare);
  return keep > 0 ? held.slice(0, keep) : held;
}

export function sortMemoryExceeded(maxBytes: number): Error {
  return mongoError(
    'QueryExceededMemoryLimitNoDiskUseAllowed',
    `Sort exceeded memory limit of ${maxBytes} bytes, but did not opt in to external sorting. Aborting operation. Pass allowDiskUse:true to opt in.`,
  );
}

/** A cheap estimate of a value's BSON size (exact sizing costs microseconds per document). */
export function approximateBsonSize(value: unknown): number {
  if (typeof value === 'string') return value.length + 5;
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined) return 8;
  if (Array.isArray(value)) {
    let n = 5;
    for (let i = 0; i < value.length; i++) n += 2 + String(i).length + approximateBsonSize(value[i]);
    return n;
  }
  if (isPlainObject(value)) {
    let n = 5;
    for (const key of Object.keys(value)) n += 2 + key.length + approximateBsonSize(value[key]);
    return n;
  }
  switch (bsonType(value)) {
    case 'Binary':
      return 5 + ((value as { length(): number }).length?.() ?? 0);
    case 'Decimal128':
      return 16;
    case 'ObjectId':
      return 12;
    default:
      return 16;
  }
}
