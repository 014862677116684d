import os from 'node:os';
import { mongoError } from '../errors.js';
import type { Document } from '../query/types.js';
import { isPlainObject } from '../query/values.js';
import { bucketStats, isView } from '../reads/index.js';
import { isTimeSeries } from '../writes/index.js';
import { describeIndex } from './list-indexes.js';
import { currentOperations, latencyStatsOf } from './operation-tracker.js';
import { listLocalSessions } from './session-cache.js';
import { scaledStorageStats, scaleParam, storageStatsOf } from './storage-stats.js';
import type { CommandContext } from './types.js';

/**
 * Aggregation stages whose documents come from the server rather than a
 * collection ($collStats, $indexStats, $currentOp, $listLocalSessions). They must come first; the
 * rest of the pipeline then runs over what they produce.
 */
type SourceStage = (spec: unknown, ctx: CommandContext, target: string | undefined) => Document[];

const SOURCE_STAGES: Readonly<Record<string, SourceStage>> = {
  $collStats: collStats,
  $indexStats: indexStats,
  $currentOp: currentOp,
  $listLocalSessions: (spec, ctx, target) => listLocalSessions(spec, ctx.engine, target),
  // The engine plans each query afresh and caches no plans: the cache is always empty.
  $planCacheStats: (spec, _ctx, target) => {
    specDocument('$planCacheStats', spec);
    requireCollection('$planCacheStats', target);
    return [];
  },
};

/** The documents of a leading source stage, or undefined when the stage is not one. */
export function sourceStageDocuments(stage: Document, ctx: CommandContext, target: string | undefined): Document[] | undefined {
  const name = Object.keys(stage)[0];
  const source = name === undefined ? undefined : SOURCE_STAGES[name];
  return source?.(stage[name!], ctx, target);
}

export function isSourceStage(stage: Document | undefined): boolean {
  const name = stage && Object.keys(stage)[0];
  return name !== undefined && Object.hasOwn(SOURCE_STAGES, name);
}

function specDocument(stage: string, spec: unknown): Document {
  if (!isPlainObject(spec)) throw mongoError('FailedToParse', `${stage} must be specified as an object, got ${typeof spec}`);
  return spec;
}

function requireCollection(stage: string, target: string | undefined): string {
  if (target === undefined) {
    throw mongoError('InvalidNamespace', `${stage} cannot be run against an aggregate: 1 (it needs a collection)`);
  }
  return target;
}

/** `$collStats: {latencyStats, storageStats: {scale}, count, queryExecStats}`: one document. */
function collStats(rawSpec: unknown, ctx: CommandContext, target: string | undefined): Document[] {
  const spec = specDocument('$collStats', rawSpec);
  const coll = requireCollection('$collStats', target);
  for (const option of Object.keys(spec)) {
    if (!['latencyStats', 'storageStats', 'count', 'queryExecStats'].includes(option)) {
      throw mongoError('IDLUnknownField', `BSON field '$collStats.${option}' is an unknown field.`);
    }
  }
  const storage = ctx.engine.storage;
  const ns = `${ctx.db}.${coll}`;
  const info = storage.collection(ctx.db, coll);
  const out: Document = { ns, host: os.hostname(), localTime: new Date() };
  if (spec.latencyStats !== undefined) out.latencyStats = latencyStatsOf(ctx.engine, ns);
  const stats = info && storageStatsOf(storage, info);
  const unavailable = (what: string): Error =>
    info && isView(info)
      ? mongoError('CommandNotSupportedOnView', `Namespace ${ns} is a view, not a collection`)
      : mongoError('NamespaceNotFound', `Unable to retrieve ${what} in $collStats stage :: caused by :: Collection [${ns}] not found.`);
  if (spec.storageStats !== undefined) {
    if (!stats) throw unavailable('storageStats');
    const options = isPlainObject(spec.storageStats) ? spec.storageStats : {};
    const storageStats = scaledStorageStats(stats, info!, scaleParam(options.scale));
    // A time-series collection's buckets, as mongod reports them (derived: reads/time-series-buckets.ts).
    out.storageStats = isTimeSeries(info) ? { ...storageStats, timeseries: bucketStats(storage, info!) } : storageStats;
  }
  if (spec.count !== undefined) {
    if (!stats) throw unavailable('count');
    out.count = stats.count;
  }
  if (spec.queryExecStats !== undefined) out.queryExecStats = { collectionScans: { total: 0, nonTailable: 0 } };
  return [out];
}

/** `$indexStats: {}`: one document per index (access counts are not kept: ops stay 0). */
function indexStats(rawSpec: unknown, ctx: CommandContext, target: string | undefined): Document[] {
  const spec = specDocument('$indexStats', rawSpec);
  if (Object.keys(spec).length > 0) throw mongoError('Location28803', 'The $indexStats stage specification must be an empty object');
  const coll = requireCollection('$indexStats', target);
  const info = ctx.engine.storage.collection(ctx.db, coll);
  if (!info || isView(info)) return [];
  const since = ctx.engine.startedAt;
  return info.indexes.map((index) => ({
    name: index.name,
    key: index.key,
    host: os.hostname(),
    accesses: { ops: 0, since },
    spec: describeIndex(index),
  }));
}

/** `$currentOp: {...}` on admin with `{aggregate: 1}`: the operations in progress. */
function currentOp(rawSpec: unknown, ctx: CommandContext, target: string | undefined): Document[] {
  specDocument('$currentOp', rawSpec);
  if (ctx.db !== 'admin' || target !== undefined) {
    throw mongoError('InvalidNamespace', "$currentOp must be run against the 'admin' database with {aggregate: 1}");
  }
  return currentOperations(ctx.engine, os.hostname());
}
