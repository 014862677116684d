import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryStorage, openLmdbStorage } from '../../../src/engine/storage/index.js';
import type { Storage } from '../../../src/engine/storage/index.js';

/**
 * The two storages every shared specification runs against. `reopen` closes
 * and opens again (lmdb: from disk; memory: the same instance, as it cannot
 * persist). `dispose` closes and removes temporary files.
 */
export interface StorageHarness {
  storage: Storage;
  reopen(): Promise<Storage>;
  dispose(): Promise<void>;
}

export interface StorageKind {
  name: string;
  open(): StorageHarness;
}

export function tempDir(prefix = 'storage-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export const storageKinds: StorageKind[] = [
  {
    name: 'memory',
    open() {
      const storage = createMemoryStorage();
      return { storage, reopen: async () => storage, dispose: () => storage.close() };
    },
  },
  {
    name: 'lmdb',
    open() {
      const dir = tempDir();
      // A file path in a directory that does not exist yet, as the engine opens it.
      const dbPath = join(dir, 'data', 'engine.mdb');
      const harness: StorageHarness = {
        storage: openLmdbStorage(dbPath),
        async reopen() {
          await harness.storage.close();
          harness.storage = openLmdbStorage(dbPath);
          return harness.storage;
        },
        async dispose() {
          await harness.storage.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
      return harness;
    },
  },
];

/** Runs `fn` and returns what it threw (fails the test when nothing was thrown). */
export function thrown(fn: () => unknown): { code?: number; codeName?: string; message: string; extra?: Record<string, unknown> } {
  try {
    fn();
  } catch (err) {
    return err as { code?: number; codeName?: string; message: string; extra?: Record<string, unknown> };
  }
  throw new Error('expected an error, none was thrown');
}
