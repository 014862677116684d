import { firstBatchReply } from '../cursors/index.js';
import { mongoError } from '../errors.js';
import { assertValidCollectionName, letParam, namespaceOf, nonNegativeInteger, optionalBool, optionalDocument, requiredArray } from '../params/index.js';
import { planGeoNearStage } from '../query/geo/index.js';
import { containsText, isKnownStage, runPipeline, splitOutputStage, textScoreUnavailable, usesTextScore, validateCollation } from '../query/index.js';
import type { Collation, Document } from '../query/types.js';
import { isPlainObject } from '../query/values.js';
import { collationFor, readDocuments } from '../reads/index.js';
import { flushWrites, writeOutput } from '../writes/index.js';
import { explainAggregate } from './explain.js';
import { isSourceStage, sourceStageDocuments } from './source-stages.js';
import type { CommandHandler } from './types.js';

/** Stages that need no input collection (`{aggregate: 1}`). */
const COLLECTIONLESS_STAGES = new Set(['$documents']);

/**
 * aggregate: a leading $match is answered through the planner (so it can use
 * an index); the rest runs in the query layer; a trailing $out/$merge writes
 * through storage and the cursor is then empty.
 */
export const aggregateCommand: CommandHandler = {
  name: 'aggregate',
  help: 'run a pipeline: {aggregate: <collection> | 1, pipeline: [...], cursor: {batchSize}}',
  async handle(body, ctx) {
    // 1. parameters
    const target = body.aggregate;
    const collectionless = typeof target !== 'string';
    if (collectionless && target !== 1 && !(typeof target === 'object' && target !== null)) {
      throw mongoError('InvalidNamespace', 'aggregate: collection name must be a string or 1');
    }
    if (!collectionless) assertValidCollectionName(target);
    const pipeline = requiredArray(body, 'aggregate', 'pipeline');
    if (!pipeline.every(isPlainObject)) throw mongoError('TypeMismatch', 'Each element of the \'pipeline\' array must be an object');
    // `{aggregate, explain: true}`, the older form of `{explain: {aggregate}}`.
    if (body.explain === true) return explainAggregate(body, ctx, 'queryPlanner');
    const cursorOpts = optionalDocument(body, 'aggregate', 'cursor');
    if (cursorOpts === undefined) {
      throw mongoError('FailedToParse', "The 'cursor' option is required, except for aggregate with the explain argument");
    }
    const batchSize = nonNegativeInteger(cursorOpts, 'aggregate.cursor', 'batchSize');
    const requested = optionalDocument(body, 'aggregate', 'collation') as Collation | undefined;
    if (requested !== undefined) validateCollation(requested);
    const variables = letParam(body, 'aggregate');
    assertNoWhereInMatch(pipeline as Document[]);
    assertTextScoreAvailable(pipeline as Document[]);
    const allowDiskUse = optionalBool(body, 'aggregate', 'allowDiskUse');
    const { stages, output } = splitOutputStage(pipeline as Document[]);
    const first = stages[0] && Object.keys(stages[0])[0];
    if (collectionless && !(first && (COLLECTIONLESS_STAGES.has(first) || isSourceStage(stages[0])))) {
      // mongod parses the pipeline before it judges the namespace: a stage it does not know is refused as that.
      if (first && !isKnownStage(first)) throw mongoError('Location40324', `Unrecognized pipeline stage name: '${first}'`);
      throw mongoError('InvalidNamespace', `{aggregate: 1} is not valid for '${first ?? 'an empty pipeline'}'; a collection is required.`);
    }

    // 2. storage: the input documents, narrowed by a leading $match
    const storage = ctx.engine.storage;
    const collation = collectionless ? requested : collationFor(storage, ctx.db, target, requested);
    let input: Document[] = [];
    let rest = stages;
    const fromServer = stages[0] && sourceStageDocuments(stages[0], ctx, collectionless ? undefined : target);
    if (fromServer) {
      // $collStats, $indexStats, $currentOp: documents about the server, not from a collection.
      input = fromServer;
      rest = stages.slice(1);
    } else if (collectionless) {
      // $documents (a literal array) is the only collection-less source the engine has.
      const docs = stages[0]!.$documents;
      if (!Array.isArray(docs) || !docs.every(isPlainObject)) {
        throw mongoError('TypeMismatch', '$documents must evaluate to an array of objects');
      }
      input = docs;
      rest = stages.slice(1);
    } else if (first === '$geoNear') {
      // $geoNear: a near query on the collection, nearest first, annotated with distances.
      const info = storage.collection(ctx.db, target);
      const geoNear = planGeoNearStage(stages[0]!.$geoNear, info?.indexes ?? [], namespaceOf(ctx.db, target));
      rest = stages.slice(1);
      input = info ? geoNear.annotate(readDocuments(storage, ctx.db, target, { filter: geoNear.filter, collation, variables })) : [];
    } else {
      const leadingMatch = first === '$match' && isPlainObject(stages[0]!.$match) ? (stages[0]!.$match as Document) : undefined;
      if (leadingMatch) rest = stages.slice(1);
      // A $sort (and $limit) right after goes with the read: a top-k sort over the matches.
      const { sort, limit, consumed } = leadingSort(rest);
      rest = rest.slice(consumed);
      input = [
        ...readDocuments(storage, ctx.db, target, {
          filter: leadingMatch, sort, limit, collation, hint: body.hint, variables, allowDiskUse, refuseNear: true,
          maxTimeMS: nonNegativeInteger(body, 'aggregate', 'maxTimeMS'),
        }),
      ];
    }

    // 3. query step
    const lookup = (coll: string): Document[] => [...readDocuments(storage, ctx.db, coll, {})];
    const results = rest.length > 0 ? runPipeline(input, rest, { collation, variables, lookup, allowDiskUse }) : input;

    // 4. output and reply
    const ns = collectionless ? `${ctx.db}.$cmd.aggregate` : namespaceOf(ctx.db, target);
    if (output) {
      writeOutput(storage, ctx.db, output, results, body.bypassDocumentValidation);
      await flushWrites(ctx.engine.storage, body);
      return firstBatchReply(ns, { batch: [], id: 0n });
    }
    return firstBatchReply(ns, ctx.engine.cursors.open(ns, results, { batchSize }));
  },
};

