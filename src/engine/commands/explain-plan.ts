import { ObjectId } from 'bson';
import { mongoError } from '../errors.js';
import { hasNearCondition, planNear } from '../query/geo/index.js';
import { compareValues, compileFilter, compileSort, isOperatorObject, naturalDirection, planQuery, planTextFilter, usesTextScore } from '../query/index.js';
import type { Collation, Document } from '../query/types.js';
import { isPlainObject, isNumeric, toDouble } from '../query/values.js';
import { defaultCollation, isView, resolveHint } from '../reads/index.js';
import type { CollectionInfo, IndexSpec, ScanPlan, Storage } from '../storage/types.js';
import { nearStages, runNearRead, runTextRead, textStages } from './explain-search.js';

/**
 * The plan of one read as mongod's explain shows it (classic engine,
 * explainVersion "1"), built from the engine's own planner, and, for the
 * executionStats verbosities, what running it examines. Nothing here writes:
 * update/delete/findAndModify explains only read.
 *
 * Stages, innermost first: COLLSCAN, or IXSCAN under FETCH (IDHACK for a
 * plain `_id` lookup; EOF for a missing collection; the geo and text stages
 * of explain-search.ts), then SORT, SKIP, LIMIT and PROJECTION_DEFAULT as
 * the read asks.
 */

export interface ReadSpec {
  filter: Document;
  sort?: Document;
  skip?: number;
  limit?: number;
  projection?: Document;
  hint?: unknown;
  collation?: Collation;
  variables?: Document;
  /** The limit is the command's own (updateOne, findAndModify): no LIMIT stage, as in mongod. */
  implicitLimit?: boolean;
  /** An aggregate's $match: a $near/$nearSphere is refused there (5626500), as when it runs. */
  refuseNear?: boolean;
}

export interface ReadExplain {
  parsedQuery: Document;
  winningPlan: Document;
  /** Present when executed (verbosity executionStats/allPlansExecution). */
  execution?: ReadExecution;
}

export interface ReadExecution {
  /** Documents the read returns, in order. */
  returned: Document[];
  keysExamined: number;
  docsExamined: number;
  /** Documents that matched the filter before skip/limit. */
  matched: number;
  millis: number;
  /** The plan annotated with per-stage counts (executionStages). */
  stages: Document;
}

const SORT_MEMORY_LIMIT = 100 * 1024 * 1024;

/** Plans (and with `execute`, runs) one read over `coll`. */
export function explainRead(storage: Storage, db: string, coll: string, spec: ReadSpec, execute: boolean): ReadExplain {
  const parsedQuery = parseQuery(spec.filter);
  const info = storage.collection(db, coll);
  if (!info || isView(info)) {
    // mongod answers EOF for a collection that does not exist.
    const winningPlan = { stage: 'EOF' };
    const execution = execute ? { returned: [], keysExamined: 0, docsExamined: 0, matched: 0, millis: 0, stages: { ...winningPlan, ...counters(0) } } : undefined;
    return { parsedQuery, winningPlan, execution };
  }
  const collation = spec.collation ?? defaultCollation(info);
  const special = explainSearchRead(storage, db, coll, info, spec, parsedQuery, collation, execute);
  if (special) return special;
  const access = chooseAccess(info, spec, collation);
  const started = performance.now();
  const run = execute ? runRead(storage, db, coll, spec, access.plan, collation) : undefined;
  const counts = run && { ...run, millis: Math.round(performance.now() - started) };
  const tree = buildStages(info, spec, access, parsedQuery, counts);
  return {
    parsedQuery,
    winningPlan: tree.plan,
    execution: counts && { ...counts, stages: tree.stats! },
  };
}

