import { LiveStorage } from './live-storage.js';
import type { Storage } from './types.js';

/** A storage that lives only in memory (tests, `--memory` engines). */
export function createMemoryStorage(): Storage {
  return new LiveStorage(false);
}
