import { rmSync } from 'node:fs';
import { open as openFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { MongoClient } from 'mongodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startEngine } from '../../../src/engine/index.js';
import { mustStopNow, openLmdbStorage, type Storage } from '../../../src/engine/storage/index.js';
import { tempDir } from './storage-kinds.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Heap bytes in use after full GCs (the least of a few rounds a moment apart: the machine is busy). */
async function heapAfterGc(): Promise<number> {
  let least = Infinity;
  for (let round = 0; round < 4; round += 1) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 20 + round * 30));
    least = Math.min(least, process.memoryUsage().heapUsed);
  }
  return least;
}

/**
 * What memory keeps of the changes a full disk refused: document changes
 * are taken back (reads then show what the disk holds, read-only until
 * space is back); a refused collection or index change cannot be, and the
 * engine stops serving at once instead of answering reads the disk
 * contradicts. The log's writes fail as a full disk fails them (ENOSPC).
 */
describe('lmdb storage: changes a full disk refused', () => {
  const dirs: string[] = [];
  const storages: Storage[] = [];
  const opened = (checkpointEveryMs = 3_600_000): Storage => {
    const dir = tempDir('refused-');
    dirs.push(dir);
    const storage = openLmdbStorage(join(dir, 'engine.mdb'), { checkpointEveryMs });
    storages.push(storage);
    return storage;
  };
  const restores: Array<() => void> = [];
  afterEach(async () => {
    for (const restore of restores.splice(0)) restore();
    for (const storage of storages.splice(0)) await storage.close().catch(() => undefined);
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  /** From now on every write of a file handle fails with ENOSPC. */
  async function diskFull(): Promise<void> {
    const dir = tempDir('probe-');
    dirs.push(dir);
    const probe = await openFile(join(dir, 'probe'), 'w');
    const prototype = Object.getPrototypeOf(probe) as { writev: (...args: unknown[]) => Promise<unknown> };
    await probe.close();
    const spy = vi.spyOn(prototype, 'writev').mockRejectedValue(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }));
    restores.push(() => spy.mockRestore());
  }

  it('takes refused document changes back (reads show the disk) and stays read-only', async () => {
    const storage = opened();
    storage.insert('app', 'menus', { _id: 'changed', v: 1 });
    storage.insert('app', 'menus', { _id: 'removed', v: 1 });
    await storage.flush();
    await diskFull();
    storage.replace('app', 'menus', { _id: 'changed', v: 2 });
    storage.remove('app', 'menus', 'removed');
    storage.insert('app', 'menus', { _id: 'added', v: 1 });
    await expect(storage.flush()).rejects.toMatchObject({ codeName: 'OutOfDiskSpace' });
    const failure = await storage.failed;
    expect(mustStopNow(failure)).toBe(false);
    expect(storage.findById('app', 'menus', 'changed')).toMatchObject({ v: 1 });
    expect(storage.findById('app', 'menus', 'removed')).toMatchObject({ v: 1 });
    expect(storage.findById('app', 'menus', 'added')).toBeUndefined();
  });

  it.each([
    ['a dropped collection', (storage: Storage) => storage.dropCollection('app', 'menus')],
    ['a new collection', (storage: Storage) => storage.createCollection('app', 'drinks')],
    ['a new index', (storage: Storage) => storage.createIndex('app', 'menus', { name: 'v_1', key: { v: 1 } })],
  ])('calls for a stop at once when %s was refused (memory cannot be brought back)', async (_, change) => {
    const storage = opened();
    storage.insert('app', 'menus', { _id: 'kept', v: 1 });
    await storage.flush();
    await diskFull();
    change(storage);
    await expect(storage.flush()).rejects.toMatchObject({ codeName: 'OutOfDiskSpace' });
    expect(mustStopNow(await storage.failed)).toBe(true);
  });

  it('keeps an undo entry only until the log has written its group: a dropped collection is freed without a later write', async () => {
    const storage = opened(20);
    const before = await heapAfterGc();
    const documents = 2_000;
    for (let i = 0; i < documents; i++) storage.insert('app', 'big', { _id: i, text: `${i}:${'x'.repeat(8 * 1024)}` });
    await storage.flush();
    storage.dropCollection('app', 'big');
    await storage.flush();
    // Checkpoints take what waits for them (their copies go): only an undo entry could still hold the collection.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const held = (await heapAfterGc()) - before;
    // The collection held some 16 MB (latin1 strings); a quarter of it left would be the collection still alive.
    expect(held).toBeLessThan((documents * 8 * 1024) / 4);
  });

  it('the engine stops serving at once after such a refusal, and says why', async () => {
    const dir = tempDir('refused-engine-');
    dirs.push(dir);
    const logs: string[] = [];
    const engine = await startEngine({ dbPath: dir, port: 0, log: (line) => logs.push(line) });
    const client = new MongoClient(engine.uri, { serverSelectionTimeoutMS: 1_000 });
    try {
      const menus = client.db('app').collection('menus');
      await menus.insertOne({ _id: 'kept' } as never);
      await diskFull();
      // Refused (OutOfDiskSpace), or cut off by the stop: either way not stored.
      await expect(menus.drop()).rejects.toThrow();
      await engine.failed;
      expect(engine.waitsForSpace()).toBe(false);
      await engine.whenSpaceIsBack();
      // The collection is gone from memory but not from the disk: no read may say so.
      await vi.waitFor(() => expect(logs.join('\n')).toMatch(/could not be taken back from memory: stopping at once/));
      await expect(client.db('app').listCollections().toArray()).rejects.toThrow();
    } finally {
      await client.close();
      await engine.close();
    }
  });
});