/** A `$near`/`$nearSphere` or `$text` read (explain-search.ts); undefined for any other. */
function explainSearchRead(
  storage: Storage,
  db: string,
  coll: string,
  info: CollectionInfo,
  spec: ReadSpec,
  parsedQuery: Document,
  collation: Collation | undefined,
  execute: boolean,
): ReadExplain | undefined {
  const ns = `${db}.${coll}`;
  // Compiling without a near plan refuses the near operator with mongod's 5626500.
  if (spec.refuseNear && hasNearCondition(spec.filter)) compileFilter(spec.filter, { collation, variables: spec.variables });
  const text = planTextFilter(spec.filter, info.indexes, ns);
  const near = text.match ? undefined : planNear(spec.filter, info.indexes, ns);
  if (!text.match && !near) return undefined;
  const started = performance.now();
  const run = !execute ? undefined : near ? runNearRead(storage, db, coll, spec, near, collation) : runTextRead(storage, db, coll, spec, text, collation);
  const counts = run && { ...run, millis: Math.round(performance.now() - started) };
  const count = (n: number) => counters(n, counts?.millis ?? 0);
  let base: StageTree;
  if (near) {
    base = nearStages(info, near, counts, count);
  } else {
    const prefix = Object.keys(text.explain!.indexPrefix);
    const residual = parseQuery(Object.fromEntries(Object.entries(text.rest).filter(([k]) => !prefix.includes(k))));
    const wantsScore = usesTextScore(spec.projection) || usesTextScore(spec.sort);
    base = textStages(text.explain!, Object.keys(residual).length > 0 ? residual : undefined, wantsScore, counts, count);
  }
  const tree = wrapTail(base, spec, counts);
  return { parsedQuery, winningPlan: tree.plan, execution: counts && { ...counts, stages: tree.stats! } };
}

interface Access {
  kind: 'COLLSCAN' | 'IXSCAN' | 'IDHACK';
  plan?: ScanPlan;
  index?: IndexSpec;
}

function chooseAccess(info: CollectionInfo, spec: ReadSpec, collation: Collation | undefined): Access {
  if (spec.hint !== undefined) {
    if (isPlainObject(spec.hint) && naturalDirection(spec.hint) !== undefined) return { kind: 'COLLSCAN' };
    const hinted = resolveHint(info, spec.hint);
    if (hinted) {
      const plan = planQuery(spec.filter, [{ ...hinted, hidden: false }], collation) ?? { index: hinted.name };
      return { kind: 'IXSCAN', plan, index: hinted };
    }
  }
  const plan = planQuery(spec.filter, info.indexes, collation);
  if (!plan) return { kind: 'COLLSCAN' };
  const index = info.indexes.find((ix) => ix.name === plan.index)!;
  if (isIdLookup(spec, plan)) return { kind: 'IDHACK', plan, index };
  return { kind: 'IXSCAN', plan, index };
}

/** `{_id: <value>}` and nothing else that needs a query plan: mongod's IDHACK. */
function isIdLookup(spec: ReadSpec, plan: ScanPlan): boolean {
  const keys = Object.keys(spec.filter);
  return (
    plan.index === '_id_' &&
    keys.length === 1 &&
    keys[0] === '_id' &&
    plan.equals?.length === 1 &&
    !isOperatorObject(spec.filter._id) &&
    (spec.sort === undefined || Object.keys(spec.sort).length === 0) &&
    !spec.skip
  );
}

interface RunCounts {
  returned: Document[];
  keysExamined: number;
  docsExamined: number;
  matched: number;
}

function runRead(storage: Storage, db: string, coll: string, spec: ReadSpec, plan: ScanPlan | undefined, collation: Collation | undefined): RunCounts {
  // A $text is evaluated as reads/ does it (the plan shape does not show a TEXT stage).
  const text = planTextFilter(spec.filter, storage.collection(db, coll)?.indexes, `${db}.${coll}`);
  const rest = compileFilter(text.rest, { collation, variables: spec.variables });
  const matches = text.match ? (doc: Document) => rest(doc) && text.match!(doc) : rest;
  const skip = spec.skip ?? 0;
  const limit = spec.limit ?? 0;
  const sorted = spec.sort !== undefined && Object.keys(spec.sort).length > 0 && naturalDirection(spec.sort) === undefined;
  const matchedDocs: Document[] = [];
  let examined = 0;
  for (const doc of storage.scan(db, coll, plan)) {
    examined++;
    if (!matches(doc)) continue;
    matchedDocs.push(doc);
    // Without a sort the scan stops once skip + limit documents matched, as mongod's does.
    if (!sorted && limit > 0 && matchedDocs.length >= skip + limit) break;
  }
  if (sorted) matchedDocs.sort(compileSort(spec.sort!, collation));
  const returned = limit > 0 ? matchedDocs.slice(skip, skip + limit) : matchedDocs.slice(skip);
  return { returned, keysExamined: plan ? examined : 0, docsExamined: examined, matched: matchedDocs.length };
}

function counters(nReturned: number, millis = 0): Document {
  return {
    nReturned,
    executionTimeMillisEstimate: millis,
    works: nReturned + 1,
    advanced: nReturned,
    needTime: 0,
    needYield: 0,
    saveState: 0,
    restoreState: 0,
    isEOF: 1,
  };
}

interface StageTree {
  plan: Document;
  stats?: Document;
}

