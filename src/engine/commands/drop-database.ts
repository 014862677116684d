import { flushWrites } from '../writes/index.js';
import { forgetLatency } from './operation-tracker.js';
import type { CommandHandler } from './types.js';

/** dropDatabase: removes every collection of the command's `$db`. */
export const dropDatabaseCommand: CommandHandler = {
  name: 'dropDatabase',
  help: 'drop the current database: {dropDatabase: 1}',
  async handle(body, ctx) {
    ctx.engine.storage.dropDatabase(ctx.db);
    ctx.engine.cursors.killNamespace(ctx.db);
    forgetLatency(ctx.engine, ctx.db);
    await flushWrites(ctx.engine.storage, body);
    return { dropped: ctx.db };
  },
};
