import { mongoError } from '../errors.js';
import type { IndexSpec } from '../model/index.js';
import { orderByDistance, parseNearQuery, planNear } from '../query/geo/index.js';
import {
  boundedSort, compileFilter, compileSort, isWildcardIndex, naturalDirection, planTextFilter, textScoreUnavailable, usesTextScore,
  validateCollation, valuesEqual,
} from '../query/index.js';
import type { FilterOptions, TextFilter } from '../query/index.js';
import type { Collation, Document } from '../query/types.js';
import { isNumeric, isPlainObject, toDouble } from '../query/values.js';
import { decodeStoredDocument, storedBytesOf } from '../storage/index.js';
import type { CollectionInfo, Storage } from '../storage/types.js';
import { chooseRead, sortedMatches, TRIAL_RESULTS } from './choose-plan.js';
import { fieldsRead } from './fields-read.js';
import { indexMembership } from './index-membership.js';
import { READS_PER_CLOCK_CHECK, TimeBudget } from './time-budget.js';
import { SLICE_END, type ReadSlice } from './time-slice.js';
import { bucketDocuments, bucketsCollectionInfo, bucketsOwner } from './time-series-buckets.js';
import { isView, viewDocuments } from './views.js';

/**
 * The query step shared by find, count, distinct, update, delete and
 * findAndModify: plan through an index, scan, filter, then sort/skip/limit.
 * Without a sort the result stays lazy, so `find().limit(1)` or a cursor's
 * first batch does not filter the whole collection. Order, as mongod's plans
 * give it: a collection scan is natural (insertion) order, an index scan the
 * index's key order, a hinted index its full key order. A sort an index
 * gives (choose-plan.ts) is read in that index's order and stops after
 * skip + limit matches, with no blocking sort.
 */

export interface ReadOptions {
  filter?: Document;
  sort?: Document;
  skip?: number;
  /** 0 or undefined = no limit. */
  limit?: number;
  collation?: Collation;
  hint?: unknown;
  variables?: Document;
  /** Lifts the blocking sort's memory limit (query/bounded-sort.ts). */
  allowDiskUse?: boolean;
  /** The blocking sort's memory limit in bytes (tests); mongod's 100 MiB otherwise. */
  maxSortBytes?: number;
  /** Refuse $near/$nearSphere (aggregate's $match: mongod's 5626500) instead of ordering by distance. */
  refuseNear?: boolean;
  /**
   * The caller reads nothing of the documents but their stored bytes (a find
   * reply that splices them): they may be decoded partially, with only the
   * top-level fields the filter and sort read (fields-read.ts).
   */
  onlyStoredBytes?: boolean;
  /** The command's `maxTimeMS` (0 or undefined: none): past it the read fails with MaxTimeMSExpired (50). */
  maxTimeMS?: number;
  /**
   * A cursor's time slice (time-slice.ts): a streamed read yields SLICE_END
   * once it is spent. Only for a caller that ends its batch there (find).
   */
  slice?: ReadSlice;
}