function buildStages(
  info: CollectionInfo,
  spec: ReadSpec,
  access: Access,
  parsedQuery: Document,
  counts: (RunCounts & { millis: number }) | undefined,
): StageTree {
  const millis = counts?.millis ?? 0;
  let plan: Document;
  let stats: Document | undefined;
  const hasQuery = Object.keys(parsedQuery).length > 0;
  if (access.kind === 'IDHACK') {
    plan = { stage: 'IDHACK' };
    if (counts) stats = { ...plan, ...counters(counts.matched, millis), keysExamined: counts.keysExamined, docsExamined: counts.docsExamined };
  } else if (access.kind === 'COLLSCAN') {
    plan = { stage: 'COLLSCAN', ...(hasQuery ? { filter: parsedQuery } : {}), direction: 'forward' };
    if (counts) stats = { ...plan, ...counters(counts.matched, millis), docsExamined: counts.docsExamined };
  } else {
    const ixscan = indexScanStage(access.index!, access.plan!);
    const residual = residualFilter(parsedQuery, access.plan!, access.index!);
    plan = { stage: 'FETCH', ...(residual ? { filter: residual } : {}), inputStage: ixscan };
    if (counts) {
      stats = {
        stage: 'FETCH',
        ...(residual ? { filter: residual } : {}),
        ...counters(counts.matched, millis),
        docsExamined: counts.docsExamined,
        alreadyHasObj: 0,
        inputStage: { ...ixscan, ...counters(counts.keysExamined, millis), keysExamined: counts.keysExamined, seeks: 1, dupsTested: 0, dupsDropped: 0 },
      };
    }
  }
  return wrapTail({ plan, stats }, spec, counts);
}

/** SORT, SKIP, LIMIT and PROJECTION_DEFAULT above the access stages, as the read asks. */
function wrapTail(base: StageTree, spec: ReadSpec, counts: (RunCounts & { millis: number }) | undefined): StageTree {
  const millis = counts?.millis ?? 0;
  let { plan, stats } = base;
  const wrap = (stage: Document, nReturned: number): void => {
    plan = { ...stage, inputStage: plan };
    if (stats) stats = { ...stage, ...counters(nReturned, millis), inputStage: stats };
  };
  const skip = spec.skip ?? 0;
  const limit = spec.limit ?? 0;
  const returned = counts?.returned.length ?? 0;
  const sort = spec.sort && Object.keys(spec.sort).length > 0 && naturalDirection(spec.sort) === undefined ? spec.sort : undefined;
  if (sort) {
    wrap({ stage: 'SORT', sortPattern: sort, memLimit: SORT_MEMORY_LIMIT, ...(limit > 0 ? { limitAmount: skip + limit } : {}), type: 'simple' }, Math.min(counts?.matched ?? 0, limit > 0 ? skip + limit : Infinity));
    if (skip > 0) wrap({ stage: 'SKIP', skipAmount: skip }, returned);
  } else {
    if (skip > 0) wrap({ stage: 'SKIP', skipAmount: skip }, returned);
    if (limit > 0 && !spec.implicitLimit) wrap({ stage: 'LIMIT', limitAmount: limit }, returned);
  }
  if (spec.projection && Object.keys(spec.projection).length > 0) wrap({ stage: 'PROJECTION_DEFAULT', transformBy: spec.projection }, returned);
  return { plan, stats };
}

function indexScanStage(index: IndexSpec, plan: ScanPlan): Document {
  const fields = Object.keys(index.key);
  const indexBounds: Document = {};
  fields.forEach((field, i) => {
    indexBounds[field] = i === 0 ? firstFieldBounds(plan, index.key[field]) : ['[MinKey, MaxKey]'];
  });
  const multiKeyPaths: Document = {};
  for (const field of fields) multiKeyPaths[field] = [];
  return {
    stage: 'IXSCAN',
    keyPattern: index.key,
    indexName: index.name,
    ...(index.collation ? { collation: index.collation } : {}),
    isMultiKey: false,
    multiKeyPaths,
    isUnique: index.unique === true || index.name === '_id_',
    isSparse: index.sparse === true,
    isPartial: index.partialFilterExpression !== undefined,
    indexVersion: index.v ?? 2,
    direction: 'forward',
    indexBounds,
  };
}

