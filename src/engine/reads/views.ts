import { mongoError } from '../errors.js';
import { runPipeline } from '../query/index.js';
import type { Collation, Document } from '../query/types.js';
import { isPlainObject } from '../query/values.js';
import type { CollectionInfo, Storage } from '../storage/types.js';

/**
 * Read-only views. A view is a catalog entry whose options are
 * `{viewOn, pipeline, collation?}` and which holds no documents; reading it
 * runs its pipeline over the source (itself possibly a view), and the
 * operation's own query then applies to that result, as in mongod.
 */

/** mongod's limit on views defined on views. */
const MAX_VIEW_DEPTH = 20;

/** Reads a collection or view of the same database (read-documents.ts' readDocuments). */
export type SourceReader = (coll: string, collation: Collation | undefined) => Iterable<Document>;

export function isView(info: CollectionInfo | undefined): boolean {
  return info !== undefined && typeof info.options.viewOn === 'string';
}

/** The view's result: its pipeline over its source, under the view's collation. */
export function viewDocuments(info: CollectionInfo, read: SourceReader): Document[] {
  const collation = isPlainObject(info.options.collation) ? (info.options.collation as Collation) : undefined;
  const pipeline = (info.options.pipeline ?? []) as Document[];
  const source = read(info.options.viewOn as string, collation);
  return runPipeline(source, pipeline, { collation, lookup: (coll) => read(coll, undefined) });
}

/** Writes and index changes on a view fail with CommandNotSupportedOnView (166). */
export function assertNotView(storage: Storage, db: string, coll: string): void {
  if (isView(storage.collection(db, coll))) {
    throw mongoError('CommandNotSupportedOnView', `Namespace ${db}.${coll} is a view, not a collection`);
  }
}

/**
 * Checks a `create` with `viewOn` and returns the options to store. The
 * source may be missing (the view is then empty); a chain of views leading
 * back to the new name is GraphContainsCycle (93), so reads never loop.
 */
export function viewOptions(storage: Storage, db: string, name: string, options: Document): Document {
  const { viewOn, pipeline = [], collation, ...rest } = options;
  if (typeof viewOn !== 'string' || viewOn === '') {
    throw mongoError('TypeMismatch', "BSON field 'create.viewOn' is the wrong type, expected type 'string'");
  }
  if (!Array.isArray(pipeline) || !pipeline.every(isPlainObject)) {
    throw mongoError('TypeMismatch', "BSON field 'create.pipeline' is the wrong type, expected type 'array'");
  }
  const writer = (pipeline as Document[]).map((stage) => Object.keys(stage)[0]).find((s) => s === '$out' || s === '$merge');
  if (writer !== undefined) {
    throw mongoError(
      'OptionNotSupportedOnView',
      `The aggregation stage ${writer} of the pipeline cannot be used in the view definition because it writes to disk`,
    );
  }
  const unsupported = Object.keys(rest)[0];
  if (unsupported !== undefined) {
    throw mongoError('InvalidOptions', `option not supported on a view: ${unsupported}`);
  }
  for (let source: string | undefined = viewOn, depth = 0; source !== undefined; depth++) {
    if (source === name) throw mongoError('GraphContainsCycle', `View cycle detected: ${name} => ${viewOn}`);
    if (depth >= MAX_VIEW_DEPTH) throw mongoError('ViewDepthLimitExceeded', `View depth too deep; maximum depth is ${MAX_VIEW_DEPTH}`);
    const info = storage.collection(db, source);
    source = isView(info) ? (info!.options.viewOn as string) : undefined;
  }
  return collation === undefined ? { viewOn, pipeline } : { viewOn, pipeline, collation };
}
