import { collectionParam, namespaceOf } from '../params/index.js';
import { flushWrites } from '../writes/index.js';
import { mongoError } from '../errors.js';
import { forgetLatency } from './operation-tracker.js';
import { PROFILE_COLLECTION, profileLevelOf } from './profiler.js';
import type { CommandHandler } from './types.js';

/** drop: removes a collection, its indexes and its cursors; a missing one is not an error (mongod 7). */
export const dropCommand: CommandHandler = {
  name: 'drop',
  help: 'drop a collection: {drop: <name>}',
  async handle(body, ctx) {
    const name = collectionParam(body, 'drop');
    if (name === PROFILE_COLLECTION && profileLevelOf(ctx.engine, ctx.db) !== 0) {
      throw mongoError('IllegalOperation', 'turn off profiling before dropping system.profile collection');
    }
    const { storage, cursors } = ctx.engine;
    const info = storage.collection(ctx.db, name);
    if (!info) return {};
    const nIndexesWas = info.indexes.length;
    storage.dropCollection(ctx.db, name);
    cursors.killNamespace(ctx.db, name);
    forgetLatency(ctx.engine, ctx.db, name);
    await flushWrites(ctx.engine.storage, body);
    return { nIndexesWas, ns: namespaceOf(ctx.db, name) };
  },
};
