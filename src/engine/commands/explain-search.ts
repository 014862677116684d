import { orderByDistance, type NearPlan } from '../query/geo/index.js';
import { compileFilter, compileSort, naturalDirection, type TextExplain, type TextFilter } from '../query/index.js';
import type { Collation, Document } from '../query/types.js';
import type { CollectionInfo, Storage } from '../storage/types.js';

/**
 * The access stages of the reads mongod answers through a special index, as
 * its classic explain shows them:
 * - `$near`/`$nearSphere`: GEO_NEAR_2D or GEO_NEAR_2DSPHERE (keyPattern,
 *   indexName, indexVersion; searchIntervals when executed). The stage
 *   fetches and orders by distance itself: no FETCH, no SORT.
 * - `$text`: TEXT_MATCH over FETCH over OR over the text index's IXSCAN, or
 *   TEXT_MATCH over TEXT_OR when the textScore is wanted (projection or sort).
 * The counts are the engine's: the documents the index yields (those holding
 * an indexed location, or a searched term) are what is examined.
 */

export interface SearchCounts {
  returned: Document[];
  keysExamined: number;
  docsExamined: number;
  matched: number;
}

export interface SearchRead {
  filter: Document;
  sort?: Document;
  skip?: number;
  limit?: number;
  variables?: Document;
}

/** Runs a near read: every match nearest first, then the read's own sort, skip and limit. */
export function runNearRead(storage: Storage, db: string, coll: string, spec: SearchRead, near: NearPlan, collation: Collation | undefined): SearchCounts {
  const matches = compileFilter(spec.filter, { collation, variables: spec.variables, near });
  let located = 0;
  const candidates: Document[] = [];
  for (const doc of storage.scan(db, coll)) {
    if (!near.measure(doc)) continue;
    located++;
    if (matches(doc)) candidates.push(doc);
  }
  return finish(orderByDistance(candidates, near), spec, collation, located, located);
}

/** Runs a text read: the documents the search finds, then the rest of the filter, sort, skip and limit. */
export function runTextRead(storage: Storage, db: string, coll: string, spec: SearchRead, text: TextFilter, collation: Collation | undefined): SearchCounts {
  // A $text in a $or clause is matched there, with the other clauses (each by an index in mongod's plan).
  const rest = compileFilter(text.rest, { collation, variables: spec.variables, text: text.underOr ? text.match : undefined });
  let found = 0;
  const matched: Document[] = [];
  for (const doc of storage.scan(db, coll)) {
    if (!text.underOr && !text.match!(doc)) continue;
    found++;
    if (rest(doc)) matched.push(doc);
  }
  return finish(matched, spec, collation, found, found);
}

function finish(docs: Document[], spec: SearchRead, collation: Collation | undefined, keysExamined: number, docsExamined: number): SearchCounts {
  const sorted = spec.sort !== undefined && Object.keys(spec.sort).length > 0 && naturalDirection(spec.sort) === undefined;
  // Array.prototype.sort is stable: equal sort keys keep distance (or scan) order.
  if (sorted) docs.sort(compileSort(spec.sort!, collation));
  const skip = spec.skip ?? 0;
  const limit = spec.limit ?? 0;
  const returned = limit > 0 ? docs.slice(skip, skip + limit) : docs.slice(skip);
  // Without a sort the stage stops once skip + limit documents came out, as mongod's does.
  const matched = !sorted && limit > 0 ? Math.min(docs.length, skip + limit) : docs.length;
  return { returned, keysExamined, docsExamined, matched };
}

export interface StagePair {
  plan: Document;
  stats?: Document;
}

type Counters = (nReturned: number) => Document;

/** GEO_NEAR_2D / GEO_NEAR_2DSPHERE with the index the planner chose. */
export function nearStages(info: CollectionInfo, near: NearPlan, counts: SearchCounts | undefined, counters: Counters): StagePair {
  const index = info.indexes.find((ix) => !ix.hidden && ix.key[near.path] === near.kind)!;
  const plan = {
    stage: near.kind === '2d' ? 'GEO_NEAR_2D' : 'GEO_NEAR_2DSPHERE',
    keyPattern: index.key,
    indexName: index.name,
    indexVersion: index.v ?? 2,
  };
  if (!counts) return { plan };
  const searchIntervals = [
    { minDistance: near.spec.min, maxDistance: near.spec.max, maxInclusive: true, nBuffered: counts.matched, nReturned: counts.matched },
  ];
  return { plan, stats: { ...plan, ...counters(counts.matched), searchIntervals } };
}

/** TEXT_MATCH over (FETCH over OR) or TEXT_OR, over the text index's IXSCAN. */
export function textStages(text: TextExplain, residual: Document | undefined, wantsScore: boolean, counts: SearchCounts | undefined, counters: Counters): StagePair {
  const ix = text.index;
  const ixscan: Document = {
    stage: 'IXSCAN',
    keyPattern: ix.key,
    indexName: ix.name,
    isMultiKey: true,
    isUnique: false,
    isSparse: false,
    isPartial: ix.partialFilterExpression !== undefined,
    indexVersion: ix.v ?? 2,
    direction: 'backward',
    indexBounds: {},
  };
  const filter = residual ? { filter: residual } : {};
  const textMatch: Document = {
    stage: 'TEXT_MATCH',
    indexPrefix: text.indexPrefix,
    indexName: ix.name,
    parsedTextQuery: text.parsedTextQuery,
    textIndexVersion: ix.textIndexVersion ?? 3,
  };
  const union: Document = wantsScore ? { stage: 'TEXT_OR', ...filter, inputStage: ixscan } : { stage: 'FETCH', ...filter, inputStage: { stage: 'OR', inputStage: ixscan } };
  const plan = { ...textMatch, inputStage: union };
  if (!counts) return { plan };
  const found = counts.docsExamined;
  const scanStats = { ...ixscan, ...counters(counts.keysExamined), keysExamined: counts.keysExamined, seeks: 1, dupsTested: 0, dupsDropped: 0 };
  const unionStats = wantsScore
    ? { stage: 'TEXT_OR', ...filter, ...counters(counts.matched), docsExamined: found, inputStage: scanStats }
    : {
        stage: 'FETCH',
        ...filter,
        ...counters(counts.matched),
        docsExamined: found,
        alreadyHasObj: 0,
        inputStage: { stage: 'OR', ...counters(found), dupsTested: found, dupsDropped: 0, inputStage: scanStats },
      };
  return { plan, stats: { ...textMatch, ...counters(counts.matched), docsRejected: 0, inputStage: unionStats } };
}
