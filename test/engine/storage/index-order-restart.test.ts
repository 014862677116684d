import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ScanPlan } from '../../../src/engine/model/index.js';
import { openLmdbStorage } from '../../../src/engine/storage/index.js';
import { tempDir } from './storage-kinds.js';

/**
 * Compound indexes keep their entries in full key order (what index-provided
 * sorts walk) and know whether they are multikey; both are rebuilt from the
 * stored documents when lmdb storage reopens.
 */
describe('lmdb storage: index key order across a restart', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const ids = (docs: Iterable<{ _id?: unknown }>) => [...docs].map((d) => d._id);
  const tenantB: ScanPlan = { index: 't_1_n_-1', keyBounds: { equals: ['b'] } };

  it('scans a compound index in key order, forwards and backwards, with bounds, before and after reopening', async () => {
    dir = tempDir('index-order-');
    const dbPath = join(dir, 'engine.mdb');
    const first = openLmdbStorage(dbPath);
    first.createIndex('app', 'c', { name: 't_1_n_-1', key: { t: 1, n: -1 } });
    first.createIndex('app', 'c', { name: 'tags_1', key: { tags: 1 } });
    for (const [id, t, n] of [[1, 'b', 5], [2, 'a', 9], [3, 'b', 7], [4, 'b', 1], [5, 'c', 3]] as const) first.insert('app', 'c', { _id: id, t, n });
    first.insert('app', 'c', { _id: 6, t: 'b', n: 6, tags: ['x', 'y'] });
    const before = {
      forward: ids(first.scan('app', 'c', tenantB)),
      backward: ids(first.scan('app', 'c', { ...tenantB, backward: true })),
      range: ids(first.scan('app', 'c', { index: 't_1_n_-1', keyBounds: { equals: ['b'], range: { min: 5, minInclusive: true, max: 7, maxInclusive: false } } })),
      counted: first.countKeys('app', 'c', tenantB),
      multikey: first.multikeyIndexes('app', 'c'),
    };
    await first.close();

    const reopened = openLmdbStorage(dbPath);
    try {
      const after = {
        forward: ids(reopened.scan('app', 'c', tenantB)),
        backward: ids(reopened.scan('app', 'c', { ...tenantB, backward: true })),
        range: ids(reopened.scan('app', 'c', { index: 't_1_n_-1', keyBounds: { equals: ['b'], range: { min: 5, minInclusive: true, max: 7, maxInclusive: false } } })),
        counted: reopened.countKeys('app', 'c', tenantB),
        multikey: reopened.multikeyIndexes('app', 'c'),
      };
      const expected = { forward: [3, 6, 1, 4], backward: [4, 1, 6, 3], range: [6, 1], counted: 4, multikey: ['tags_1'] };
      expect(before).toEqual(expected);
      expect(after).toEqual(expected);
    } finally {
      await reopened.close();
    }
  });
});
