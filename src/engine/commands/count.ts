import { collectionParam, nonNegativeInteger, optionalDocument, optionalInteger } from '../params/index.js';
import type { Collation } from '../query/types.js';
import { isView, readDocuments } from '../reads/index.js';
import type { CommandHandler } from './types.js';

/**
 * count: the number of matching documents (estimatedDocumentCount sends it
 * without a query; on a view that counts the view's result).
 */
export const countCommand: CommandHandler = {
  name: 'count',
  help: 'count documents: {count: <collection>, query, limit, skip, hint, collation}',
  handle(body, ctx) {
    const coll = collectionParam(body, 'count');
    const query = optionalDocument(body, 'count', 'query') ?? {};
    // count (unlike find) takes a negative limit as its absolute value.
    const limit = Math.abs(optionalInteger(body, 'count', 'limit') ?? 0);
    const skip = nonNegativeInteger(body, 'count', 'skip') ?? 0;
    const collation = optionalDocument(body, 'count', 'collation') as Collation | undefined;
    const storage = ctx.engine.storage;

    const info = storage.collection(ctx.db, coll);
    if (Object.keys(query).length === 0 && body.hint === undefined && info && !isView(info)) {
      // Fast path: the collection's size, trimmed by skip/limit.
      const total = Math.max(0, storage.count(ctx.db, coll) - skip);
      return { n: limit > 0 ? Math.min(limit, total) : total };
    }
    let n = 0;
    for (const _ of readDocuments(storage, ctx.db, coll, { filter: query, skip, limit, collation, hint: body.hint })) n++;
    return { n };
  },
};