export function readDocuments(storage: Storage, db: string, coll: string, opts: ReadOptions): Iterable<Document> {
  if (opts.collation !== undefined) validateCollation(opts.collation);
  // A time-series collection's system.buckets namespace is derived from its measurements (time-series-buckets.ts).
  const owner = bucketsOwner(storage, db, coll);
  const info = owner ? bucketsCollectionInfo(owner) : storage.collection(db, coll);
  // A `$text` is answered through the text index; the rest of the filter compiles as usual.
  const text = planTextFilter(opts.filter ?? {}, info?.indexes, `${db}.${coll}`, opts.collation ?? defaultCollation(info));
  if (!text.match && usesTextScore(opts.sort)) throw textScoreUnavailable();
  if (!info) {
    parseForMissingCollection(text.rest, opts);
    if (opts.hint !== undefined && !isEmptyHint(opts.hint)) throw badHint();
    return [];
  }
  const hinted = opts.hint !== undefined ? resolveHint(info, opts.hint) : undefined;
  // A view's documents, or derived buckets, come from elsewhere than this namespace's storage: never indexed.
  const derived = isView(info) || owner !== undefined;
  const collation = opts.collation ?? defaultCollation(info);
  const filter = opts.filter ?? {};
  // A $near/$nearSphere query needs its geo index (291) and comes back nearest first.
  const near = opts.refuseNear || derived ? undefined : planNear(filter, info.indexes, `${db}.${coll}`);
  // A hinted index answers with the documents it holds only (sparse, partial, geo: index-membership.ts).
  const held = hinted ? indexMembership(hinted) : undefined;
  const matches = withIndex(textFilter(text, { collation, variables: opts.variables, near }), held);
  // `$natural` (as sort or hint) asks for a collection scan in record order, forwards or backwards;
  // a hinted `$natural` still leaves an explicit sort to do.
  const natural = naturalDirection(opts.sort) ?? (isPlainObject(opts.hint) ? naturalDirection(opts.hint) : undefined);
  const sort = naturalDirection(opts.sort) === undefined && opts.sort && Object.keys(opts.sort).length > 0 ? opts.sort : undefined;
  const skip = opts.skip ?? 0;
  const budget = opts.maxTimeMS ? new TimeBudget(opts.maxTimeMS) : undefined;
  const limit = opts.limit ?? 0;
  // Partial documents only where nothing else reads them: a text or $near match, a hinted index's membership, a view's pipeline.
  const fields = opts.onlyStoredBytes && !text.match && !near && !hinted && !derived ? fieldsRead(filter, opts.sort) : undefined;
  const chosen =
    natural === undefined && !derived
      ? // A $near answers by distance first, so no index gives its order.
        chooseRead(storage, info, { filter, sort: near ? undefined : opts.sort, hinted, collation, need: skip + (limit > 0 ? limit : TRIAL_RESULTS), matches, fields, budget })
      : undefined;
  // A streamed read of stored documents (no blocking sort, no view's pipeline, no $text score on them) can recheck one a cursor read ahead.
  const live = !derived && !text.match ? { storage, db, coll, matches } : undefined;
  if (chosen?.sorted) {
    // In index order, a read-ahead document whose sort key moved has moved behind or ahead of the scan.
    const inOrder = live && opts.sort ? { ...live, sortOrder: compileSort(opts.sort, collation) } : live;
    // Under a maxTimeMS or a slice the filter runs in the read, so a scan matching nothing still looks at the clock.
    if (budget || opts.slice) return lazyFilter(sortedMatches(storage, info, chosen, () => true), matches, skip, limit, inOrder, budget, opts.slice);
    return lazyFilter(sortedMatches(storage, info, chosen, matches), () => true, skip, limit, inOrder);
  }
  const plan = chosen?.plan;
  // A view's candidates are its pipeline's result (views are never indexed).
  const candidates = owner
    ? bucketDocuments(storage, owner)
    : isView(info)
    ? viewDocuments(info, (source, viewCollation) => readDocuments(storage, db, source, { collation: viewCollation }))
    : // A blocking sort estimates its memory from whole documents.
      storage.scan(db, coll, plan, sort ? undefined : fields);
  const bounds = { keep: limit > 0 ? skip + limit : 0, allowDiskUse: opts.allowDiskUse, maxBytes: opts.maxSortBytes };
  if (near) {
    const nearest = orderByDistance(lazyFilter(candidates, matches, 0, 0, undefined, budget), near);
    const ordered = sort && natural === undefined ? nearest.sort(compileSort(sort, collation)) : nearest;
    return limit > 0 ? ordered.slice(skip, skip + limit) : ordered.slice(skip);
  }
  const backwards = natural !== undefined && natural <= 0;
  const scanned = backwards ? [...lazyFilter(candidates, matches, 0, 0, undefined, budget)].reverse() : undefined;
  if (scanned && !sort) return limit > 0 ? scanned.slice(skip, skip + limit) : scanned.slice(skip);
  if (sort) {
    // An index in the sort's order makes it no blocking sort in mongod: no memory limit applies.
    if (natural === undefined && info.indexes.some((ix) => indexGivesOrder(ix, sort, collation))) bounds.allowDiskUse = true;
    return boundedSort(scanned ?? lazyFilter(candidates, matches, 0, 0, undefined, budget), compileSort(sort, collation), bounds).slice(skip);
  }
  // A hinted index answers in its key order (mongod scans that index).
  const byIndexKey = hinted && natural === undefined ? indexOrder(hinted) : undefined;
  // Walking an index is no blocking sort in mongod: no memory limit applies.
  if (byIndexKey) return boundedSort(lazyFilter(candidates, matches, 0, 0, undefined, budget), byIndexKey, { ...bounds, allowDiskUse: true }).slice(skip);
  return lazyFilter(candidates, matches, skip, limit, live, budget, opts.slice);
}

