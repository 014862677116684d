import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openLmdbStorage } from '../../../src/engine/storage/index.js';
import type { Storage } from '../../../src/engine/storage/index.js';
import { tempDir } from './storage-kinds.js';

describe('lmdb storage: what reopening restores', () => {
  let dir: string;
  let storage: Storage | undefined;
  afterEach(async () => {
    await storage?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const snapshot = (s: Storage): unknown => ({
    all: [...s.scan('app', 'c')],
    byTag: [...s.scan('app', 'c', { index: 'tags_1', range: { min: 'a', max: 'z' } })].map((d) => d._id),
    byN: [...s.scan('app', 'c', { index: 'n_1', equals: [3, 4] })].map((d) => d._id),
  });

  it('reproduces the live documents and index contents after a mixed write sequence', async () => {
    dir = tempDir('storage-reopen-');
    const path = join(dir, 'engine.mdb');
    storage = openLmdbStorage(path);
    const s = storage;
    s.createIndex('app', 'c', { name: 'tags_1', key: { tags: 1 } });
    s.createIndex('app', 'c', { name: 'n_1', key: { n: 1 }, unique: true, sparse: true });
    for (let i = 0; i < 200; i++) s.insert('app', 'c', { _id: i, n: i, tags: [`t${i % 7}`, 'common'] });
    for (let i = 0; i < 200; i += 3) s.remove('app', 'c', i);
    for (let i = 1; i < 200; i += 5) if (i % 3 !== 0) s.replace('app', 'c', { _id: i, tags: [`r${i % 4}`] });
    const before = snapshot(s);
    await s.close();

    storage = openLmdbStorage(path);
    expect(snapshot(storage)).toEqual(before);
  });

  it('starts empty on a new path and reports itself durable', () => {
    dir = tempDir('storage-new-');
    storage = openLmdbStorage(join(dir, 'engine.mdb'));
    expect(storage.durable).toBe(true);
    expect(storage.databases()).toEqual([]);
  });
});
