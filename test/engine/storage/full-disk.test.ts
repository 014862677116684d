import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { isMongoCommandError } from '../../../src/engine/errors.js';
import { openLmdbStorage, type Storage } from '../../../src/engine/storage/index.js';
import { segmentsOf } from '../../../src/engine/storage/write-ahead-log.js';
import { mountSmallDisk } from '../../support/small-disk.js';

/**
 * The durable storage on a small tmpfs that fills up under its writes: the
 * write that meets the full disk is refused with OutOfDiskSpace (14031), as
 * is every write after it, before it changes the data in memory; nothing
 * goes unhandled (lmdb-js's rejected `commitError` ended the process); the
 * log keeps no part of the refused write; and once space is back, a start
 * finds every acknowledged write and none of the refused ones.
 */
const disk = mountSmallDisk(4096);
const skipped = typeof disk === 'string' ? disk : undefined;
if (skipped) console.warn(`full-disk storage test skipped: ${skipped}`);

/** A document of about 24 KiB: a few fill the room left. */
const bulky = (id: string) => ({ _id: id, text: 'x'.repeat(24 * 1024) });

describe.skipIf(skipped !== undefined)('lmdb storage on a full disk', () => {
  const smallDisk = disk as Exclude<typeof disk, string>;
  const dbPath = () => join(smallDisk.dir, 'engine.mdb');
  let storage: Storage | undefined;

  afterAll(async () => {
    vi.restoreAllMocks();
    await storage?.close().catch(() => undefined);
    smallDisk.unmount();
  });

  it('refuses the write that meets the full disk and every later one, and keeps every acknowledged one', async () => {
    // What the engine says (its log) and what lmdb-js prints itself (console.error of each failed
    // commit): kept out of the test run's output, and checked to be only the full disk's I/O error.
    const said: string[] = [];
    const printed: unknown[] = [];
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void printed.push(args[0]));
    storage = openLmdbStorage(dbPath(), { checkpointEveryMs: 20, log: (line) => said.push(line) });
    const acknowledged: string[] = [];
    storage.insert('app', 'menus', bulky('first'));
    await storage.flush();
    acknowledged.push('first');
    smallDisk.fill(300 * 1024);

    let refused: { id: string; error: unknown } | undefined;
    for (let n = 0; n < 1000 && !refused; n++) {
      const id = `doc-${n}`;
      try {
        storage.insert('app', 'menus', bulky(id));
        await storage.flush();
        acknowledged.push(id);
      } catch (error) {
        refused = { id, error };
      }
    }
    expect(refused, 'the disk never filled up').toBeDefined();
    expect(isMongoCommandError(refused!.error)).toBe(true);
    expect(refused!.error).toMatchObject({ code: 14031, codeName: 'OutOfDiskSpace' });
    // The message reaches clients: it names no file.
    expect((refused!.error as Error).message).not.toContain(smallDisk.dir);
    await expect(storage.failed).resolves.toMatchObject({ code: 14031 });

    // The refused write was taken back out of memory, and later ones are refused before they are
    // applied: reads see only what the disk holds.
    expect(storage.findById('app', 'menus', refused!.id)).toBeUndefined();
    expect(storage.count('app', 'menus')).toBe(acknowledged.length);
    const count = storage.count('app', 'menus');
    expect(() => storage!.insert('app', 'menus', { _id: 'after' })).toThrow(expect.objectContaining({ code: 14031 }));
    expect(() => storage!.remove('app', 'menus', 'first')).toThrow(expect.objectContaining({ code: 14031 }));
    expect(storage.count('app', 'menus')).toBe(count);
    expect(storage.findById('app', 'menus', 'after')).toBeUndefined();
    expect(storage.findById('app', 'menus', 'first')).toBeDefined();

    // The log ends with whole records: no torn part of the refused write is left in it.
    for (const [, file] of segmentsOf(dbPath())) expect(endsWithWholeRecords(readFileSync(file))).toBe(true);

    // Closing a failed storage checkpoints nothing more and does not throw again.
    await storage.close();
    storage = undefined;
    for (const line of said) expect(line).toMatch(/^engine: lmdb (refused a checkpoint|rejected a commit promise of its own, handled here) \(Input\/output error\)/);
    for (const error of printed) expect(error).toMatchObject({ message: 'Input/output error' });

    smallDisk.free();
    storage = openLmdbStorage(dbPath());
    for (const id of acknowledged) expect(storage.findById('app', 'menus', id), id).toBeDefined();
    expect(storage.findById('app', 'menus', refused!.id)).toBeUndefined();
    expect(storage.findById('app', 'menus', 'after')).toBeUndefined();
    // And it writes again.
    storage.insert('app', 'menus', { _id: 'again' });
    await storage.flush();
    await storage.close();
    storage = undefined;
  }, 60_000);
});

/** Walks the records of a segment (u32 length, u32 crc, payload): true when the last one ends the file. */
function endsWithWholeRecords(bytes: Buffer): boolean {
  let at = 0;
  while (at + 8 <= bytes.length) {
    const length = bytes.readUInt32LE(at);
    if (length < 1 || at + 8 + length > bytes.length) return false;
    at += 8 + length;
  }
  return at === bytes.length;
}