/** Accepts any near condition: it is only parsed, never run. */
const UNPLANNED_NEAR = { test: () => true };

/**
 * mongod parses the whole query before it picks its EOF plan for a missing
 * collection: a bad filter or sort is refused as on an existing one. A
 * $near needs no geo index there, since nothing is planned.
 */
function parseForMissingCollection(filter: Document, opts: ReadOptions): void {
  if (!opts.refuseNear) parseNearQuery(filter);
  compileFilter(filter, { collation: opts.collation, variables: opts.variables, near: opts.refuseNear ? undefined : UNPLANNED_NEAR });
  if (opts.sort !== undefined) compileSort(opts.sort, opts.collation);
}

function withIndex(matches: (doc: Document) => boolean, held: ((doc: Document) => boolean) | undefined): (doc: Document) => boolean {
  return held ? (doc) => held(doc) && matches(doc) : matches;
}

/** The filter with its `$text`: the rest first (the text search tokenises every string it reads), or in its `$or` clause. */
function textFilter(text: TextFilter, options: FilterOptions): (doc: Document) => boolean {
  if (text.underOr) return compileFilter(text.rest, { ...options, text: text.match });
  const rest = compileFilter(text.rest, options);
  const search = text.match;
  return search ? (doc) => rest(doc) && search(doc) : rest;
}

/** An ascending/descending index's key order as a sort (undefined for special indexes: text, hashed, ...). */
function indexOrder(index: IndexSpec): ((a: Document, b: Document) => number) | undefined {
  // A wildcard index's order is by path first: no sort of the documents' fields.
  if (isWildcardIndex(index)) return undefined;
  const directions = Object.values(index.key);
  if (!directions.every((d) => isNumeric(d) && Math.abs(toDouble(d)) === 1)) return undefined;
  return compileSort(index.key as Document, index.collation as Collation | undefined);
}

/** Whether scanning `index` (either way) yields `sort`'s order: same fields, all directions equal or all reversed. */
function indexGivesOrder(index: IndexSpec, sort: Document, collation: Collation | undefined): boolean {
  if (index.sparse || index.partialFilterExpression || !indexOrder(index)) return false;
  if (!sameCollationOf(index.collation, collation)) return false;
  const keys = Object.keys(index.key);
  const fields = Object.keys(sort);
  if (fields.length > keys.length || fields.some((f, i) => f !== keys[i])) return false;
  const flips = fields.map((f) => toDouble(sort[f]) * toDouble(index.key[f]));
  return flips.every((x) => x === 1) || flips.every((x) => x === -1);
}

function sameCollationOf(a: IndexSpec['collation'], b: Collation | undefined): boolean {
  const simple = (c: { locale: string } | undefined) => !c || c.locale === 'simple';
  if (simple(a) || simple(b)) return simple(a) && simple(b);
  return a!.locale === b!.locale && (a!.strength ?? 3) === (b!.strength ?? 3);
}

/** The collection's default collation (create option), used when an operation names none. */
export function defaultCollation(info: CollectionInfo | undefined): Collation | undefined {
  const collation = info?.options.collation;
  return isPlainObject(collation) ? (collation as Collation) : undefined;
}

/** The collation an operation runs with: its own, else the collection's default. */
export function collationFor(storage: Storage, db: string, coll: string, requested?: Collation): Collation | undefined {
  if (requested !== undefined) validateCollation(requested);
  return requested ?? defaultCollation(storage.collection(db, coll));
}

/** The first matching document (in sort order when a sort is given). */
export function readFirst(storage: Storage, db: string, coll: string, opts: ReadOptions): Document | undefined {
  for (const doc of readDocuments(storage, db, coll, { ...opts, limit: 1 })) return doc;
  return undefined;
}

/**
 * What a streamed read's document is at a later command: itself while it is
 * stored unchanged, its current version while that still matches, else
 * undefined (deleted, or no longer matching: the read then goes on to the
 * next). A cursor holds one document read ahead to know whether more
 * remain; mongod reads nothing ahead, so a getMore answers from the
 * collection as it is then (cursors/cursor-store.ts asks this first). A
 * blocking sort has none: mongod also returns what it buffered.
 */
export interface Rechecker {
  recheck(doc: Document): Document | undefined;
}

