import { mongoError } from '../errors.js';
import { collectionParam } from '../params/index.js';
import { isView } from '../reads/index.js';
import { flushWrites } from '../writes/index.js';
import { describeIndex } from './list-indexes.js';
import type { CommandHandler } from './types.js';

/** reIndex (`db.coll.reIndex()`, standalone only): drops and rebuilds every index but `_id_` from the documents. */
export const reIndexCommand: CommandHandler = {
  name: 'reIndex',
  help: 'rebuild the indexes of a collection: {reIndex: <collection>}',
  async handle(body, ctx) {
    const coll = collectionParam(body, 'reIndex');
    const storage = ctx.engine.storage;
    const info = storage.collection(ctx.db, coll);
    if (!info) throw mongoError('NamespaceNotFound', `collection ${ctx.db}.${coll} does not exist`);
    if (isView(info)) throw mongoError('CommandNotSupportedOnView', 'reIndex is not allowed on a view');
    for (const index of info.indexes) {
      if (index.name === '_id_') continue;
      storage.dropIndex(ctx.db, coll, index.name);
      storage.createIndex(ctx.db, coll, index);
    }
    // Read before waiting for the journal: a drop on another connection may run meanwhile.
    const indexes = storage.collection(ctx.db, coll)!.indexes;
    const reply = { nIndexesWas: info.indexes.length, nIndexes: indexes.length, indexes: indexes.map(describeIndex) };
    await flushWrites(storage, body);
    return reply;
  },
};
