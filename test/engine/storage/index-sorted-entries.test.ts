import { describe, expect, it } from 'vitest';
import { SortedEntries } from '../../../src/engine/storage/index-sorted-entries.js';
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

  // idKeysWithin collects the documents of a bounded run without an entry list in between.
  it.each([
    ['one value', { equals: [123] }],
    ['a range inside one chunk', { equals: [], range: { min: 100, max: 101 } }],
    ['a range over many chunks', { equals: [], range: { min: 10, minInclusive: false, max: 600 } }],
    ['everything', { equals: [] }],
    ['nothing', { equals: [999] }],
  ])('idKeysWithin gives within()\'s documents for %s, forwards and backwards', (_name, bounds) => {
    const sorted = filled();
    const run = idsOf(sorted.within(bounds));
    expect(sorted.idKeysWithin(bounds)).toEqual(run);
    expect(sorted.idKeysWithin(bounds, true)).toEqual([...run].reverse());
  });

  it('reports removing an absent entry as false', () => {
    expect(filled().remove({ value: 1, idKey: 'nope' })).toBe(false);
  });
});