/** The results' recheck, when they are a streamed read of stored documents. */
export function recheckerOf(results: Iterable<Document>): Rechecker | undefined {
  return results instanceof FilteredRead && results.live ? results : undefined;
}

interface LiveRead {
  storage: Storage;
  db: string;
  coll: string;
  matches: (doc: Document) => boolean;
  /** An ordered read's sort: a changed document is returned only where it still sorts (its key unchanged). */
  sortOrder?: (a: Document, b: Document) => number;
}

function lazyFilter(
  candidates: Iterable<Document>,
  matches: (doc: Document) => boolean,
  skip: number,
  limit: number,
  live?: LiveRead,
  budget?: TimeBudget,
  slice?: ReadSlice,
): Iterable<Document> {
  return new FilteredRead(candidates, matches, skip, limit, live, budget, slice);
}

/**
 * The matches of the candidates, past `skip`, at most `limit`. One object
 * that is also its own recheck: a closure (and a property on a generator)
 * per read, most of which never reach a getMore, cost the engine about a
 * tenth of its CPU per single-record read in garbage collection.
 */
class FilteredRead implements Iterable<Document>, Rechecker {
  /** A document the cursor dropped on its recheck does not count against the limit. */
  private dropped = false;

  constructor(
    private readonly candidates: Iterable<Document>,
    private readonly matches: (doc: Document) => boolean,
    private readonly skip: number,
    private readonly limit: number,
    readonly live: LiveRead | undefined,
    private readonly budget?: TimeBudget,
    private readonly slice?: ReadSlice,
  ) {}

  *[Symbol.iterator](): Generator<Document> {
    let skipped = 0;
    let taken = 0;
    let read = 0;
    const budget = this.budget;
    const slice = this.slice;
    budget?.resume();
    for (const doc of this.candidates) {
      if (budget && ++read % READS_PER_CLOCK_CHECK === 0) budget.check();
      if (slice?.read()) {
        // The cursor ends its batch here; its next getMore goes on from this document.
        budget?.pause();
        yield SLICE_END;
        budget?.resume();
      }
      if (!this.matches(doc)) continue;
      if (skipped < this.skip) {
        skipped++;
        continue;
      }
      if (budget) {
        budget.pause();
        yield doc;
        budget.resume();
      } else {
        yield doc;
      }
      if (this.dropped) {
        this.dropped = false;
        continue;
      }
      if (this.limit > 0 && ++taken >= this.limit) return;
    }
  }

  recheck(doc: Document): Document | undefined {
    const live = this.live;
    const stored = storedBytesOf(doc);
    if (!live || stored === undefined) return doc;
    // A partial document (fields-read.ts) may lack its _id.
    const id = '_id' in doc ? doc._id : decodeStoredDocument(stored)._id;
    const now = live.storage.findRawById(live.db, live.coll, id, doc);
    if (now === stored) return doc;
    const current = now === undefined ? undefined : live.storage.findById(live.db, live.coll, id, doc);
    if (current && live.matches(current) && (!live.sortOrder || live.sortOrder(doc, current) === 0)) return current;
    this.dropped = true;
    return undefined;
  }
}

/**
 * A hint must name an existing index, by name or by key pattern (mongod:
 * BadValue 2). Planning itself is left to planQuery: any index gives the
 * same results, only the speed differs.
 */
export function resolveHint(info: CollectionInfo, hint: unknown): IndexSpec | undefined {
  if (isEmptyHint(hint)) return undefined;
  const found =
    typeof hint === 'string'
      ? info.indexes.find((ix) => ix.name === hint)
      : isPlainObject(hint)
        ? info.indexes.find((ix) => sameKeyPattern(ix.key, hint))
        : undefined;
  // A hidden index cannot be hinted (mongod: the same BadValue).
  if (!found || found.hidden) throw badHint();
  return found;
}

/** No hint, or `{$natural: ±1}` (a collection scan), which needs no index. */
function isEmptyHint(hint: unknown): boolean {
  return hint === null || (isPlainObject(hint) && (Object.keys(hint).length === 0 || naturalDirection(hint) !== undefined));
}

function badHint(): Error {
  return mongoError('BadValue', 'hint provided does not correspond to an existing index');
}

export function sameKeyPattern(a: Document, b: Document): boolean {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && valuesEqual(a[k], b[k]));
}
