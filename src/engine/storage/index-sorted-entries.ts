import { compareValues } from '../query/index.js';
import type { Collation } from '../query/index.js';

/**
 * One index entry: the document it points to and its key values, the first
 * one in `value`, the next three (a compound index) inline in `k1`..`k3`, any
 * further ones in `more`. Inline rather than an array because the garbage
 * collector walks every entry of every index: one object per entry instead
 * of an object, an array and its elements (three) halves an index's share of
 * the engine's heap walk.
 * Read the key values with keyAt; build entries with indexEntry (one object
 * shape per key width).
 */
export interface IndexEntry {
  value: unknown;
  idKey: string;
  k1?: unknown;
  k2?: unknown;
  k3?: unknown;
  more?: unknown[];
}

/** The entry of one key tuple (`values`, in index field order) of document `idKey`. */
export function indexEntry(values: readonly unknown[], idKey: string): IndexEntry {
  switch (values.length) {
    case 1:
      return { value: values[0], idKey };
    case 2:
      return { value: values[0], idKey, k1: values[1] };
    case 3:
      return { value: values[0], idKey, k1: values[1], k2: values[2] };
    case 4:
      return { value: values[0], idKey, k1: values[1], k2: values[2], k3: values[3] };
    default:
      return { value: values[0], idKey, k1: values[1], k2: values[2], k3: values[3], more: values.slice(4) };
  }
}

/** Key value `i` (0: the first field) of an entry. */
export function keyAt(e: IndexEntry, i: number): unknown {
  switch (i) {
    case 0:
      return e.value;
    case 1:
      return e.k1;
    case 2:
      return e.k2;
    case 3:
      return e.k3;
    default:
      return e.more?.[i - 4];
  }
}

