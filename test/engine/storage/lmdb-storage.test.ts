import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { BSON, UUID } from 'bson';
import { open } from 'lmdb';
import { afterEach, describe, expect, it } from 'vitest';
import { idKeyOf } from '../../../src/engine/storage/collection-data.js';
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

  /** A store as written before record numbers moved into `docs`: raw BSON values, numbers in `records`. */
  async function writeLegacyStore(path: string, docs: Array<{ _id: number; record: number; t?: Date }>, options: object = {}): Promise<void> {
    const env = open({ path, maxDbs: 4 });
    const uuid = new UUID().toBinary();
    const hex = uuid.toString('hex');
    const info = { db: 'app', name: 'c', uuid, options, indexes: [{ v: 2, key: { _id: 1 }, name: '_id_' }] };
    await env.openDB({ name: 'catalog', encoding: 'binary' }).put(hex, Buffer.from(BSON.serialize(info)));
    const docsDb = env.openDB<Buffer, [string, string]>({ name: 'docs', encoding: 'binary' });
    const records = env.openDB<number, [string, string]>({ name: 'records' });
    for (const { record, ...d } of docs) {
      await docsDb.put([hex, idKeyOf(d._id)], Buffer.from(BSON.serialize({ ...d, v: record })));
      await records.put([hex, idKeyOf(d._id)], record);
    }
    await env.close();
  }

  async function legacyRecordCount(path: string): Promise<number> {
    const env = open({ path, maxDbs: 4 });
    const n = env.openDB({ name: 'records' }).getKeysCount();
    await env.close();
    return n;
  }

  const ids = (s: Storage): unknown[] => [...s.scan('app', 'c')].map((d) => d._id);

  it('restores the natural order of a store written before record numbers moved into the documents, and keeps it', async () => {
    dir = tempDir('storage-legacy-');
    const path = join(dir, 'engine.mdb');
    // lmdb keeps keys sorted (1, 2, 3): only the record numbers give the insertion order 3, 1, 2.
    await writeLegacyStore(path, [
      { _id: 3, record: 1 },
      { _id: 1, record: 2 },
      { _id: 2, record: 3 },
    ]);
    storage = openLmdbStorage(path);
    expect(ids(storage)).toEqual([3, 1, 2]);
    storage.replace('app', 'c', { _id: 3, v: 'changed' });
    storage.insert('app', 'c', { _id: 0 });
    await storage.close();
    expect(await legacyRecordCount(path)).toBe(0);

    storage = openLmdbStorage(path);
    expect(ids(storage)).toEqual([3, 1, 2, 0]);
    expect(storage.findById('app', 'c', 3)).toEqual({ _id: 3, v: 'changed' });
  });

  it('re-keys the measurements of a time-series collection stored by _id: its _id index goes, shared _ids are then taken', async () => {
    dir = tempDir('storage-ts-rekey-');
    const path = join(dir, 'engine.mdb');
    const t = new Date('2026-01-01T00:00:00Z');
    await writeLegacyStore(path, [{ _id: 2, record: 1, t }, { _id: 1, record: 2, t }], { timeseries: { timeField: 't' } });
    storage = openLmdbStorage(path);
    expect(storage.collection('app', 'c')?.indexes).toEqual([]);
    storage.insert('app', 'c', { _id: 1, t, v: 3 });
    await storage.close();

    storage = openLmdbStorage(path);
    expect([...storage.scan('app', 'c')].map((d) => [d._id, d.v])).toEqual([
      [2, 1],
      [1, 2],
      [1, 3],
    ]);
  });

  it('keeps natural order across restarts when documents are replaced and re-inserted', async () => {
    dir = tempDir('storage-records-');
    const path = join(dir, 'engine.mdb');
    storage = openLmdbStorage(path);
    for (const id of [5, 2, 9, 1]) storage.insert('app', 'c', { _id: id });
    storage.replace('app', 'c', { _id: 5, grown: 'x'.repeat(500) });
    storage.remove('app', 'c', 2);
    storage.insert('app', 'c', { _id: 2 });
    await storage.close();

    storage = openLmdbStorage(path);
    expect(ids(storage)).toEqual([5, 9, 1, 2]);
    storage.replace('app', 'c', { _id: 9, again: true });
    storage.insert('app', 'c', { _id: 7 });
    await storage.close();

    storage = openLmdbStorage(path);
    expect(ids(storage)).toEqual([5, 9, 1, 2, 7]);
    expect(storage.findById('app', 'c', 9)).toEqual({ _id: 9, again: true });
  });
});