/** Bounds in mongod's notation: `[1, 1]`, `(5, inf.0]`, `["a", {})`, `[MinKey, MaxKey]`. */
function firstFieldBounds(plan: ScanPlan, direction: unknown): string[] {
  const descending = isNumeric(direction) && toDouble(direction) < 0;
  let bounds: string[];
  if (plan.equals) {
    bounds = [...plan.equals].sort(compareValues).map((v) => `[${boundValue(v)}, ${boundValue(v)}]`);
  } else if (plan.range) {
    const { min, max, minInclusive, maxInclusive } = plan.range;
    const typed = min !== undefined ? min : max;
    const low = min !== undefined ? boundValue(min) : lowestOfType(typed);
    const high = max !== undefined ? boundValue(max) : highestOfType(typed);
    const open = min !== undefined && !minInclusive ? '(' : '[';
    const close = max !== undefined && !maxInclusive ? ')' : ']';
    bounds = [`${open}${low}, ${high}${close}`];
  } else {
    bounds = ['[MinKey, MaxKey]'];
  }
  if (!descending) return bounds;
  // A descending index lists its bounds from high to low.
  return bounds.reverse().map((b) => {
    const m = /^([[(])(.*), (.*)([\])])$/.exec(b);
    return m ? `${m[4] === ']' ? '[' : '('}${m[3]}, ${m[2]}${m[1] === '[' ? ']' : ')'}` : b;
  });
}

function lowestOfType(value: unknown): string {
  if (isNumeric(value)) return '-inf.0';
  if (typeof value === 'string') return '""';
  if (value instanceof Date) return 'new Date(-9223372036854775808)';
  return 'MinKey';
}

function highestOfType(value: unknown): string {
  if (isNumeric(value)) return 'inf.0';
  if (typeof value === 'string') return '{}';
  if (value instanceof Date) return 'new Date(9223372036854775807)';
  return 'MaxKey';
}

function boundValue(value: unknown): string {
  if (isNumeric(value)) {
    const n = toDouble(value);
    if (n === Infinity) return 'inf.0';
    if (n === -Infinity) return '-inf.0';
    return String(n);
  }
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'boolean') return String(value);
  if (value instanceof Date) return `new Date(${value.getTime()})`;
  if (value instanceof ObjectId) return `ObjectId('${value.toHexString()}')`;
  return JSON.stringify(value) ?? String(value);
}

/** The conditions an index scan leaves to FETCH: all but the one on the index's first field. */
function residualFilter(parsedQuery: Document, plan: ScanPlan, index: IndexSpec): Document | undefined {
  if (Object.keys(parsedQuery).length === 0) return undefined;
  const first = Object.keys(index.key)[0]!;
  const clauses = Array.isArray(parsedQuery.$and) ? (parsedQuery.$and as Document[]) : [parsedQuery];
  let usedOne = false;
  const rest = clauses.filter((clause) => {
    const keys = Object.keys(clause);
    if (!usedOne && keys.length === 1 && keys[0] === first && (plan.equals || plan.range)) {
      // A range is two clauses ($gt and $lt); both are covered by the bounds.
      if (plan.equals) usedOne = true;
      return false;
    }
    return true;
  });
  if (rest.length === 0) return undefined;
  return rest.length === 1 ? rest[0] : { $and: rest };
}

/**
 * mongod's parsedQuery: each condition as `{path: {$op: value}}` (a bare
 * value becomes `$eq`), several joined under one `$and`.
 */
export function parseQuery(filter: Document): Document {
  const clauses: Document[] = [];
  const add = (f: Document): void => {
    for (const [key, value] of Object.entries(f)) {
      if (key === '$and' && Array.isArray(value)) {
        for (const clause of value) if (isPlainObject(clause)) add(clause);
      } else if (key.startsWith('$')) {
        clauses.push({ [key]: value });
      } else if (isOperatorObject(value)) {
        const ops = Object.entries(value);
        for (const [op, operand] of ops) {
          if (op === '$options') continue;
          if (op === '$regex' && '$options' in value) clauses.push({ [key]: { $regex: operand, $options: value.$options } });
          else clauses.push({ [key]: { [op]: operand } });
        }
      } else {
        clauses.push({ [key]: { $eq: value } });
      }
    }
  };
  add(filter);
  if (clauses.length === 0) return {};
  return clauses.length === 1 ? clauses[0]! : { $and: clauses };
}

/** The verbosity of an explain (mongod's default is allPlansExecution). */
export type Verbosity = 'queryPlanner' | 'executionStats' | 'allPlansExecution';

export function verbosityParam(value: unknown): Verbosity {
  if (value === undefined) return 'allPlansExecution';
  if (value === 'queryPlanner' || value === 'executionStats' || value === 'allPlansExecution') return value;
  throw mongoError('FailedToParse', "verbosity string must be one of {'queryPlanner', 'executionStats', 'allPlansExecution'}");
}
