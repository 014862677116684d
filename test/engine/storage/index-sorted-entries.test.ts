import { describe, expect, it, vi } from 'vitest';
import { SortedEntries } from '../../../src/engine/storage/index-sorted-entries.js';
import { indexEntry, keyAt } from '../../../src/engine/storage/index-sorted-entries.js';
import type { IndexEntry } from '../../../src/engine/storage/index-sorted-entries.js';

/** Deterministic pseudo-random ints (no flaky seeds). */
function* lcg(seed: number): Generator<number> {
  let x = seed;
  for (;;) {
    x = (x * 1103515245 + 12345) % 2147483648;
    yield x;
  }
}

describe('SortedEntries (the ordered part of every index)', () => {
  // Enough entries to split chunks many times, with many duplicate values.
  const rand = lcg(42);
  const entries: IndexEntry[] = Array.from({ length: 5000 }, (_, i) => ({
    value: rand.next().value! % 700,
    idKey: `id${i}`,
  }));
  const removed = new Set(entries.filter((_, i) => i % 3 === 0).map((e) => e.idKey));
  const kept = entries.filter((e) => !removed.has(e.idKey));
  const idsOf = (list: readonly IndexEntry[]): string[] => list.map((e) => e.idKey);
  const expected = (test: (v: number) => boolean): string[] =>
    kept
      .filter((e) => test(e.value as number))
      .sort((a, b) => (a.value as number) - (b.value as number) || (a.idKey < b.idKey ? -1 : 1))
      .map((e) => e.idKey);

  function filled(): SortedEntries {
    const sorted = new SortedEntries();
    for (const e of entries) sorted.insert(e);
    for (const e of entries) if (removed.has(e.idKey)) expect(sorted.remove(e)).toBe(true);
    return sorted;
  }

  it('keeps every remaining entry in value order after random inserts and removals', () => {
    const sorted = filled();
    expect(sorted.size).toBe(kept.length);
    expect(idsOf(sorted.all())).toEqual(expected(() => true));
  });

  it('finds exactly the entries equal to a value', () => {
    expect(idsOf(filled().equal(123))).toEqual(expected((v) => v === 123));
  });

  it('returns ranges with inclusive and exclusive bounds', () => {
    const sorted = filled();
    expect(idsOf(sorted.range({ min: 100, max: 200 }))).toEqual(expected((v) => v >= 100 && v <= 200));
    expect(idsOf(sorted.range({ min: 100, minInclusive: false, max: 200, maxInclusive: false }))).toEqual(
      expected((v) => v > 100 && v < 200),
    );
    expect(idsOf(sorted.range({ max: 5 }))).toEqual(expected((v) => v <= 5));
    expect(idsOf(sorted.range({ min: 695 }))).toEqual(expected((v) => v >= 695));
  });

  it('gives the same order when bulk-loaded as when built one by one', () => {
    const bulk = new SortedEntries();
    bulk.load([...kept]);
    bulk.insert({ value: 50, idKey: 'late' });
    const one = filled();
    one.insert({ value: 50, idKey: 'late' });
    expect(idsOf(bulk.all())).toEqual(idsOf(one.all()));
  });

  // idKeysIn gives the documents of a bounded run one at a time.
  it.each([
    ['one value', { equals: [123] }],
    ['a range inside one chunk', { equals: [], range: { min: 100, max: 101 } }],
    ['a range over many chunks', { equals: [], range: { min: 10, minInclusive: false, max: 600 } }],
    ['everything', { equals: [] }],
    ['nothing', { equals: [999] }],
  ])('idKeysIn gives within()\'s documents for %s, forwards and backwards', (_name, bounds) => {
    const sorted = filled();
    const run = idsOf(sorted.within(bounds));
    expect([...sorted.idKeysIn(bounds)]).toEqual(run);
    expect([...sorted.idKeysIn(bounds, true)]).toEqual([...run].reverse());
  });

  // A walk paused while entries change (a cursor between getMores) goes on after the last entry it gave.
  describe.each([false, true])('idKeysIn paused while entries change (backward: %s)', (backward) => {
    const bounds = { equals: [], range: { min: 100, max: 400 } };
    const runOf = (sorted: SortedEntries): string[] => {
      const run = idsOf(sorted.within(bounds));
      return backward ? run.reverse() : run;
    };
    const take = (walk: Iterator<string>, n: number): string[] =>
      Array.from({ length: n }, () => walk.next()).flatMap((step) => (step.done ? [] : [step.value]));

    it('gives the rest of the run as it is then: removed entries left out, later ones in, none twice', () => {
      const sorted = filled();
      const walk = sorted.idKeysIn(bounds, backward)[Symbol.iterator]();
      const first = take(walk, 150);
      expect(first).toEqual(runOf(sorted).slice(0, 150));
      // Between two steps: remove entries behind and ahead, add some ahead and behind, move one given entry ahead.
      const ahead = runOf(sorted).slice(200, 260);
      for (const idKey of ahead.filter((_, i) => i % 2 === 0)) {
        expect(sorted.remove(kept.find((e) => e.idKey === idKey)!)).toBe(true);
      }
      const mid = backward ? 250 : 250;
      const added = Array.from({ length: 40 }, (_, i) => ({ value: i % 2 === 0 ? mid + (i % 7) : 100 + (i % 5), idKey: `new${i}` }));
      for (const e of added) sorted.insert(e);
      const moved = kept.find((e) => e.idKey === first[10])!;
      expect(sorted.remove(moved)).toBe(true);
      sorted.insert({ value: mid, idKey: moved.idKey });
      const rest = [...take(walk, 100_000)];
      // What comes next is the run as it now is, after the last entry given, without what was given already.
      const now = runOf(sorted);
      const after = now.slice(now.indexOf(first.at(-1)!) + 1).filter((id) => !first.includes(id));
      expect(rest).toEqual(after);
      expect(new Set([...first, ...rest]).size).toBe(first.length + rest.length);
      expect(rest.some((id) => id.startsWith('new'))).toBe(true);
    });

    it('stops at the run\'s end when everything after the last entry it gave is gone', () => {
      const sorted = filled();
      const walk = sorted.idKeysIn(bounds, backward)[Symbol.iterator]();
      const first = take(walk, 5);
      for (const idKey of runOf(sorted).slice(5)) expect(sorted.remove(kept.find((e) => e.idKey === idKey)!)).toBe(true);
      expect(first).toHaveLength(5);
      expect(walk.next().done).toBe(true);
    });
  });

  it('reports removing an absent entry as false', () => {
    expect(filled().remove({ value: 1, idKey: 'nope' })).toBe(false);
  });

  // Compound entries hold their key values inline (k1..k3, then `more`): every width must sort
  // by each field in turn, in its direction, and read back the values it was built from.
  describe.each([2, 3, 4, 6])('compound entries of %i key fields', (width) => {
    const signs = Array.from({ length: width - 1 }, (_, i) => (i % 2 === 0 ? -1 : 1));
    const r = lcg(width);
    // Strings built apart (not one shared instance) with many repeats: neighbours share them.
    const tuples = Array.from({ length: 3000 }, () => Array.from({ length: width }, (_, f) => (f === 1 ? `user-${r.next().value! % 7}` : r.next().value! % 4)));
    const made = tuples.map((t, i) => indexEntry(t, `id${String(i).padStart(5, '0')}`));
    const reference = (list: readonly IndexEntry[]): string[] =>
      [...list]
        .sort((a, b) => {
          for (let f = 0; f < width; f++) {
            const x = keyAt(a, f) as number | string;
            const y = keyAt(b, f) as number | string;
            if (x !== y) return (x < y ? -1 : 1) * (f === 0 ? 1 : signs[f - 1]!);
          }
          return a.idKey < b.idKey ? -1 : 1;
        })
        .map((e) => e.idKey);

    it('reads back every key value it was built from', () => {
      made.forEach((e, i) => expect(Array.from({ length: width }, (_, f) => keyAt(e, f))).toEqual(tuples[i]));
    });

    it('keeps index order after inserts and removals, and when bulk-loaded', () => {
      const one = new SortedEntries(undefined, signs);
      for (const e of made) one.insert(e);
      for (const e of made.filter((_, i) => i % 4 === 0)) expect(one.remove(indexEntry(tuples[made.indexOf(e)]!, e.idKey))).toBe(true);
      const left = made.filter((_, i) => i % 4 !== 0);
      expect(idsOf(one.all())).toEqual(reference(left));
      const bulk = new SortedEntries(undefined, signs);
      bulk.load([...left]);
      expect(idsOf(bulk.all())).toEqual(idsOf(one.all()));
      const bounds = { equals: [2, 'user-3'] };
      expect(idsOf(one.within(bounds))).toEqual(reference(left.filter((e) => keyAt(e, 0) === 2 && keyAt(e, 1) === 'user-3')));
    });
  });

  // An insert first tries the place beside the last one (keys that grow); the entries around it must confirm it.
  describe('inserts beside the last insert', () => {
    // {tenant: 1, _id: -1} as the audit trail's indexes: growing ids within each tenant, tenants interleaved.
    const signs = [-1];
    const tenantOf = (i: number): string => `tenant-${[0, 0, 0, 1, 0, 2, 1, 0][i % 8]}`;
    const made = Array.from({ length: 4000 }, (_, i) => indexEntry([tenantOf(i), i], `id${String(i).padStart(5, '0')}`));
    const reference = (list: readonly IndexEntry[]): string[] =>
      [...list]
        .sort((a, b) => (a.value === b.value ? (keyAt(b, 1) as number) - (keyAt(a, 1) as number) : (a.value as string) < (b.value as string) ? -1 : 1))
        .map((e) => e.idKey);

    it('keeps index order with growing, shrinking, interleaved and random keys, removals between', () => {
      const sorted = new SortedEntries(undefined, signs);
      const r = lcg(7);
      const kept: IndexEntry[] = [];
      made.forEach((e, i) => {
        sorted.insert(e);
        kept.push(e);
        // Now and then a removal just where the last insert went, or anywhere.
        if (i % 97 === 96) expect(sorted.remove(kept.splice(kept.length - 1, 1)[0]!)).toBe(true);
        if (i % 89 === 88) expect(sorted.remove(kept.splice(r.next().value! % kept.length, 1)[0]!)).toBe(true);
      });
      // Shrinking keys (a descending run appended backwards), then random ones.
      for (let i = 0; i < 1500; i++) {
        const e = indexEntry(['tenant-1', -i], `down${String(i).padStart(5, '0')}`);
        sorted.insert(e);
        kept.push(e);
      }
      for (let i = 0; i < 1500; i++) {
        const e = indexEntry([`tenant-${r.next().value! % 4}`, r.next().value! % 5000], `rand${String(i).padStart(5, '0')}`);
        sorted.insert(e);
        kept.push(e);
      }
      expect(sorted.size).toBe(kept.length);
      expect(idsOf(sorted.all())).toEqual(reference(kept));
    });

    it('places a growing key with a few comparisons, not a search', () => {
      const sorted = new SortedEntries(undefined, signs);
      for (const e of made.slice(0, 2000)) sorted.insert(indexEntry(['tenant-0', keyAt(e, 1)], e.idKey));
      const compare = vi.spyOn(SortedEntries.prototype as unknown as { compare(a: IndexEntry, b: IndexEntry): number }, 'compare');
      for (const e of made.slice(2000)) sorted.insert(indexEntry(['tenant-0', keyAt(e, 1)], e.idKey));
      // A binary search over 2000+ entries takes 11 or more comparisons an insert.
      expect(compare.mock.calls.length).toBeLessThanOrEqual(2 * 2000);
      compare.mockRestore();
      expect(idsOf(sorted.all())).toEqual(made.map((e) => e.idKey).reverse());
    });
  });
});
