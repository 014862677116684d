import { mongoError } from '../errors.js';
import { compileFilter, compileSort, naturalDirection, planQuery, validateCollation, valuesEqual } from '../query/index.js';
import type { Collation, Document } from '../query/types.js';
import { isPlainObject } from '../query/values.js';
import type { CollectionInfo, IndexSpec, Storage } from '../storage/types.js';
import { isView, viewDocuments } from './views.js';

/**
 * The query step shared by find, count, distinct, update, delete and
 * findAndModify: plan through an index, scan, filter, then sort/skip/limit.
 * Without a sort the result stays lazy, so `find().limit(1)` or a cursor's
 * first batch does not filter the whole collection.
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
}

export function readDocuments(storage: Storage, db: string, coll: string, opts: ReadOptions): Iterable<Document> {
  if (opts.collation !== undefined) validateCollation(opts.collation);
  const info = storage.collection(db, coll);
  if (!info) {
    if (opts.hint !== undefined && !isEmptyHint(opts.hint)) throw badHint();
    return [];
  }
  if (opts.hint !== undefined) resolveHint(info, opts.hint);
  const collation = opts.collation ?? defaultCollation(info);
  const filter = opts.filter ?? {};
  const matches = compileFilter(filter, { collation, variables: opts.variables });
  const plan = planQuery(filter, info.indexes, collation);
  // A view's candidates are its pipeline's result (views are never indexed).
  const candidates = isView(info)
    ? viewDocuments(info, (source, viewCollation) => readDocuments(storage, db, source, { collation: viewCollation }))
    : storage.scan(db, coll, plan);
  const skip = opts.skip ?? 0;
  const limit = opts.limit ?? 0;
  const natural = naturalDirection(opts.sort);
  if (natural !== undefined) {
    // {$natural: 1} is storage order (_id order here); -1 reverses it.
    if (natural > 0) return lazyFilter(candidates, matches, skip, limit);
    const all = [...lazyFilter(candidates, matches, 0, 0)].reverse();
    return limit > 0 ? all.slice(skip, skip + limit) : all.slice(skip);
  }
  if (opts.sort && Object.keys(opts.sort).length > 0) {
    const all: Document[] = [];
    for (const doc of candidates) if (matches(doc)) all.push(doc);
    all.sort(compileSort(opts.sort, collation));
    return limit > 0 ? all.slice(skip, skip + limit) : all.slice(skip);
  }
  return lazyFilter(candidates, matches, skip, limit);
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

function* lazyFilter(
  candidates: Iterable<Document>,
  matches: (doc: Document) => boolean,
  skip: number,
  limit: number,
): Generator<Document> {
  let skipped = 0;
  let taken = 0;
  for (const doc of candidates) {
    if (!matches(doc)) continue;
    if (skipped < skip) {
      skipped++;
      continue;
    }
    yield doc;
    if (limit > 0 && ++taken >= limit) return;
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
  if (!found) throw badHint();
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
