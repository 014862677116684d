import { ObjectId } from 'bson';
import { mongoError } from '../errors.js';
import type { IndexSpec, ScanPlan } from '../model/index.js';
import { hasNearCondition, planNear } from '../query/geo/index.js';
import {
  compareValues, compileFilter, compileSort, hashedFieldPosition, isOperatorObject, naturalDirection, planTextFilter, usesTextScore, wildcardShape,
} from '../query/index.js';
import type { Collation, Document } from '../query/types.js';
import { bsonType as bsonTypeOf, isPlainObject, isNumeric, toDouble } from '../query/values.js';
import { chooseRead, indexableSort, TRIAL_RESULTS } from '../reads/choose-plan.js';
import { defaultCollation, isView, resolveHint } from '../reads/index.js';
import type { CollectionInfo, Storage } from '../storage/types.js';
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
 * the read asks. The plan is the one reads run (reads/choose-plan.ts): when
 * the index gives the sort there is no SORT stage, the IXSCAN shows its
 * direction and compound bounds, and the counts stop where the scan stops
 * (skip + limit matches).
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
  const access = chooseAccess(storage, info, spec, collation);
  const started = performance.now();
  const run = execute ? runRead(storage, db, coll, spec, access, collation) : undefined;
  const counts = run && { ...run, millis: Math.round(performance.now() - started) };
  const multikey = access.index ? storage.multikeyIndexes(db, coll).includes(access.index.name) : false;
  const tree = buildStages(info, spec, access, parsedQuery, counts, multikey);
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
  const text = planTextFilter(spec.filter, info.indexes, ns, collation);
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
  /** The index scan gives the sort's order (no SORT stage). */
  sorted?: boolean;
}

