import { compareValues } from '../query/index.js';
import type { Collation } from '../query/index.js';

/**
 * One index entry: a value of the index's first field, for a compound index
 * the values of its other key fields (`rest`), and the document it points to.
 */
export interface IndexEntry {
  value: unknown;
  rest?: unknown[];
  idKey: string;
}

/**
 * Bounds over several key fields: one equality value on each leading field,
 * then optionally a range on the next one (index {a: 1, b: 1}, a = 1 and
 * b > 5). The entries inside form one contiguous run of the sorted order.
 */
export interface KeyBounds {
  equals: unknown[];
  range?: RangeBounds;
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

  /**
   * `signs`: the direction of each key field after the first relative to the
   * first one (index {a: 1, b: -1}: [-1]). The first field is always kept
   * ascending, so a scan in index order walks forwards or backwards.
   */
  constructor(
    private readonly collation?: Collation,
    private readonly signs: readonly number[] = [],
  ) {}

  get size(): number {
    return this.count;
  }

  private compare(a: IndexEntry, b: IndexEntry): number {
    const c = compareValues(a.value, b.value, this.collation);
    if (c !== 0) return c;
    if (a.rest && b.rest) {
      for (let i = 0; i < a.rest.length; i++) {
        const r = compareValues(a.rest[i], b.rest[i], this.collation);
        if (r !== 0) return r * (this.signs[i] ?? 1);
      }
    }
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

  /** The contiguous run of entries inside `bounds` (binary search for both ends). */
  within(bounds: KeyBounds): IndexEntry[] {
    const [start, end] = this.runOf(bounds);
    const out: IndexEntry[] = [];
    for (let ci = start[0]; ci <= end[0] && ci < this.chunks.length; ci++) {
      const chunk = this.chunks[ci]!;
      const from = ci === start[0] ? start[1] : 0;
      const to = ci === end[0] ? end[1] : chunk.length;
      for (let i = from; i < to; i++) out.push(chunk[i]!);
    }
    return out;
  }

  /**
   * The documents of the entries `within(bounds)` holds, in order or
   * (`backward`) reversed, collected straight into one array: a bounded
   * scan of a large run for a small page builds no list of entries first.
   */
  idKeysWithin(bounds: KeyBounds, backward = false): string[] {
    const [start, end] = this.runOf(bounds);
    const out: string[] = [];
    if (!backward) {
      for (let ci = start[0]; ci <= end[0] && ci < this.chunks.length; ci++) {
        const chunk = this.chunks[ci]!;
        const to = ci === end[0] ? end[1] : chunk.length;
        for (let i = ci === start[0] ? start[1] : 0; i < to; i++) out.push(chunk[i]!.idKey);
      }
      return out;
    }
    for (let ci = Math.min(end[0], this.chunks.length - 1); ci >= start[0]; ci--) {
      const chunk = this.chunks[ci]!;
      const from = ci === start[0] ? start[1] : 0;
      for (let i = (ci === end[0] ? end[1] : chunk.length) - 1; i >= from; i--) out.push(chunk[i]!.idKey);
    }
    return out;
  }

  /** How many entries `within(bounds)` holds, without collecting them (planning). */
  countWithin(bounds: KeyBounds): number {
    const [start, end] = this.runOf(bounds);
    if (start[0] > end[0]) return 0;
    if (start[0] === end[0]) return Math.max(0, end[1] - start[1]);
    let n = this.chunks[start[0]]!.length - start[1] + end[1];
    for (let ci = start[0] + 1; ci < end[0]; ci++) n += this.chunks[ci]!.length;
    return Math.max(0, n);
  }

  /** [chunk, position] of the run's first entry and of the first entry after it. */
  private runOf(bounds: KeyBounds): [[number, number], [number, number]] {
    if (this.chunks.length === 0) return [[0, 0], [0, 0]];
    const k = bounds.equals.length;
    const sign = k === 0 ? 1 : (this.signs[k - 1] ?? 1);
    const range = bounds.range;
    const field = (e: IndexEntry, i: number): unknown => (i === 0 ? e.value : e.rest?.[i - 1]);
    const prefix = (e: IndexEntry): number => {
      for (let i = 0; i < k; i++) {
        const c = compareValues(field(e, i), bounds.equals[i], this.collation) * (i === 0 ? 1 : (this.signs[i - 1] ?? 1));
        if (c !== 0) return c;
      }
      return 0;
    };
    // In stored order a descending field runs from its max to its min.
    const low = sign > 0 ? { v: range?.min, open: range?.minInclusive === false } : { v: range?.max, open: range?.maxInclusive === false };
    const high = sign > 0 ? { v: range?.max, open: range?.maxInclusive === false } : { v: range?.min, open: range?.minInclusive === false };
    const cmp = (e: IndexEntry, v: unknown): number => compareValues(field(e, k), v, this.collation) * sign;
    const before = (e: IndexEntry): boolean => {
      const c = prefix(e);
      if (c !== 0 || !range || low.v === undefined) return c < 0;
      const r = cmp(e, low.v);
      return r < 0 || (low.open && r === 0);
    };
    const notAfter = (e: IndexEntry): boolean => {
      const c = prefix(e);
      if (c !== 0 || !range || high.v === undefined) return c <= 0;
      const r = cmp(e, high.v);
      return r < 0 || (!high.open && r === 0);
    };
    const at = (pred: (e: IndexEntry) => boolean): [number, number] => {
      const ci = this.chunkFor(pred);
      return [ci, SortedEntries.position(this.chunks[ci]!, pred)];
    };
    return [at(before), at(notAfter)];
  }

  all(): IndexEntry[] {
    return this.chunks.flat();
  }
}
