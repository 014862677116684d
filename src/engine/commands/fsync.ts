import { mongoError } from '../errors.js';
import type { CommandHandler } from './types.js';

/**
 * fsync: syncs the journal now, so every write acknowledged before it
 * survives a power cut too (a write with `j: true` waits for this itself).
 * `lock: true` (`db.fsyncLock()`) is refused: the engine cannot hold writes back.
 */
export const fsyncCommand: CommandHandler = {
  name: 'fsync',
  help: 'flush to disk: {fsync: 1} on admin (lock: true is not supported)',
  async handle(body, ctx) {
    if (ctx.db !== 'admin') throw mongoError('Unauthorized', 'fsync may only be run against the admin database.');
    if (body.lock === true) throw mongoError('CommandNotSupported', 'fsync with lock (db.fsyncLock) is not supported by this engine');
    await ctx.engine.storage.flush({ durable: true });
    return { numFiles: 1 };
  },
};

export const fsyncUnlockCommand: CommandHandler = {
  name: 'fsyncUnlock',
  help: 'release an fsync lock (there never is one here)',
  handle(_body, ctx) {
    if (ctx.db !== 'admin') throw mongoError('Unauthorized', 'fsyncUnlock may only be run against the admin database.');
    throw mongoError('IllegalOperation', 'fsyncUnlock called when not locked');
  },
};
