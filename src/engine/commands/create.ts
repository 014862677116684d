import { collectionParam, commandOptions } from '../params/index.js';
import { viewOptions } from '../reads/index.js';
import { assertValidValidator, flushWrites } from '../writes/index.js';
import type { CommandHandler } from './types.js';

/** create: an empty collection with its options kept as given, or a view (viewOn); 48 when it exists. */
export const createCommand: CommandHandler = {
  name: 'create',
  help: 'create a collection: {create: <name>, capped, validator, collation, viewOn, pipeline, ...}',
  async handle(body, ctx) {
    const name = collectionParam(body, 'create');
    const options = commandOptions(body, 'create');
    const storage = ctx.engine.storage;
    if (options.viewOn !== undefined) {
      storage.createCollection(ctx.db, name, viewOptions(storage, ctx.db, name, options));
    } else {
      assertValidValidator(options);
      storage.createCollection(ctx.db, name, options);
    }
    await flushWrites(ctx.engine.storage);
    return {};
  },
};
