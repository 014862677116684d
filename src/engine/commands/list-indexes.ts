import { firstBatchReply } from '../cursors/index.js';
import { mongoError } from '../errors.js';
import type { IndexSpec } from '../model/index.js';
import { collectionParam, nonNegativeInteger, optionalDocument } from '../params/index.js';
import type { Document } from '../query/types.js';
import { assertNotView, bucketsOwner } from '../reads/index.js';
import { bucketsIndexSpec } from '../writes/index.js';
import { clusteredIndexOf } from './clustered-index.js';
import type { CommandHandler } from './types.js';

/** An index as listIndexes shows it: `v`, `key`, `name` first, then its options. */
export function describeIndex(spec: IndexSpec): Document {
  const { v, key, name, ...options } = spec;
  return { v: v ?? 2, key, name, ...options };
}

/** listIndexes: a cursor over a collection's index specs; 26 when the collection is missing. */
export const listIndexesCommand: CommandHandler = {
  name: 'listIndexes',
  help: 'list indexes: {listIndexes: <collection>, cursor: {batchSize}}',
  handle(body, ctx) {
    const coll = collectionParam(body, 'listIndexes');
    const cursorOpts = optionalDocument(body, 'listIndexes', 'cursor') ?? {};
    const batchSize = nonNegativeInteger(cursorOpts, 'listIndexes.cursor', 'batchSize');
    const ns = `${ctx.db}.$cmd.listIndexes.${coll}`;
    // system.buckets.<name> (derived from a time-series collection): its indexes as mongod keeps them on the buckets.
    const owner = bucketsOwner(ctx.engine.storage, ctx.db, coll);
    if (owner) return firstBatchReply(ns, ctx.engine.cursors.open(ns, owner.indexes.map((spec) => bucketsIndexSpec(owner, spec)), { batchSize }));
    const info = ctx.engine.storage.collection(ctx.db, coll);
    if (!info) throw mongoError('NamespaceNotFound', `ns does not exist: ${ctx.db}.${coll}`);
    assertNotView(ctx.engine.storage, ctx.db, coll);
    // A clustered collection's _id index is its clustered index, listed as mongod lists it.
    const clustered = clusteredIndexOf(info);
    const listed = info.indexes.map((spec) => (clustered && spec.name === '_id_' ? { ...clustered, clustered: true } : describeIndex(spec)));
    return firstBatchReply(ns, ctx.engine.cursors.open(ns, listed, { batchSize }));
  },
};
