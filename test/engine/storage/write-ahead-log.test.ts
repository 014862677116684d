import { appendFileSync, copyFileSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { open as openFile } from 'node:fs/promises';
import { join } from 'node:path';
import { open } from 'lmdb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openLmdbStorage } from '../../../src/engine/storage/index.js';
import type { Storage } from '../../../src/engine/storage/index.js';
import { changesAfter, segmentsOf, WriteAheadLog } from '../../../src/engine/storage/write-ahead-log.js';
import { flushWrites } from '../../../src/engine/writes/index.js';
import { bufferMemoryAfterGc } from './buffer-memory.js';
import { tempDir } from './storage-kinds.js';

/** Every lmdb environment opened in this file, newest last (each has write methods of its own). */
const lmdbEnvironments = vi.hoisted(() => [] as object[]);
vi.mock('lmdb', async (importOriginal) => {
  const lmdb = await importOriginal<typeof import('lmdb')>();
  return {
    ...lmdb,
    open: (...args: Parameters<typeof lmdb.open>) => {
      const env = lmdb.open(...args);
      lmdbEnvironments.push(env);
      return env;
    },
  };
});

/** No timed checkpoint during a test: only close() (or 20k changes) checkpoints. */
const NEVER = 3_600_000;

/**
 * The files as a crash would leave them: lmdb's file and the log segments,
 * copied while the storage is open (what its process wrote is in the copy,
 * as it would be on disk after kill -9).
 */
function crashCopy(fromDir: string, toDir: string): string {
  for (const name of readdirSync(fromDir)) {
    if (name === 'engine.mdb' || name.includes('.wal-')) copyFileSync(join(fromDir, name), join(toDir, name));
  }
  return join(toDir, 'engine.mdb');
}

/** Documents lmdb itself holds (read directly, not from the storage's memory). */
function lmdbDocuments(dbPath: string): number {
  const env = open({ path: dbPath, maxDbs: 4, readOnly: true });
  try {
    return env.openDB({ name: 'docs', encoding: 'binary' }).getKeysCount();
  } finally {
    void env.close();
  }
}

describe('lmdb storage: the write-ahead log', () => {
  const dirs: string[] = [];
  const openStorages: Storage[] = [];
  const dir = (): string => {
    const made = tempDir('wal-');
    dirs.push(made);
    return made;
  };
  const opened = (dbPath: string, checkpointEveryMs = NEVER): Storage => {
    const storage = openLmdbStorage(dbPath, { checkpointEveryMs });
    openStorages.push(storage);
    return storage;
  };
  afterEach(async () => {
    for (const storage of openStorages.splice(0)) await storage.close().catch(() => undefined);
    for (const made of dirs.splice(0)) rmSync(made, { recursive: true, force: true });
  });

  it('acknowledges a write once the log holds it, before lmdb does; a crash copy replays it', async () => {
    const live = dir();
    const storage = opened(join(live, 'engine.mdb'));
    storage.insert('app', 'menus', { _id: 1, name: 'soup' });
    storage.insert('app', 'menus', { _id: 2, name: 'bread' });
    storage.remove('app', 'menus', 1);
    await storage.flush();

    const copy = crashCopy(live, dir());
    expect(lmdbDocuments(copy)).toBe(0);
    const recovered = opened(copy);
    expect(recovered.findById('app', 'menus', 1)).toBeUndefined();
    expect(recovered.findById('app', 'menus', 2)).toMatchObject({ name: 'bread' });
  });

  describe('written, then synced (as mongod\'s journal)', () => {
    /** Counts fdatasync calls of every file handle (the log's syncs) from here on. */
    async function countSyncs(): Promise<{ count: () => number; restore: () => void }> {
      const handle = await openFile(join(dir(), 'probe'), 'w');
      const prototype = Object.getPrototypeOf(handle) as { datasync: () => Promise<void> };
      await handle.close();
      let calls = 0;
      const datasync = prototype.datasync;
      const spy = vi.spyOn(prototype, 'datasync').mockImplementation(function (this: unknown) {
        calls += 1;
        return datasync.call(this);
      });
      return { count: () => calls, restore: () => spy.mockRestore() };
    }

    it('acknowledges a plain write once written, and syncs it within the commit interval', async () => {
      const storage = opened(join(dir(), 'engine.mdb'));
      const syncs = await countSyncs();
      try {
        storage.insert('app', 'menus', { _id: 1 });
        await flushWrites(storage, { insert: 'menus', writeConcern: { w: 1 } });
        expect(syncs.count()).toBe(0);
        await expect.poll(syncs.count, { timeout: 2000 }).toBeGreaterThan(0);
      } finally {
        syncs.restore();
      }
    });

    it('never counts a write as synced by a sync that began while it was being written', async () => {
      const handle = await openFile(join(dir(), 'probe'), 'w');
      const prototype = Object.getPrototypeOf(handle) as { writev: (...args: unknown[]) => Promise<unknown>; datasync: () => Promise<void> };
      await handle.close();
      const { writev, datasync } = prototype;
      const events: string[] = [];
      let slowWrite = false;
      const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
      const writes = vi.spyOn(prototype, 'writev').mockImplementation(async function (this: unknown, ...args: unknown[]) {
        if (slowWrite) await pause(80);
        const result = await writev.apply(this, args);
        events.push('written');
        return result;
      });
      const syncs = vi.spyOn(prototype, 'datasync').mockImplementation(async function (this: unknown) {
        events.push('sync begins');
        await pause(50);
        return datasync.call(this);
      });
      // No timer: only waiters (j: true) start syncs.
      const log = new WriteAheadLog(join(dir(), 'engine.mdb'), 0, 3_600_000);
      try {
        const change = (key: string) => ({ store: 'catalog' as const, key, value: Buffer.from(key) });
        log.append(change('a'));
        const a = log.syncedAll();
        await log.writtenAll(); // a's sync is under way
        log.append(change('b'));
        const b = log.syncedAll();
        await log.writtenAll(); // b is written while a's sync runs
        slowWrite = true;
        log.append(change('c'));
        const c = log.syncedAll(); // c is still being written when a's sync ends and b's begins
        await Promise.all([a, b, c]);
        // The last write was followed by a sync that began after it.
        expect(events.lastIndexOf('sync begins')).toBeGreaterThan(events.lastIndexOf('written'));
      } finally {
        await log.close();
        writes.mockRestore();
        syncs.mockRestore();
      }
    });

    it.each([
      ['j: true', { w: 1, j: true }],
      ['fsync: true', { fsync: true }],
      ['j: 1', { j: 1 }],
    ])('syncs before acknowledging a write with %s', async (_name, writeConcern) => {
      const storage = opened(join(dir(), 'engine.mdb'));
      const syncs = await countSyncs();
      try {
        storage.insert('app', 'menus', { _id: 1 });
        await flushWrites(storage, { insert: 'menus', writeConcern });
        expect(syncs.count()).toBeGreaterThan(0);
      } finally {
        syncs.restore();
      }
    });
  });

  it('replays a collection created only in the log, with its indexes', async () => {
    const live = dir();
    const storage = opened(join(live, 'engine.mdb'));
    storage.ensureCollection('app', 'users');
    storage.createIndex('app', 'users', { key: { email: 1 }, name: 'email_1', unique: true });
    storage.insert('app', 'users', { _id: 'a', email: 'a@x.test' });
    await storage.flush();

    const recovered = opened(crashCopy(live, dir()));
    expect(recovered.collection('app', 'users')?.indexes.map((index) => index.name)).toContain('email_1');
    expect(() => recovered.insert('app', 'users', { _id: 'b', email: 'a@x.test' })).toThrow(/duplicate key/);
  });

  it('stops a segment at a record cut short or damaged (never acknowledged): what came before is kept', async () => {
    const live = dir();
    const storage = opened(join(live, 'engine.mdb'));
    storage.insert('app', 'menus', { _id: 1 });
    await storage.flush();
    storage.insert('app', 'menus', { _id: 2 });
    await storage.flush();
    const segment = segmentsOf(join(live, 'engine.mdb')).at(-1)![1];
    const whole = readFileSync(segment);

    // Cut short: the last record loses its final byte.
    const cut = dir();
    crashCopy(live, cut);
    writeFileSync(join(cut, segment.slice(live.length + 1)), whole.subarray(0, whole.length - 1));
    const afterCut = opened(join(cut, 'engine.mdb'));
    expect(afterCut.findById('app', 'menus', 1)).toBeDefined();
    expect(afterCut.findById('app', 'menus', 2)).toBeUndefined();

    // Damaged: a flipped byte in the last record's payload fails its checksum.
    const damaged = dir();
    crashCopy(live, damaged);
    const flipped = Buffer.from(whole);
    flipped[flipped.length - 3]! ^= 0xff;
    writeFileSync(join(damaged, segment.slice(live.length + 1)), flipped);
    const afterDamage = opened(join(damaged, 'engine.mdb'));
    expect(afterDamage.findById('app', 'menus', 1)).toBeDefined();
    expect(afterDamage.findById('app', 'menus', 2)).toBeUndefined();

    // Trailing garbage after whole records changes nothing.
    const garbage = dir();
    crashCopy(live, garbage);
    appendFileSync(join(garbage, segment.slice(live.length + 1)), Buffer.from([7, 0, 0, 0, 1]));
    const afterGarbage = opened(join(garbage, 'engine.mdb'));
    expect(afterGarbage.findById('app', 'menus', 2)).toBeDefined();
  });

  it('stops the replay at a damaged segment: nothing from a later segment is applied after a gap', async () => {
    const live = dir();
    const dbPath = join(live, 'engine.mdb');
    const log = new WriteAheadLog(dbPath, 0, 3_600_000);
    log.append({ store: 'catalog', key: 'first', value: Buffer.from('1') });
    log.append({ store: 'catalog', key: 'lost', value: Buffer.from('2') });
    await log.syncedAll();
    log.rotate();
    log.append({ store: 'catalog', key: 'later', value: Buffer.from('3') });
    await log.close();
    const [first] = segmentsOf(dbPath);
    const bytes = readFileSync(first![1]);
    writeFileSync(first![1], bytes.subarray(0, bytes.length - 1));
    const replayed = [...changesAfter(dbPath, 0)].map((change) => change.key);
    expect(replayed).toEqual(['first']);
  });

  it('checkpoints into lmdb on its timer and then removes the segments it holds', async () => {
    const live = dir();
    const dbPath = join(live, 'engine.mdb');
    const storage = opened(dbPath, 10);
    for (let i = 0; i < 50; i++) storage.insert('app', 'menus', { _id: i });
    await storage.flush();
    await expect.poll(() => lmdbDocuments(dbPath), { timeout: 5000 }).toBe(50);
    await expect.poll(() => segmentsOf(dbPath).length, { timeout: 5000 }).toBe(0);
  });

  it('keeps the changes waiting for a checkpoint out of Buffer memory, and checkpoints them intact', async () => {
    const dbPath = join(dir(), 'engine.mdb');
    const storage = opened(dbPath);
    storage.insert('app', 'warm', { _id: 0 });
    await storage.flush();
    const before = await bufferMemoryAfterGc();
    for (let i = 0; i < 4000; i++) storage.insert('app', 'menus', { _id: i, text: 'x'.repeat(500) });
    await storage.flush();
    expect(lmdbDocuments(dbPath)).toBe(0);
    // 4000 changes of ~540 bytes wait: 2 MiB if each held a Buffer.
    expect((await bufferMemoryAfterGc()) - before).toBeLessThan(200_000);
    await storage.close();
    const reopened = opened(dbPath);
    expect(reopened.findById('app', 'menus', 3999)).toEqual({ _id: 3999, text: 'x'.repeat(500) });
  });

  it('checkpoints everything on close and leaves no segment', async () => {
    const live = dir();
    const dbPath = join(live, 'engine.mdb');
    const storage = opened(dbPath);
    for (let i = 0; i < 50; i++) storage.insert('app', 'menus', { _id: i });
    await storage.flush();
    expect(segmentsOf(dbPath).length).toBeGreaterThan(0);
    expect(lmdbDocuments(dbPath)).toBe(0);
    await storage.close();
    expect(segmentsOf(dbPath)).toEqual([]);
    expect(lmdbDocuments(dbPath)).toBe(50);
  });

  it('a start after a crash applies the log to lmdb durably and removes every segment', async () => {
    const live = dir();
    const storage = opened(join(live, 'engine.mdb'));
    storage.insert('app', 'menus', { _id: 1 });
    await storage.flush();
    const copy = crashCopy(live, dir());
    expect(segmentsOf(copy).length).toBeGreaterThan(0);
    const recovered = opened(copy);
    expect(segmentsOf(copy)).toEqual([]);
    expect(lmdbDocuments(copy)).toBe(1);
    expect(recovered.findById('app', 'menus', 1)).toBeDefined();
  });

  it('a checkpoint lmdb refuses is tried again: writes are still acknowledged from the log, and nothing is lost', async () => {
    // lmdb refusing a checkpoint's writes (a full disk), simulated at lmdb-js's put for the window below.
    const live = dir();
    const dbPath = join(live, 'engine.mdb');
    const lines: string[] = [];
    const storage = openLmdbStorage(dbPath, { checkpointEveryMs: 10, checkpointRetryMs: 30, log: (line) => lines.push(line) });
    openStorages.push(storage);
    let prototype = Object.getPrototypeOf(lmdbEnvironments.at(-1)) as { put: (...args: unknown[]) => Promise<boolean> };
    while (!Object.hasOwn(prototype, 'put')) prototype = Object.getPrototypeOf(prototype);
    const put = prototype.put;
    let failing = false;
    const spy = vi.spyOn(prototype, 'put').mockImplementation(function (this: unknown, ...args: unknown[]) {
      return failing ? Promise.reject(new Error('MDB_MAP_FULL (simulated)')) : put.apply(this, args);
    });
    try {
      storage.insert('app', 'menus', { _id: 'before' });
      await storage.flush();
      failing = true;
      storage.insert('app', 'menus', { _id: 'acknowledged' });
      await storage.flush();
      await expect.poll(() => lines.join('\n'), { timeout: 5000 }).toMatch(/lmdb refused a checkpoint \(MDB_MAP_FULL/);
      // Still taken and acknowledged: the log holds it.
      storage.insert('app', 'menus', { _id: 'during' });
      await storage.flush();
      const whileRefused = opened(crashCopy(live, dir()));
      for (const id of ['before', 'acknowledged', 'during']) expect(whileRefused.findById('app', 'menus', id), id).toBeDefined();

      failing = false;
      await expect.poll(() => lines.join('\n'), { timeout: 5000 }).toMatch(/lmdb took a checkpoint again/);
      // lmdb itself now holds all three, and the segments it holds are gone.
      expect(lmdbDocuments(crashCopy(live, dir()))).toBe(3);
      expect(segmentsOf(dbPath).length).toBeLessThanOrEqual(1);
    } finally {
      spy.mockRestore();
    }
  });

  it('a write whose log append fails (a full disk) is refused, and no checkpoint run meanwhile puts it into lmdb', async () => {
    const live = dir();
    const storage = opened(join(live, 'engine.mdb'), 5);
    storage.insert('app', 'menus', { _id: 'kept' });
    await storage.flush();
    const probe = await openFile(join(dir(), 'probe'), 'w');
    const prototype = Object.getPrototypeOf(probe) as { writev: (buffers: Buffer[], ...rest: unknown[]) => Promise<{ bytesWritten: number }> };
    await probe.close();
    const writev = prototype.writev;
    // A slow append that the disk cuts short after 3 bytes, while checkpoints keep running.
    const spy = vi.spyOn(prototype, 'writev').mockImplementation(async function (this: unknown, buffers: Buffer[], ...rest: unknown[]) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const { bytesWritten } = await writev.call(this, [buffers[0]!.subarray(0, 3)], ...rest);
      return { bytesWritten, buffers };
    });
    try {
      storage.insert('app', 'menus', { _id: 'refused' });
      await expect(storage.flush()).rejects.toMatchObject({ code: 14031, codeName: 'OutOfDiskSpace' });
    } finally {
      spy.mockRestore();
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    const recovered = opened(crashCopy(live, dir()));
    expect(recovered.findById('app', 'menus', 'kept')).toBeDefined();
    expect(recovered.findById('app', 'menus', 'refused')).toBeUndefined();
  });

  it('a sync that fails while the next group is being written: that group counts once it lands, acknowledged, kept and replayed; the synced write is answered "outcome unknown"', async () => {
    const live = dir();
    const storage = opened(join(live, 'engine.mdb'));
    storage.insert('app', 'menus', { _id: 'written' });
    await storage.flush();
    const probe = await openFile(join(dir(), 'probe'), 'w');
    const prototype = Object.getPrototypeOf(probe) as {
      writev: (...args: unknown[]) => Promise<unknown>;
      datasync: () => Promise<void>;
    };
    await probe.close();
    const { writev } = prototype;
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    // The sync fails (EIO) while the next group's write is still under way; that write then lands.
    const writes = vi.spyOn(prototype, 'writev').mockImplementation(async function (this: unknown, ...args: unknown[]) {
      await pause(150);
      return writev.apply(this, args);
    });
    const syncs = vi.spyOn(prototype, 'datasync').mockImplementation(async () => {
      await pause(20);
      throw Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
    });
    try {
      const synced = storage.flush({ durable: true }).then(() => 'stored', (err: unknown) => err);
      storage.insert('app', 'menus', { _id: 'in flight' });
      const inFlight = storage.flush().then(() => 'stored', (err: unknown) => err);
      await storage.failed;
      expect(await inFlight).toBe('stored');
      expect(storage.findById('app', 'menus', 'in flight')).toBeDefined();
      const unknown = await synced;
      expect(unknown).toMatchObject({ codeName: 'InternalError' });
      expect((unknown as Error).message).toMatch(/unknown/);
      expect(() => storage.insert('app', 'menus', { _id: 'after' })).toThrow();
    } finally {
      writes.mockRestore();
      syncs.mockRestore();
    }
    const recovered = opened(crashCopy(live, dir()));
    expect(recovered.findById('app', 'menus', 'written')).toBeDefined();
    expect(recovered.findById('app', 'menus', 'in flight')).toBeDefined();
  });

  it('abort: the group being written counts once it lands, and nothing appended afterwards reaches the file', async () => {
    const basePath = join(dir(), 'engine.mdb');
    const log = new WriteAheadLog(basePath, 0);
    const probe = await openFile(join(dir(), 'probe'), 'w');
    const prototype = Object.getPrototypeOf(probe) as { writev: (...args: unknown[]) => Promise<unknown> };
    await probe.close();
    const { writev } = prototype;
    const writes = vi.spyOn(prototype, 'writev').mockImplementation(async function (this: unknown, ...args: unknown[]) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return writev.apply(this, args);
    });
    try {
      log.append({ store: 'catalog', key: 'under way', value: Buffer.from('a') });
      await new Promise((resolve) => setImmediate(resolve));
      const written = log.abort(new Error('the storage failed elsewhere'));
      log.append({ store: 'catalog', key: 'after', value: Buffer.from('b') });
      expect(await written).toBe(1);
      await expect(log.writtenAll()).rejects.toThrow(/failed elsewhere/);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect([...changesAfter(basePath, 0)].map((change) => change.key)).toEqual(['under way']);
    } finally {
      writes.mockRestore();
      await log.close();
    }
  });

  it('numbers new segments after the checkpointed one, so that a restart never skips them', async () => {
    const live = dir();
    const dbPath = join(live, 'engine.mdb');
    const first = opened(dbPath);
    first.insert('app', 'menus', { _id: 'before' });
    await first.close();
    // close() checkpointed everything and removed every segment.
    expect(segmentsOf(dbPath)).toEqual([]);

    const second = opened(dbPath);
    second.insert('app', 'menus', { _id: 'after' });
    await second.flush();
    const recovered = opened(crashCopy(live, dir()));
    expect(recovered.findById('app', 'menus', 'before')).toBeDefined();
    expect(recovered.findById('app', 'menus', 'after')).toBeDefined();
  });

  it('refuses a write after close instead of waiting forever', async () => {
    const storage = opened(join(dir(), 'engine.mdb'));
    await storage.close();
    expect(() => storage.insert('app', 'menus', { _id: 1 })).toThrow(/closed/);
  });
});