/** mongod refuses `$where` in a `$match` stage whether or not it runs JavaScript. */
function assertNoWhereInMatch(pipeline: Document[]): void {
  const hasWhere = (filter: unknown): boolean =>
    isPlainObject(filter) &&
    Object.entries(filter).some(
      ([key, value]) => key === '$where' || (['$and', '$or', '$nor'].includes(key) && Array.isArray(value) && value.some(hasWhere)),
    );
  if (pipeline.some((stage) => hasWhere(stage.$match))) {
    throw mongoError('BadValue', '$where is not allowed inside of a $match aggregation expression');
  }
}

/** A `{$meta: "textScore"}` needs a `$text` in the first stage, a `$match` (mongod checks before running). */
function assertTextScoreAvailable(pipeline: Document[]): void {
  const textFirst = isPlainObject(pipeline[0]) && containsText(pipeline[0].$match);
  if (!textFirst && usesTextScore(pipeline)) throw textScoreUnavailable();
}

/**
 * A `$sort` stage (plain ascending/descending keys) and a positive `$limit`
 * after it at the head of the remaining stages; anything else stays in the
 * pipeline, which reports its own errors.
 */
function leadingSort(stages: Document[]): { sort?: Document; limit?: number; consumed: number } {
  const sort = stages[0]?.$sort;
  if (!isPlainObject(sort) || Object.keys(sort).length === 0 || Object.keys(stages[0]!).length !== 1) return { consumed: 0 };
  if (!Object.values(sort).every((d) => d === 1 || d === -1) || '$natural' in sort) return { consumed: 0 };
  const limit = stages[1]?.$limit;
  if (Object.keys(stages[1] ?? {}).length === 1 && typeof limit === 'number' && Number.isInteger(limit) && limit > 0) {
    return { sort, limit, consumed: 2 };
  }
  return { sort, consumed: 1 };
}
