import { firstBatchReply } from '../cursors/index.js';
import { mongoError } from '../errors.js';
import { collectionParam, letParam, namespaceOf, nonNegativeInteger, optionalBool, optionalDocument } from '../params/index.js';
import { compileProjection, containsText, textScoreUnavailable, usesTextScore, validateCollation } from '../query/index.js';
import type { Collation, Document } from '../query/types.js';
import { bucketsOwner, findById, isView, ReadSlice, readDocuments, recheckerOf, SLICE_END, tailableRead, type TailableReadOptions } from '../reads/index.js';
import type { Storage } from '../storage/types.js';
import type { ReadSpec } from './explain-plan.js';
import { indexKeyOf, scannedKeyPattern, withRecordId } from './find-key-options.js';
import type { CommandContext, CommandHandler } from './types.js';

/** find: filter, sort, skip, limit, projection; the first batch and a cursor for the rest. */
export const findCommand: CommandHandler = {
  name: 'find',
  help: 'query a collection: {find: <collection>, filter, sort, projection, skip, limit, batchSize, singleBatch}',
  handle(body, ctx) {
    // 1. parameters
    const coll = collectionParam(body, 'find');
    const filter = optionalDocument(body, 'find', 'filter') ?? {};
    const sort = optionalDocument(body, 'find', 'sort');
    const projection = optionalDocument(body, 'find', 'projection');
    const skip = nonNegativeInteger(body, 'find', 'skip');
    const limit = nonNegativeInteger(body, 'find', 'limit');
    const batchSize = nonNegativeInteger(body, 'find', 'batchSize');
    const singleBatch = optionalBool(body, 'find', 'singleBatch') ?? false;
    const collation = optionalDocument(body, 'find', 'collation') as Collation | undefined;
    if (collation !== undefined) validateCollation(collation);
    const variables = letParam(body, 'find');
    // A textScore can only come from a $text search (mongod checks before reading).
    if (usesTextScore(projection) && !containsText(filter)) throw textScoreUnavailable();
    const returnKey = optionalBool(body, 'find', 'returnKey') ?? false;
    const showRecordId = optionalBool(body, 'find', 'showRecordId') ?? false;
    const noTimeout = optionalBool(body, 'find', 'noCursorTimeout') ?? false;
    const tailable = optionalBool(body, 'find', 'tailable') ?? false;
    const awaitData = optionalBool(body, 'find', 'awaitData') ?? false;
    if (awaitData && !tailable) throw mongoError('FailedToParse', "Cannot set 'awaitData' without also setting 'tailable'");
    if (tailable && singleBatch) throw mongoError('BadValue', "cannot use tailable option with the 'singleBatch' option");
    if (tailable) return tailableFind(ctx, coll, { filter, sort, skip, limit, collation, variables, awaitData, projection, batchSize, noTimeout });
    // The driver's findOne({_id}): a direct lookup when nothing else could change its result.
    const byId = findById(ctx.engine.storage, ctx.db, body, { coll, filter, sort, projection, skip, batchSize, collation, variables });
    if (byId) return byId;

    // Unprojected, a collection's documents reach the reply as the scan decoded them (filter, sort,
    // $near and $text only read them), so the reply may splice their stored bytes; a view's come from its pipeline.
    const projected = returnKey || showRecordId || (projection !== undefined && Object.keys(projection).length > 0);
    const storedBytes = !projected && !isView(ctx.engine.storage.collection(ctx.db, coll)) && !bucketsOwner(ctx.engine.storage, ctx.db, coll);

    // 2-3. storage scan and query step
    // A single batch must hold every result: it cannot end at a slice.
    const slice = singleBatch ? undefined : new ReadSlice();
    let results: Iterable<Document> = readDocuments(ctx.engine.storage, ctx.db, coll, {
      filter,
      sort,
      skip,
      limit,
      collation,
      hint: body.hint,
      variables,
      allowDiskUse: optionalBool(body, 'find', 'allowDiskUse'),
      onlyStoredBytes: storedBytes,
      maxTimeMS: nonNegativeInteger(body, 'find', 'maxTimeMS'),
      slice,
    });
    let rechecker = recheckerOf(results);
    if (projected) {
      const project = sentForm(ctx.engine.storage, ctx.db, coll, { filter, sort, skip, limit, projection, hint: body.hint, collation, variables }, returnKey, showRecordId);
      // The cursor's read-ahead document is always the last one projected: its recheck works on the stored one.
      let lastRead: Document | undefined;
      results = mapIterable(results, (doc) => (doc === SLICE_END ? doc : project((lastRead = doc))));
      const stored = rechecker;
      rechecker = stored && {
        recheck(projectedDoc) {
          const current = stored.recheck(lastRead!);
          return current === lastRead ? projectedDoc : current && project(current);
        },
      };
    }

    // 4. reply
    const ns = namespaceOf(ctx.db, coll);
    return firstBatchReply(ns, ctx.engine.cursors.open(ns, results, { batchSize, singleBatch, noTimeout, storedBytes, rechecker, slice }));
  },
};

/**
 * What the reply sends for each stored document: its index key (returnKey) or
 * its projection, with its `$recordId` (showRecordId). returnKey wins: mongod's
 * return-key stage drops the record id, so the key comes without `$recordId`.
 */
function sentForm(storage: Storage, db: string, coll: string, spec: ReadSpec, returnKey: boolean, showRecordId: boolean): (doc: Document) => Document {
  const keyPattern = returnKey ? scannedKeyPattern(storage, db, coll, spec) : undefined;
  const shape = returnKey
    ? (doc: Document) => indexKeyOf(doc, keyPattern)
    : spec.projection !== undefined && Object.keys(spec.projection).length > 0
      ? compileProjection(spec.projection, spec.filter)
      : (doc: Document) => doc;
  return showRecordId && !returnKey ? (doc) => withRecordId(storage, db, coll, doc, shape(doc)) : shape;
}

/**
 * A tailable find on a capped collection: natural order, and a cursor that
 * stays open at the end for the documents inserted later (mongod keeps none
 * when the collection is empty).
 */
function tailableFind(
  ctx: CommandContext,
  coll: string,
  opts: TailableReadOptions & { projection?: Document; batchSize?: number; noTimeout: boolean },
): Document {
  const storage = ctx.engine.storage;
  const { first, tail } = tailableRead(storage, ctx.db, coll, opts);
  const project = opts.projection !== undefined && Object.keys(opts.projection).length > 0 ? compileProjection(opts.projection, opts.filter) : undefined;
  const projected = project ? { ...tail, checkPosition: () => tail.checkPosition(), resume: () => mapIterable({ [Symbol.iterator]: () => tail.resume() }, project) } : tail;
  const ns = namespaceOf(ctx.db, coll);
  const results = project ? mapIterable(first, project) : first;
  const empty = storage.count(ctx.db, coll) === 0;
  return firstBatchReply(ns, ctx.engine.cursors.open(ns, results, { batchSize: opts.batchSize, singleBatch: empty, noTimeout: opts.noTimeout, tail: projected }));
}

function* mapIterable<T, U>(items: Iterable<T>, fn: (item: T) => U): Generator<U> {
  for (const item of items) yield fn(item);
}
