import { mongoError } from '../errors.js';
import type { Document } from '../query/types.js';
import { isNumeric, toDouble } from '../query/values.js';

/**
 * `db.fsyncLock()`'s hold on writes, as mongod's global read lock held by its
 * FSyncLockThread: while `lockCount` is above 0 every command that changes
 * data or the catalog waits (it is not refused) until the last
 * `fsyncUnlock`; reads go on. Locks nest: each fsyncLock counts up, each
 * fsyncUnlock down. Closing the engine ends the waits (InterruptedAtShutdown)
 * so that a shutdown never hangs on a lock nobody will release.
 */
export class FsyncLock {
  #count = 0;
  #waiters = new Set<Waiter>();

  get lockCount(): number {
    return this.#count;
  }

  get locked(): boolean {
    return this.#count > 0;
  }

  lock(): number {
    return ++this.#count;
  }

  /** The lock count after this release; 0 lets every waiting write go. */
  unlock(): number {
    if (this.#count === 0) throw mongoError('IllegalOperation', 'fsyncUnlock called when not locked');
    if (--this.#count === 0) this.#settleAll();
    return this.#count;
  }

  /**
   * Resolves once nothing holds the lock; a command's `maxTimeMS` (when
   * given) bounds the wait with MaxTimeMSExpired, as mongod's lock wait is.
   */
  async whenUnlocked(body: Document): Promise<void> {
    const maxTimeMS = isNumeric(body.maxTimeMS) ? toDouble(body.maxTimeMS) : 0;
    const deadline = Date.now() + maxTimeMS;
    // Locked again before this write ran: it waits again, within the same time limit.
    while (this.#count > 0) await this.#wait(maxTimeMS > 0 ? Math.max(1, deadline - Date.now()) : 0);
  }

  /** Engine shutdown: the lock is gone and every held write ends with InterruptedAtShutdown. */
  shutdown(): void {
    this.#count = 0;
    this.#settleAll(mongoError('InterruptedAtShutdown', 'interrupted at shutdown'));
  }

  #wait(maxTimeMS: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { settle: (err) => (err ? reject(err) : resolve()) };
      if (maxTimeMS > 0) {
        waiter.timer = setTimeout(() => {
          this.#waiters.delete(waiter);
          reject(mongoError('MaxTimeMSExpired', 'operation exceeded time limit'));
        }, maxTimeMS);
      }
      this.#waiters.add(waiter);
    });
  }

  #settleAll(err?: Error): void {
    const waiters = [...this.#waiters];
    this.#waiters.clear();
    for (const waiter of waiters) {
      clearTimeout(waiter.timer);
      waiter.settle(err);
    }
  }
}

interface Waiter {
  settle(err?: Error): void;
  timer?: NodeJS.Timeout;
}

/** Commands that change data or the catalog: what an fsync lock holds back. */
const WRITE_COMMANDS = new Set([
  'insert', 'update', 'delete', 'findAndModify', 'create', 'drop', 'dropDatabase', 'createIndexes', 'dropIndexes',
  'collMod', 'renameCollection', 'convertToCapped', 'cloneCollectionAsCapped', 'compact', 'reIndex',
]);

/** True when the command (by its canonical name) would write: aggregate with $out/$merge, mapReduce into a collection too. */
export function writesData(name: string, body: Document): boolean {
  if (WRITE_COMMANDS.has(name)) return true;
  if (name === 'aggregate') {
    const pipeline = body.pipeline;
    const last = Array.isArray(pipeline) ? (pipeline[pipeline.length - 1] as Document | undefined) : undefined;
    return last !== null && typeof last === 'object' && ('$out' in last || '$merge' in last);
  }
  if (name === 'mapReduce') {
    const out = body.out as Document | string | undefined;
    return !(out !== null && typeof out === 'object' && 'inline' in out);
  }
  return false;
}
