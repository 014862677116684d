import { firstBatchReply } from '../cursors/index.js';
import { nonNegativeInteger, optionalBool, optionalDocument } from '../params/index.js';
import { compileFilter } from '../query/index.js';
import type { Document } from '../query/types.js';
import { BUCKETS_PREFIX, bucketsCollectionInfo, isView } from '../reads/index.js';
import type { CollectionInfo } from '../storage/types.js';
import { isTimeSeries } from '../writes/index.js';
import { clusteredIndexOf } from './clustered-index.js';
import type { CommandHandler } from './types.js';

function describe(info: CollectionInfo): Document {
  // A view has no uuid nor _id index, and is read-only.
  if (isView(info)) return { name: info.name, type: 'view', options: info.options, info: { readOnly: true } };
  // A time-series collection's buckets: a clustered collection, listed with the time-series options (derived, reads/time-series-buckets.ts).
  if (info.name.startsWith(BUCKETS_PREFIX) && info.options.clusteredIndex === true) {
    return { name: info.name, type: 'collection', options: info.options, info: { readOnly: false, uuid: info.uuid } };
  }
  // mongod lists a time-series collection as a view on its buckets: no uuid, no idIndex.
  if (isTimeSeries(info)) return { name: info.name, type: 'timeseries', options: info.options, info: { readOnly: false } };
  const entry: Document = { name: info.name, type: 'collection', options: info.options, info: { readOnly: false, uuid: info.uuid } };
  // A clustered collection has no separate _id index to show.
  if (!clusteredIndexOf(info)) entry.idIndex = { v: 2, key: { _id: 1 }, name: '_id_' };
  return entry;
}

/** listCollections: a cursor over the catalog entries of `$db`, filtered like documents. */
export const listCollectionsCommand: CommandHandler = {
  name: 'listCollections',
  help: 'list collections: {listCollections: 1, filter, nameOnly, cursor: {batchSize}}',
  handle(body, ctx) {
    const filter = optionalDocument(body, 'listCollections', 'filter') ?? {};
    const nameOnly = optionalBool(body, 'listCollections', 'nameOnly') ?? false;
    const cursorOpts = optionalDocument(body, 'listCollections', 'cursor') ?? {};
    const batchSize = nonNegativeInteger(cursorOpts, 'listCollections.cursor', 'batchSize');

    const matches = compileFilter(filter, {});
    const entries = ctx.engine.storage
      .collections(ctx.db)
      .flatMap((info) => (isTimeSeries(info) ? [info, bucketsCollectionInfo(info)] : [info]))
      .map(describe)
      .filter(matches)
      .map((entry) => (nameOnly ? { name: entry.name, type: entry.type } : entry));

    const ns = `${ctx.db}.$cmd.listCollections`;
    return firstBatchReply(ns, ctx.engine.cursors.open(ns, entries, { batchSize }));
  },
};
