import { nextBatchReply } from '../cursors/index.js';
import { cursorCollectionParam, cursorIdParam, namespaceOf, nonNegativeInteger } from '../params/index.js';
import type { CommandHandler } from './types.js';

/** getMore: the next batch of an open cursor (default: everything up to 16 MiB). */
export const getMoreCommand: CommandHandler = {
  name: 'getMore',
  help: 'next batch of a cursor: {getMore: <cursor id (int64)>, collection, batchSize, maxTimeMS (awaitData cursors)}',
  handle(body, ctx) {
    const id = cursorIdParam(body.getMore, 'getMore', 'getMore');
    const coll = cursorCollectionParam(body, 'getMore', 'collection');
    const batchSize = nonNegativeInteger(body, 'getMore', 'batchSize');
    const maxTimeMS = nonNegativeInteger(body, 'getMore', 'maxTimeMS');
    const ns = namespaceOf(ctx.db, coll);
    const result = ctx.engine.cursors.getMoreOrWait(id, ns, batchSize, maxTimeMS);
    // An awaitData cursor with nothing new answers once an insert came or its time is up.
    return result instanceof Promise ? result.then((batch) => nextBatchReply(ns, batch)) : nextBatchReply(ns, result);
  },
};
