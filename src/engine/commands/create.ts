import { mongoError } from '../errors.js';
import { assertValidValidator } from './document-validation.js';
import { collectionParam } from './namespace.js';
import { commandOptions } from './params.js';
import type { CommandHandler } from './types.js';
import { flushWrites } from './write-helpers.js';

/** create: an empty collection with its options kept as given; 48 when it exists. */
export const createCommand: CommandHandler = {
  name: 'create',
  help: 'create a collection: {create: <name>, capped, validator, collation, ...}',
  async handle(body, ctx) {
    const name = collectionParam(body, 'create');
    const options = commandOptions(body, 'create');
    if (options.viewOn !== undefined) throw mongoError('CommandNotSupported', 'views are not supported by this engine');
    assertValidValidator(options);
    ctx.engine.storage.createCollection(ctx.db, name, options);
    await flushWrites(ctx);
    return {};
  },
};
