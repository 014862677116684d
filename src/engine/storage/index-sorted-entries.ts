import { compareValues } from '../query/index.js';
import type { Collation } from '../query/index.js';

/** One index entry: a value of the index's first field and the document it points to. */
export interface IndexEntry {
  value: unknown;
  idKey: string;
}

export interface RangeBounds {
  min?: unknown;
  minInclusive?: boolean;
  max?: unknown;
  maxInclusive?: boolean;
}

/** Chunks split at this size: inserts move at most this many entries. */
const CHUNK = 512;

/**
 * Entries kept sorted by value in BSON order (then by document, so the order
 * is deterministic) in a list of small sorted chunks (a one-level B-tree):
 * binary search over chunks then within one, and an insert or removal only
 * splices one chunk, so random-key writes stay cheap at 100k+ entries.
 */
export class SortedEntries {
  private chunks: IndexEntry[][] = [];
  private count = 0;

  constructor(private readonly collation?: Collation) {}

  get size(): number {
    return this.count;
  }

  private compare(a: IndexEntry, b: IndexEntry): number {
    const c = compareValues(a.value, b.value, this.collation);
    if (c !== 0) return c;
    return a.idKey < b.idKey ? -1 : a.idKey > b.idKey ? 1 : 0;
  }

  /** Replaces the content in one sort (index builds and restores). */
  load(entries: IndexEntry[]): void {
    entries.sort((a, b) => this.compare(a, b));
    this.chunks = [];
    for (let i = 0; i < entries.length; i += CHUNK / 2) this.chunks.push(entries.slice(i, i + CHUNK / 2));
    this.count = entries.length;
  }

  /** Index of the first chunk whose last entry is >= `cmp` target (clamped to the last chunk). */
  private chunkFor(isBefore: (e: IndexEntry) => boolean): number {
    let lo = 0;
    let hi = this.chunks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const chunk = this.chunks[mid]!;
      if (isBefore(chunk[chunk.length - 1]!)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private static position(chunk: IndexEntry[], isBefore: (e: IndexEntry) => boolean): number {
    let lo = 0;
    let hi = chunk.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (isBefore(chunk[mid]!)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  insert(entry: IndexEntry): void {
    if (this.chunks.length === 0) {
      this.chunks.push([entry]);
      this.count = 1;
      return;
    }
    const isBefore = (e: IndexEntry): boolean => this.compare(e, entry) < 0;
    const ci = this.chunkFor(isBefore);
    const chunk = this.chunks[ci]!;
    chunk.splice(SortedEntries.position(chunk, isBefore), 0, entry);
    this.count++;
    if (chunk.length > CHUNK) this.chunks.splice(ci + 1, 0, chunk.splice(CHUNK / 2));
  }

  remove(entry: IndexEntry): boolean {
    if (this.chunks.length === 0) return false;
    const isBefore = (e: IndexEntry): boolean => this.compare(e, entry) < 0;
    const ci = this.chunkFor(isBefore);
    const chunk = this.chunks[ci]!;
    const pos = SortedEntries.position(chunk, isBefore);
    const found = chunk[pos];
    if (found === undefined || found.idKey !== entry.idKey || this.compare(found, entry) !== 0) return false;
    chunk.splice(pos, 1);
    this.count--;
    if (chunk.length === 0) this.chunks.splice(ci, 1);
    return true;
  }

  /** Entries from the first one not before `isBefore`, while `inRange` holds. */
  private collect(isBefore: ((e: IndexEntry) => boolean) | undefined, inRange: (e: IndexEntry) => boolean): IndexEntry[] {
    const out: IndexEntry[] = [];
    if (this.chunks.length === 0) return out;
    let ci = isBefore ? this.chunkFor(isBefore) : 0;
    let pos = isBefore ? SortedEntries.position(this.chunks[ci]!, isBefore) : 0;
    for (; ci < this.chunks.length; ci++, pos = 0) {
      const chunk = this.chunks[ci]!;
      for (; pos < chunk.length; pos++) {
        if (!inRange(chunk[pos]!)) return out;
        out.push(chunk[pos]!);
      }
    }
    return out;
  }

  /** Entries whose value equals `v` (under the index collation). */
  equal(v: unknown): IndexEntry[] {
    return this.collect(
      (e) => compareValues(e.value, v, this.collation) < 0,
      (e) => compareValues(e.value, v, this.collation) === 0,
    );
  }

  range(bounds: RangeBounds): IndexEntry[] {
    const { min, max } = bounds;
    const minExclusive = bounds.minInclusive === false;
    const maxInclusive = bounds.maxInclusive !== false;
    const isBefore =
      min === undefined
        ? undefined
        : (e: IndexEntry): boolean => {
            const c = compareValues(e.value, min, this.collation);
            return c < 0 || (minExclusive && c === 0);
          };
    const inRange =
      max === undefined
        ? (): boolean => true
        : (e: IndexEntry): boolean => {
            const c = compareValues(e.value, max, this.collation);
            return c < 0 || (maxInclusive && c === 0);
          };
    return this.collect(isBefore, inRange);
  }

  all(): IndexEntry[] {
    return this.chunks.flat();
  }
}
