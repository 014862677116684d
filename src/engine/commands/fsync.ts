import { mongoError } from '../errors.js';
import { isNumeric, toDouble } from '../query/values.js';
import { FsyncLock } from './fsync-lock.js';
import type { CommandHandler, EngineState } from './types.js';

const FSYNC_URL = 'http://dochub.mongodb.org/core/fsynccommand';

/**
 * fsync: syncs the journal now, so every write acknowledged before it
 * survives a power cut too (a write with `j: true` waits for this itself).
 * `lock: true` (`db.fsyncLock()`) then holds every write back until as many
 * fsyncUnlocks (fsync-lock.ts); the data files stay still meanwhile (the
 * flush also checkpoints them), so they can be copied.
 */
export const fsyncCommand: CommandHandler = {
  name: 'fsync',
  help: FSYNC_URL,
  async handle(body, ctx) {
    if (ctx.db !== 'admin') throw mongoError('Unauthorized', 'fsync may only be run against the admin database.');
    if (!isTrue(body.lock)) {
      await ctx.engine.storage.flush({ durable: true });
      return { numFiles: 1 };
    }
    // Held first, as mongod takes its global lock before flushing: no write lands between the flush and the lock.
    const lock = fsyncLockOf(ctx.engine);
    lock.lock();
    try {
      await ctx.engine.storage.flush({ durable: true, checkpoint: true });
    } catch (err) {
      lock.unlock();
      throw err;
    }
    return { info: 'now locked against writes, use db.fsyncUnlock() to unlock', lockCount: lock.lockCount, seeAlso: FSYNC_URL };
  },
};

export const fsyncUnlockCommand: CommandHandler = {
  name: 'fsyncUnlock',
  help: 'release one fsync lock: {fsyncUnlock: 1} on admin',
  handle(_body, ctx) {
    if (ctx.db !== 'admin') throw mongoError('Unauthorized', 'fsyncUnlock may only be run against the admin database.');
    const lockCount = fsyncLockOf(ctx.engine).unlock();
    return { info: 'fsyncUnlock completed', lockCount };
  },
};

/** The engine's fsync lock (made by startEngine; made here for an engine state built without one). */
export function fsyncLockOf(engine: EngineState): FsyncLock {
  return (engine.fsyncLock ??= new FsyncLock());
}

/** mongod reads `lock` by its truth value (`lock: 1` locks too). */
function isTrue(value: unknown): boolean {
  if (value === undefined || value === null || value === false) return false;
  return isNumeric(value) ? toDouble(value) !== 0 : true;
}
