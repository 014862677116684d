/**
 * The write side shared by the commands: statement loops and write errors,
 * `_id` handling, applying one update statement or upsert, collection
 * validators, and aggregate's `$out`/`$merge` output.
 */
export {
  assertValidId,
  flushWrites,
  isOrdered,
  prepareInsert,
  runStatements,
  sizeChecked,
  toWriteError,
  withIdFirst,
  withWriteErrors,
} from './write-batch.js';
export type { WriteErrorEntry } from './write-batch.js';
export { isReplacement, updateOne, upsertOne } from './update-statement.js';
export type { UpdateStatementOptions } from './update-statement.js';
export { assertValidValidator, documentCheck } from './document-validation.js';
export type { DocumentCheck } from './document-validation.js';
export { writeOutput } from './aggregate-output.js';
export { assertExpireNeedsTimeSeries, isTimeSeries, sameTimeSeries, timeSeriesCheck, timeSeriesOptions } from './time-series.js';
export { assertTimeSeriesIndex, bucketsIndexSpec, defaultTimeSeriesIndex } from './time-series-indexes.js';
export { assertTimeSeriesUpdate } from './time-series-updates.js';
export { cappedOptions, isCapped } from './capped.js';
export { preAndPostImagesOption, withPreAndPostImages } from './pre-and-post-images.js';
