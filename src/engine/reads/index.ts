/**
 * The read side shared by the commands: the query step over storage (index
 * plan, scan, filter, sort/skip/limit), read-only views, and the `_id`
 * point-read fast path of find, and the derived buckets of time-series collections.
 */
export { collationFor, defaultCollation, readDocuments, readFirst, recheckerOf, resolveHint, sameKeyPattern, type Rechecker } from './read-documents.js';
export type { ReadOptions } from './read-documents.js';
export { assertNotView, isView, viewDocuments, viewOptions } from './views.js';
export type { SourceReader } from './views.js';
export { findById } from './find-by-id.js';
export type { FindParams } from './find-by-id.js';
export { ReadSlice, SLICE_END } from './time-slice.js';
export { tailableRead } from './tailable-read.js';
export type { TailSource, TailableReadOptions } from './tailable-read.js';
export { assertNotBuckets, bucketDocuments, bucketStats, bucketsCollectionInfo, bucketsOwner, BUCKETS_PREFIX } from './time-series-buckets.js';
