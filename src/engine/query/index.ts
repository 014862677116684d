/**
 * The query layer's public face. Everything works on the value model of
 * types.ts (int32 -> number, integral double -> Double, int64 -> Long,
 * Decimal128) and throws MongoCommandError with mongod's codes.
 */

// Value model, BSON order, paths
export * from './types.js';
export * from './values.js';
export { assertCommandDepth } from './nesting-depth.js';
export { identical } from './identical.js';
export { compareValues, valuesEqual, compareNumbers, compareStrings, compareUtf8, typeRank, TypeRank } from './compare.js';
export { isSimpleCollation, intlLocaleOf, collationKey } from '../collation/index.js';
export { getPath, getPathValues, getMatchCandidates, getIndexKeyValues, pathExists, splitPath, isArrayIndex } from './path.js';
export { bsonTypeName, BSON_TYPE_NUMBERS } from './type-names.js';
export { toRegExp } from './regex.js';
export { validateCollation } from './collation.js';

// Filters, expressions, sort, projection
export { compileFilter, isOperatorObject } from './filter/compile-filter.js';
export { compileJsonSchema } from './filter/json-schema.js';
export type { FilterOptions, Predicate } from './filter/filter-types.js';
export { evaluateExpression, isTruthy } from './expression.js';
export { compileSort, naturalDirection, parseSort, sortKey } from './sort.js';
export { boundedSort, approximateBsonSize, MAX_BLOCKING_SORT_BYTES } from './bounded-sort.js';
export type { BoundedSortOptions } from './bounded-sort.js';
export type { SortSpec, SortDirection } from './sort.js';
export { compileProjection } from './projection.js';
export type { ProjectionOptions } from './projection.js';

// Updates
export { applyUpdate, checkUpdate, isOperatorUpdate } from './update/apply-update.js';
export { upsertSeed } from './update/upsert-seed.js';
export type { UpdateOptions, UpdateResult } from './update/update-types.js';

// Text indexes and $text
export * from './text/index.js';

// Planning and aggregation
export { planQuery, planWildcard, conditionsOf } from './planner.js';
export { runPipeline } from './pipeline/run-pipeline.js';
export { isKnownStage, splitOutputStage } from './pipeline/stages.js';
export type { PipelineContext } from './pipeline/pipeline-types.js';
export { planSortedScan, sortedScanFor } from './index-sort.js';
export type { SortedScan } from './index-sort.js';
export { hashedKey, hashedFieldPosition } from './hashed-key.js';
export { isWildcardIndex, isWildcardKeyField, wildcardShape, wildcardLeaves, flattenProjection } from './wildcard-keys.js';
export type { WildcardShape } from './wildcard-keys.js';
export { checkHashedAndWildcardSpec } from './special-index-spec.js';