function setKeyAt(e: IndexEntry, i: number, v: unknown): void {
  if (i === 0) e.value = v;
  else if (i === 1) e.k1 = v;
  else if (i === 2) e.k2 = v;
  else if (i === 3) e.k3 = v;
  else e.more![i - 4] = v;
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
  /** Changes with every insert, removal and load: a walk paused meanwhile finds its place again (idKeysIn). */
  private version = 0;
  /**
   * Where the last insert went ([chunk, position]): keys that grow (an
   * ObjectId, a time, after an equal prefix such as the tenant) put the next
   * entry right beside it, which two comparisons confirm instead of a
   * search's ~17 (besideLastInsert). Only a guess: checked against the entries
   * beside it at every use, so a stale one costs a search, never the order.
   */
  private lastInsert: [number, number] = [-1, -1];
  /** Key values per entry: 1 for a single-field index, the field count for a compound one. */
  private readonly width: number;

  /**
   * `signs`: the direction of each key field after the first relative to the
   * first one (index {a: 1, b: -1}: [-1]). The first field is always kept
   * ascending, so a scan in index order walks forwards or backwards.
   */
  constructor(
    private readonly collation?: Collation,
    private readonly signs: readonly number[] = [],
  ) {
    this.width = signs.length + 1;
  }

  get size(): number {
    return this.count;
  }

  private compare(a: IndexEntry, b: IndexEntry): number {
    const c = compareValues(a.value, b.value, this.collation);
    if (c !== 0) return c;
    for (let i = 1; i < this.width; i++) {
      const r = compareValues(keyAt(a, i), keyAt(b, i), this.collation);
      if (r !== 0) return r * this.signs[i - 1]!;
    }
    return a.idKey < b.idKey ? -1 : a.idKey > b.idKey ? 1 : 0;
  }

  /** Replaces the content in one sort (index builds and restores). */
  load(entries: IndexEntry[]): void {
    entries.sort((a, b) => this.compare(a, b));
    for (let i = 1; i < entries.length; i++) this.shareStrings(entries[i]!, entries[i - 1]!);
    this.chunks = [];
    for (let i = 0; i < entries.length; i += CHUNK / 2) this.chunks.push(entries.slice(i, i + CHUNK / 2));
    this.count = entries.length;
    this.lastInsert = [-1, -1];
    this.version++;
  }

  /**
   * Points `entry`'s string key values at its sorted neighbour's equal ones
   * (same tenant, same action...), so that an index holds one string per run
   * of equal values, not one per entry; the entry's own copies (decoded from
   * its document) become garbage at once. Sorted neighbours share their
   * leading values, so this finds most repeats at no search cost.
   */
  private shareStrings(entry: IndexEntry, neighbour: IndexEntry): void {
    for (let i = 0; i < this.width; i++) {
      const mine = keyAt(entry, i);
      if (typeof mine !== 'string') continue;
      const theirs = keyAt(neighbour, i);
      if (mine === theirs) setKeyAt(entry, i, theirs);
    }
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

  /** [chunk, position] of the first entry `isBefore` is false for (or the end of the last chunk); the chunks must not be empty. */
  private firstNotBefore(isBefore: (e: IndexEntry) => boolean): [number, number] {
    const ci = this.chunkFor(isBefore);
    return [ci, SortedEntries.position(this.chunks[ci]!, isBefore)];
  }

  insert(entry: IndexEntry): void {
    if (this.chunks.length === 0) {
      this.chunks.push([entry]);
      this.count = 1;
      this.lastInsert = [0, 0];
      return;
    }
    let [ci, pos] = this.besideLastInsert(entry) ?? this.firstNotBefore((e) => this.compare(e, entry) < 0);
    const chunk = this.chunks[ci]!;
    // Either neighbour may be the one sharing values (an entry can open or close its run).
    if (pos > 0) this.shareStrings(entry, chunk[pos - 1]!);
    if (pos < chunk.length) this.shareStrings(entry, chunk[pos]!);
    chunk.splice(pos, 0, entry);
    this.count++;
    this.version++;
    if (chunk.length > CHUNK) {
      this.chunks.splice(ci + 1, 0, chunk.splice(CHUNK / 2));
      if (pos >= CHUNK / 2) [ci, pos] = [ci + 1, pos - CHUNK / 2];
    }
    this.lastInsert = [ci, pos];
  }

  /**
   * Just before the entry the last insert placed (a descending field: the
   * newest first) or just after it (ascending), when the entries on both
   * sides confirm that `entry` belongs there; otherwise undefined.
   */
  private besideLastInsert(entry: IndexEntry): [number, number] | undefined {
    const [ci, pos] = this.lastInsert;
    const chunk = this.chunks[ci];
    const last = chunk?.[pos];
    if (last === undefined) return undefined;
    const c = this.compare(entry, last);
    if (c < 0) {
      const before = pos > 0 ? chunk![pos - 1] : this.chunks[ci - 1]?.at(-1);
      return before === undefined || this.compare(before, entry) < 0 ? [ci, pos] : undefined;
    }
    if (c > 0) {
      const after = pos + 1 < chunk!.length ? chunk![pos + 1] : this.chunks[ci + 1]?.[0];
      return after === undefined || this.compare(entry, after) < 0 ? [ci, pos + 1] : undefined;
    }
    return undefined;
  }

  remove(entry: IndexEntry): boolean {
    if (this.chunks.length === 0) return false;
    const [ci, pos] = this.firstNotBefore((e) => this.compare(e, entry) < 0);
    const chunk = this.chunks[ci]!;
    const found = chunk[pos];
    if (found === undefined || found.idKey !== entry.idKey || this.compare(found, entry) !== 0) return false;
    chunk.splice(pos, 1);
    this.count--;
    this.version++;
    if (chunk.length === 0) this.chunks.splice(ci, 1);
    return true;
  }

  /** Entries from the first one not before `isBefore`, while `inRange` holds. */
  private collect(isBefore: ((e: IndexEntry) => boolean) | undefined, inRange: (e: IndexEntry) => boolean): IndexEntry[] {
    const out: IndexEntry[] = [];
    if (this.chunks.length === 0) return out;
    let [ci, pos] = isBefore ? this.firstNotBefore(isBefore) : [0, 0];
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
   * (`backward`) reversed, one at a time as the caller asks: a page of 20
   * from a run of 200k reads 20 entries, not 200k ids. A walk paused while
   * entries change (a cursor between getMores, writes meanwhile) finds its
   * place again after the last entry it gave, by key, as mongod's index
   * scans restore their position: an entry inserted further along the run
   * is then given too, one removed is not, and no document is given twice
   * (a document whose key moved ahead is skipped the second time).
   */
  *idKeysIn(bounds: KeyBounds, backward = false): Generator<string, void, undefined> {
    let [[ci, pos], [endCi, endPos]] = this.runOf(bounds);
    // Backward: start at the run's last entry and stop before its first.
    if (backward) [ci, pos, endCi, endPos] = [endCi, endPos - 1, ci, pos];
    const given = new Set<string>();
    let version = this.version;
    let last: IndexEntry | undefined;
    for (;;) {
      if (version !== this.version) {
        version = this.version;
        [[ci, pos], [endCi, endPos]] = this.resumeAfter(bounds, last!, backward);
      }
      // Normalize [ci, pos] onto an entry (positions run off a chunk's ends at its boundaries).
      if (!backward) {
        while (ci < this.chunks.length && pos >= this.chunks[ci]!.length) [ci, pos] = [ci + 1, 0];
        if (ci > endCi || (ci === endCi && pos >= endPos) || ci >= this.chunks.length) return;
      } else {
        while (ci >= 0 && pos < 0) [ci, pos] = [ci - 1, (this.chunks[ci - 1]?.length ?? 0) - 1];
        if (ci < endCi || (ci === endCi && pos < endPos) || ci < 0) return;
      }
      const entry = this.chunks[ci]![pos]!;
      pos += backward ? -1 : 1;
      last = entry;
      if (given.has(entry.idKey)) continue;
      given.add(entry.idKey);
      yield entry.idKey;
    }
  }

  /**
   * Where a walk of `bounds` goes on after `last` (which may be gone):
   * forwards, the first entry after it, up to the run's end; backwards, the
   * last entry before it, down to the run's start (as idKeysIn counts them).
   */
  private resumeAfter(bounds: KeyBounds, last: IndexEntry, backward: boolean): [[number, number], [number, number]] {
    const [start, end] = this.runOf(bounds);
    if (this.chunks.length === 0) return backward ? [[-1, -1], start] : [[0, 0], end];
    if (!backward) return [this.firstNotBefore((e) => this.compare(e, last) <= 0), end];
    const [ci, pos] = this.firstNotBefore((e) => this.compare(e, last) < 0);
    return [[ci, pos - 1], start];
  }

  /** How many entries `within(bounds)` holds, without collecting them (planning). */
  countWithin(bounds: KeyBounds): number {
    const [start, end] = this.runOf(bounds);
    return this.entriesBetween(start, end);
  }

  /** How many entries lie from `start` up to (not including) `end`. */
  private entriesBetween(start: readonly [number, number], end: readonly [number, number]): number {
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
    const prefix = (e: IndexEntry): number => {
      for (let i = 0; i < k; i++) {
        const c = compareValues(keyAt(e, i), bounds.equals[i], this.collation) * (i === 0 ? 1 : (this.signs[i - 1] ?? 1));
        if (c !== 0) return c;
      }
      return 0;
    };
    // In stored order a descending field runs from its max to its min.
    const low = sign > 0 ? { v: range?.min, open: range?.minInclusive === false } : { v: range?.max, open: range?.maxInclusive === false };
    const high = sign > 0 ? { v: range?.max, open: range?.maxInclusive === false } : { v: range?.min, open: range?.minInclusive === false };
    const cmp = (e: IndexEntry, v: unknown): number => compareValues(keyAt(e, k), v, this.collation) * sign;
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
    return [this.firstNotBefore(before), this.firstNotBefore(notAfter)];
  }

  all(): IndexEntry[] {
    return this.chunks.flat();
  }
}