function chooseAccess(storage: Storage, info: CollectionInfo, spec: ReadSpec, collation: Collation | undefined): Access {
  const natural = spec.hint !== undefined && isPlainObject(spec.hint) && naturalDirection(spec.hint) !== undefined;
  if (natural) return { kind: 'COLLSCAN' };
  const hinted = spec.hint !== undefined ? resolveHint(info, spec.hint) : undefined;
  const skip = spec.skip ?? 0;
  const limit = spec.limit ?? 0;
  const chosen = chooseRead(storage, info, {
    filter: spec.filter,
    sort: spec.sort,
    hinted: hinted && { ...hinted, hidden: false },
    collation,
    need: skip + (limit > 0 ? limit : TRIAL_RESULTS),
    matches: readMatcher(spec, info.indexes, `${info.db}.${info.name}`, collation),
  });
  if (hinted) return { kind: 'IXSCAN', plan: chosen.plan ?? { index: hinted.name }, index: hinted, sorted: chosen.sorted };
  const plan = chosen.plan;
  if (!plan) return { kind: 'COLLSCAN' };
  const index = info.indexes.find((ix) => ix.name === plan.index)!;
  if (isIdLookup(spec, plan)) return { kind: 'IDHACK', plan, index };
  return { kind: 'IXSCAN', plan, index, sorted: chosen.sorted };
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

/** The read's filter as reads/ evaluates it: a $text through the text index (the plan shape shows no TEXT stage). */
function readMatcher(spec: ReadSpec, indexes: IndexSpec[] | undefined, ns: string, collation: Collation | undefined): (doc: Document) => boolean {
  const text = planTextFilter(spec.filter, indexes, ns);
  const rest = compileFilter(text.rest, { collation, variables: spec.variables });
  return text.match ? (doc: Document) => rest(doc) && text.match!(doc) : rest;
}

function runRead(storage: Storage, db: string, coll: string, spec: ReadSpec, access: Access, collation: Collation | undefined): RunCounts {
  const plan = access.plan;
  const matches = readMatcher(spec, storage.collection(db, coll)?.indexes, `${db}.${coll}`, collation);
  const skip = spec.skip ?? 0;
  const limit = spec.limit ?? 0;
  // An index that gives the order leaves nothing to sort: the scan stops like an unsorted one.
  const sorted = indexableSort(spec.sort) !== undefined && !access.sorted;
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
  multikey: boolean,
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
    const ixscan = indexScanStage(access.index!, access.plan!, multikey);
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
  return wrapTail({ plan, stats }, spec, counts, access.sorted === true);
}

/** SORT, SKIP, LIMIT and PROJECTION_DEFAULT above the access stages, as the read asks. */
/** `sortedByIndex`: the index scan gives the sort's order, so there is no SORT stage. */
function wrapTail(base: StageTree, spec: ReadSpec, counts: (RunCounts & { millis: number }) | undefined, sortedByIndex = false): StageTree {
  const millis = counts?.millis ?? 0;
  let { plan, stats } = base;
  const wrap = (stage: Document, nReturned: number): void => {
    plan = { ...stage, inputStage: plan };
    if (stats) stats = { ...stage, ...counters(nReturned, millis), inputStage: stats };
  };
  const skip = spec.skip ?? 0;
  const limit = spec.limit ?? 0;
  const returned = counts?.returned.length ?? 0;
  const sort = sortedByIndex ? undefined : indexableSort(spec.sort);
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

/**
 * A wildcard index's scan as mongod shows it: its key pattern with `$_path`
 * and the path read in place of the `$**` field (`{$_path: 1, a: 1}`).
 */
function scannedKeyPattern(index: IndexSpec, plan: ScanPlan): Document {
  const shape = wildcardShape(index);
  if (!shape || !plan.wildcard) return index.key;
  const out: Document = {};
  for (const [field, dir] of Object.entries(index.key)) {
    if (field !== shape.field) out[field] = dir;
    else Object.assign(out, { $_path: 1, [plan.wildcard.path]: dir });
  }
  return out;
}

function indexScanStage(index: IndexSpec, plan: ScanPlan, multikey: boolean): Document {
  const keyPattern = scannedKeyPattern(index, plan);
  const fields = Object.keys(keyPattern);
  const descending = (field: string): boolean => isNumeric(keyPattern[field]) && toDouble(keyPattern[field]) < 0;
  // Storage keeps the first field ascending: a descending first field walked forwards there is mongod's backward.
  const backward = (plan.backward === true) !== descending(fields[0]!);
  const reading = plan.keyBounds;
  const indexBounds: Document = {};
  fields.forEach((field, i) => {
    const on = reading
      ? i < reading.equals.length
        ? { equals: [reading.equals[i]] }
        : i === reading.equals.length && reading.range
          ? { range: reading.range }
          : i === reading.equals.length && reading.points
            ? { equals: reading.points }
            : {}
      : i === 0
        ? plan
        : {};
    indexBounds[field] = fieldBounds(on, descending(field) !== (reading ? backward : false));
  });
  // `$exists` on a wildcard path reads the path and its subpaths, any value.
  if (plan.wildcard?.subpaths) {
    const path = plan.wildcard.path;
    indexBounds.$_path = [`[${JSON.stringify(path)}, ${JSON.stringify(path)}]`, `[${JSON.stringify(`${path}.`)}, ${JSON.stringify(`${path}/`)})`];
    indexBounds[path] = ['[MinKey, MaxKey]'];
  }
  const multiKeyPaths: Document = {};
  for (const field of fields) multiKeyPaths[field] = [];
  return {
    stage: 'IXSCAN',
    keyPattern,
    indexName: index.name,
    ...(index.collation ? { collation: index.collation } : {}),
    isMultiKey: multikey,
    multiKeyPaths,
    isUnique: index.unique === true || index.name === '_id_',
    isSparse: index.sparse === true,
    isPartial: index.partialFilterExpression !== undefined,
    indexVersion: index.v ?? 2,
    direction: reading && backward ? 'backward' : 'forward',
    indexBounds,
  };
}

/**
 * One field's bounds in mongod's notation: `[1, 1]`, `(5, inf.0]`,
 * `["a", {})`, `[MinKey, MaxKey]`; `reversed` (a descending field, or a
 * backward scan) lists them from high to low.
 */
function fieldBounds(on: Pick<ScanPlan, 'equals' | 'range'>, reversed: boolean): string[] {
  let bounds: string[];
  if (on.equals) {
    bounds = [...on.equals].sort(compareValues).map((v) => `[${boundValue(v)}, ${boundValue(v)}]`);
  } else if (on.range) {
    const { min, max, minInclusive, maxInclusive } = on.range;
    const typed = min !== undefined ? min : max;
    const low = min !== undefined ? boundValue(min) : lowestOfType(typed);
    const high = max !== undefined ? boundValue(max) : highestOfType(typed);
    const open = min !== undefined && !minInclusive ? '(' : '[';
    const close = max !== undefined && !maxInclusive ? ')' : ']';
    bounds = [`${open}${low}, ${high}${close}`];
  } else {
    bounds = ['[MinKey, MaxKey]'];
  }
  if (!reversed) return bounds;
  return bounds.reverse().map((b) => {
    const m = /^([[(])(.*), (.*)([\])])$/.exec(b);
    return m ? `${m[4] === ']' ? '[' : '('}${m[3]}, ${m[2]}${m[1] === '[' ? ']' : ')'}` : b;
  });
}

function lowestOfType(value: unknown): string {
  if (isNumeric(value)) return '-inf.0';
  if (typeof value === 'string') return '""';
  if (value instanceof Date) return 'new Date(-9223372036854775808)';
  if (value instanceof ObjectId) return "ObjectId('000000000000000000000000')";
  return 'MinKey';
}

function highestOfType(value: unknown): string {
  if (isNumeric(value)) return 'inf.0';
  if (typeof value === 'string') return '{}';
  if (value instanceof Date) return 'new Date(9223372036854775807)';
  if (value instanceof ObjectId) return "ObjectId('ffffffffffffffffffffffff')";
  return 'MaxKey';
}

function boundValue(value: unknown): string {
  // A long (a hashed key) keeps every digit.
  if (bsonTypeOf(value) === 'Long') return String(value);
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
  // Hashed bounds are inexact (values share a hash): mongod's FETCH checks the whole filter.
  if (hashedFieldPosition(index) >= 0 && plan.equals) return parsedQuery;
  if (plan.wildcard) return wildcardResidual(parsedQuery, plan);
  const first = Object.keys(index.key)[0]!;
  const clauses = Array.isArray(parsedQuery.$and) ? (parsedQuery.$and as Document[]) : [parsedQuery];
  if (plan.keyBounds) return remaining(clauses.filter((clause) => !coveredByKeyBounds(clause, plan.keyBounds!, Object.keys(index.key))));
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
  return remaining(rest);
}

/** A wildcard scan answers its path's equality or range (a `$in` or `$exists` reads more than matches). */
function wildcardResidual(parsedQuery: Document, plan: ScanPlan): Document | undefined {
  const clauses = Array.isArray(parsedQuery.$and) ? (parsedQuery.$and as Document[]) : [parsedQuery];
  const bounds = plan.keyBounds!;
  const exact = (clause: Document): boolean => {
    const keys = Object.keys(clause);
    if (plan.wildcard!.subpaths || keys.length !== 1 || keys[0] !== plan.wildcard!.path || !isPlainObject(clause[keys[0]!])) return false;
    const [op] = Object.keys(clause[keys[0]!] as Document);
    if (bounds.points) return op === '$in';
    return bounds.range ? ['$gt', '$gte', '$lt', '$lte'].includes(op!) : op === '$eq' && bounds.equals.length > 0;
  };
  return remaining(clauses.filter((clause) => !exact(clause)));
}

function remaining(rest: Document[]): Document | undefined {
  if (rest.length === 0) return undefined;
  return rest.length === 1 ? rest[0] : { $and: rest };
}

/** A parsed clause the compound bounds answer: `$eq` on a prefix field, or the used range operators on the next one. */
function coveredByKeyBounds(clause: Document, bounds: NonNullable<ScanPlan['keyBounds']>, fields: string[]): boolean {
  const keys = Object.keys(clause);
  if (keys.length !== 1) return false;
  const i = fields.indexOf(keys[0]!);
  const condition = clause[keys[0]!];
  if (i < 0 || !isPlainObject(condition)) return false;
  const [op, value] = Object.entries(condition)[0] ?? [];
  if (i < bounds.equals.length) return op === '$eq' && compareValues(value, bounds.equals[i]) === 0;
  const range = bounds.range;
  if (i !== bounds.equals.length || !range) return false;
  if ((op === '$gt' || op === '$gte') && range.min !== undefined) return range.minInclusive === (op === '$gte') && compareValues(value, range.min) === 0;
  if ((op === '$lt' || op === '$lte') && range.max !== undefined) return range.maxInclusive === (op === '$lte') && compareValues(value, range.max) === 0;
  return false;
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
