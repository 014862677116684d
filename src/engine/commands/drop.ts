import { collectionParam, namespaceOf } from '../params/index.js';
import { flushWrites } from '../writes/index.js';
import { forgetLatency } from './operation-tracker.js';
import type { CommandHandler } from './types.js';

/** drop: removes a collection, its indexes and its cursors; a missing one is not an error (mongod 7). */
export const dropCommand: CommandHandler = {
  name: 'drop',
  help: 'drop a collection: {drop: <name>}',
  async handle(body, ctx) {
    const name = collectionParam(body, 'drop');
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
