import { nextBatchReply } from '../cursors/index.js';
import { cursorCollectionParam, cursorIdParam, namespaceOf, nonNegativeInteger } from '../params/index.js';
import type { CommandHandler } from './types.js';

/** getMore: the next batch of an open cursor (default: everything up to 16 MiB). */
export const getMoreCommand: CommandHandler = {
  name: 'getMore',
  help: 'next batch of a cursor: {getMore: <cursor id (int64)>, collection, batchSize}',
  handle(body, ctx) {
    const id = cursorIdParam(body.getMore, 'getMore', 'getMore');
    const coll = cursorCollectionParam(body, 'getMore', 'collection');
    const batchSize = nonNegativeInteger(body, 'getMore', 'batchSize');
    const ns = namespaceOf(ctx.db, coll);
    return nextBatchReply(ns, ctx.engine.cursors.getMore(id, ns, batchSize));
  },
};
