import { mongoError } from '../errors.js';
import { applyUpdate, isOperatorUpdate, upsertSeed, valuesEqual } from '../query/index.js';
import type { Collation, Document } from '../query/types.js';
import type { Storage } from '../storage/types.js';
import type { DocumentCheck } from './document-validation.js';
import { assertValidId, sizeChecked, withIdFirst } from './write-batch.js';

/**
 * Applying one update to one document, and building an upserted document:
 * shared by `update` and `findAndModify`. Both are synchronous so the
 * read-modify-write of a document never interleaves with another command.
 */

/** One update statement's options (an `updates` entry, or findAndModify's): query, arrayFilters, collation, let. */
export interface UpdateStatementOptions {
  filter: Document;
  arrayFilters?: Document[];
  collation?: Collation;
  variables?: Document;
  /** The collection's document validator. */
  check?: DocumentCheck;
}

function immutableId(): Error {
  return mongoError('ImmutableField', "Performing an update on the path '_id' would modify the immutable field '_id'");
}

export function isReplacement(update: Document | Document[]): boolean {
  return !Array.isArray(update) && !isOperatorUpdate(update);
}

/** Updates `doc` in storage; returns the new document and whether it changed. */
export function updateOne(
  storage: Storage,
  db: string,
  coll: string,
  doc: Document,
  update: Document | Document[],
  opts: UpdateStatementOptions,
): { doc: Document; modified: boolean } {
  const result = applyUpdate(doc, update, {
    isInsert: false,
    arrayFilters: opts.arrayFilters,
    filter: opts.filter,
    collation: opts.collation,
    variables: opts.variables,
  });
  let next = result.doc;
  if (next._id === undefined) {
    next = withIdFirst(next, doc._id);
  } else if (!valuesEqual(next._id, doc._id)) {
    throw immutableId();
  } else {
    next = withIdFirst(next, next._id);
  }
  if (!result.modified) return { doc: next, modified: false };
  opts.check?.(next, doc);
  // `doc` is the stored pre-image, read in this same step (applyUpdate worked on a copy).
  sizeChecked(() => storage.replace(db, coll, next, doc), 'update');
  return { doc: next, modified: true };
}

/** Inserts the document an upsert creates when nothing matched; returns it. */
export function upsertOne(
  storage: Storage,
  db: string,
  coll: string,
  update: Document | Document[],
  opts: UpdateStatementOptions,
): Document {
  const seed = upsertSeed(opts.filter);
  let doc: Document;
  if (isReplacement(update)) {
    // A replacement keeps only the `_id` of the query, nothing else from it.
    doc = { ...(update as Document) };
    if (doc._id === undefined && seed._id !== undefined) doc._id = seed._id;
  } else {
    doc = applyUpdate(seed, update, {
      isInsert: true,
      arrayFilters: opts.arrayFilters,
      filter: opts.filter,
      collation: opts.collation,
      variables: opts.variables,
    }).doc;
  }
  // The query's `_id` equality is part of the upserted document: an update may not change it.
  if (seed._id !== undefined && doc._id !== undefined && !valuesEqual(seed._id, doc._id)) throw immutableId();
  doc = withIdFirst(doc);
  assertValidId(doc._id, 'InvalidIdField');
  opts.check?.(doc);
  storage.ensureCollection(db, coll);
  sizeChecked(() => storage.insert(db, coll, doc), 'upsert');
  return doc;
}
