import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
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

/**
 * Gives every test in the calling `describe` a freshly opened storage of
 * `kind` and disposes of it after the test. The returned `storage` is a
 * stand-in that forwards every call to the current test's storage (after
 * `reopen()`, to the reopened one), so a suite can take it once at the top and
 * write `s.insert(...)` in every test; use both only inside tests and hooks.
 */
export function storagePerTest(kind: StorageKind): { storage: Storage; harness: StorageHarness } {
  let current: StorageHarness | undefined;
  beforeEach(() => {
    current = kind.open();
  });
  afterEach(() => current?.dispose());
  const harness = (): StorageHarness => {
    if (!current) throw new Error('storagePerTest: the storage is open only inside a test');
    return current;
  };
  const storage = new Proxy({} as Storage, {
    get(_target, key) {
      const target = harness().storage;
      const value: unknown = Reflect.get(target, key);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return {
    storage,
    harness: {
      get storage() {
        return harness().storage;
      },
      reopen: () => harness().reopen(),
      dispose: () => harness().dispose(),
    },
  };
}

/** Runs `fn` and returns what it threw (fails the test when nothing was thrown). */
export function thrown(fn: () => unknown): { code?: number; codeName?: string; message: string; extra?: Record<string, unknown> } {
  try {
    fn();
  } catch (err) {
    return err as { code?: number; codeName?: string; message: string; extra?: Record<string, unknown> };
  }
  throw new Error('expected an error, none was thrown');
}
