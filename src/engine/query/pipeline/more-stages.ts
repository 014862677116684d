import { Long } from 'bson';
import { mongoError } from '../../errors.js';
import { boundedSort } from '../bounded-sort.js';
import { compareValues, typeRank } from '../compare.js';
import { evaluateExpression } from '../expression.js';
import { compileFilter } from '../filter/compile-filter.js';
import { formatValue } from '../format.js';
import { getPathValues } from '../path.js';
import { cloneValue, isNumeric, isPlainObject, toDouble } from '../values.js';
import type { Document } from '../types.js';
import { compileAccumulator, type Accumulator } from './accumulators.js';
import { assertRoundable, granularityRounder, type Rounder } from './granularity.js';
import { runMingoStage } from './mingo-stages.js';
import type { PipelineContext, Stage } from './pipeline-types.js';

/**
 * Stages checked against mongod 7.0 one by one ($bucket, $bucketAuto,
 * $graphLookup, $sample, $sortByCount, $redact, $unionWith, $documents, and
 * mingo's $densify/$fill/$setWindowFields), with mongod's parse errors.
 * `runStages` is passed in (stages.ts owns it) for sub-pipelines.
 */

type RunStages = (docs: Document[], pipeline: Document[], ctx: PipelineContext) => Document[];

/** The accumulators of an `output` document (mongod's default: `count: {$sum: 1}`). */
function outputAccumulators(output: Document | undefined, ctx: PipelineContext): { fields: string[]; make: () => Accumulator[] } {
  const spec = output ?? { count: { $sum: 1 } };
  const fields = Object.keys(spec);
  const factories = fields.map((f) => compileAccumulator(f, spec[f], ctx));
  return { fields, make: () => factories.map((f) => f()) };
}

function finish(id: unknown, fields: string[], accs: Accumulator[]): Document {
  const out: Document = { _id: id };
  fields.forEach((f, i) => (out[f] = accs[i]!.result() ?? null));
  return out;
}

const isGroupByExpression = (v: unknown): boolean =>
  (typeof v === 'string' && v.startsWith('$')) || (isPlainObject(v) && Object.keys(v)[0]?.startsWith('$') === true);

/** A constant of a `boundaries`/`default`: a literal, or an expression without field paths. */
function constantOf(value: unknown): unknown | undefined {
  if (typeof value === 'string' && value.startsWith('$')) return undefined;
  try {
    return evaluateExpression({}, value);
  } catch {
    return undefined;
  }
}

/** `$bucket`: mongod rewrites it as `$group` on a `$switch` of the boundaries, then `$sort: {_id: 1}`. */
function bucket(docs: Document[], spec: unknown, ctx: PipelineContext): Document[] {
  if (!isPlainObject(spec)) throw mongoError('Location40201', `Argument to $bucket stage must be an object, but found type: ${typeof spec}.`);
  let groupBy: unknown;
  let boundaries: unknown[] | undefined;
  let hasDefault = false;
  let defaultValue: unknown;
  let output: Document | undefined;
  for (const [name, arg] of Object.entries(spec)) {
    if (name === 'groupBy') {
      if (!isGroupByExpression(arg)) {
        throw mongoError('Location40202', `The $bucket 'groupBy' field must be defined as a $-prefixed path or an expression, but found: ${formatValue(arg)}.`);
      }
      groupBy = arg;
    } else if (name === 'boundaries') {
      if (!Array.isArray(arg)) throw mongoError('Location40200', `The $bucket 'boundaries' field must be an array, but found type: ${typeof arg}.`);
      boundaries = arg.map((b) => {
        const c = constantOf(b);
        if (c === undefined) throw mongoError('Location40191', `The $bucket 'boundaries' field must be an array of constant values, but found value: ${formatValue(b)}.`);
        return c;
      });
      if (boundaries.length < 2) {
        throw mongoError('Location40192', `The $bucket 'boundaries' field must have at least 2 values, but found ${boundaries.length} value(s).`);
      }
      for (let i = 1; i < boundaries.length; i++) {
        const [lower, upper] = [boundaries[i - 1], boundaries[i]];
        if (typeRank(lower) !== typeRank(upper)) {
          throw mongoError('Location40193', "All values in the the 'boundaries' option to $bucket must have the same type.");
        }
        if (compareValues(lower, upper, ctx.collation) >= 0) {
          throw mongoError('Location40194', `The 'boundaries' option to $bucket must be sorted, but elements ${i - 1} and ${i} are not in ascending order.`);
        }
      }
    } else if (name === 'default') {
      defaultValue = constantOf(arg);
      if (defaultValue === undefined) throw mongoError('Location40195', `The $bucket 'default' field must be a constant expression, but found: ${formatValue(arg)}.`);
      hasDefault = true;
    } else if (name === 'output') {
      if (!isPlainObject(arg)) throw mongoError('Location40196', `The $bucket 'output' field must be an object, but found type: ${typeof arg}.`);
      output = arg;
    } else {
      throw mongoError('Location40197', `Unrecognized option to $bucket: ${name}.`);
    }
  }
  if (groupBy === undefined || boundaries === undefined) {
    throw mongoError('Location40198', "$bucket requires 'groupBy' and 'boundaries' to be specified.");
  }
  const first = boundaries[0];
  const lastEdge = boundaries[boundaries.length - 1];
  if (hasDefault && typeRank(defaultValue) === typeRank(first)) {
    if (!(compareValues(defaultValue, first, ctx.collation) < 0 || compareValues(defaultValue, lastEdge, ctx.collation) >= 0)) {
      throw mongoError('Location40199', "The $bucket 'default' field must be less than the lowest boundary or greater than or equal to the highest boundary.");
    }
  }
  const { fields, make } = outputAccumulators(output, ctx);
  const groups = new Map<number, { id: unknown; accs: Accumulator[] }>();
  for (const doc of docs) {
    const raw = evaluateExpression(doc, groupBy, ctx.variables);
    // Aggregation $gte/$lt compare across types in BSON order; missing compares as below everything.
    const value = raw === undefined ? undefined : raw;
    let slot = -1;
    if (value !== undefined) {
      for (let i = 1; i < boundaries.length; i++) {
        if (compareValues(value, boundaries[i - 1], ctx.collation) >= 0 && compareValues(value, boundaries[i], ctx.collation) < 0) {
          slot = i - 1;
          break;
        }
      }
    }
    if (slot < 0 && !hasDefault) {
      throw mongoError('Location40066', '$switch could not find a matching branch for an input, and no default was specified.');
    }
    let g = groups.get(slot);
    if (!g) {
      g = { id: slot < 0 ? defaultValue : boundaries[slot], accs: make() };
      groups.set(slot, g);
    }
    for (const acc of g.accs) acc.add(doc);
  }
  return [...groups.values()]
    .sort((a, b) => compareValues(a.id, b.id, ctx.collation))
    .map((g) => finish(g.id, fields, g.accs));
}

/** `$bucketAuto`: documents sorted by groupBy, cut into `buckets` runs of about equal size (mongod's algorithm). */
function bucketAuto(docs: Document[], spec: unknown, ctx: PipelineContext): Document[] {
  if (!isPlainObject(spec)) throw mongoError('Location40240', `The argument to $bucketAuto must be an object, but found type: ${typeof spec}`);
  let groupBy: unknown;
  let buckets: number | undefined;
  let output: Document | undefined;
  let rounder: Rounder | undefined;
  for (const [name, arg] of Object.entries(spec)) {
    if (name === 'groupBy') {
      if (!isGroupByExpression(arg) || arg === '$') {
        throw mongoError('Location40239', `The $bucketAuto 'groupBy' field must be defined as a $-prefixed path or an expression object, but found: ${formatValue(arg)}`);
      }
      groupBy = arg;
    } else if (name === 'buckets') {
      if (!isNumeric(arg)) throw mongoError('Location40241', `The $bucketAuto 'buckets' field must be a numeric value, but found type: ${typeof arg}`);
      const n = toDouble(arg);
      if (!Number.isInteger(n) || Math.abs(n) > 2147483647) {
        throw mongoError('Location40242', `The $bucketAuto 'buckets' field must be representable as a 32-bit integer, but found ${n}`);
      }
      buckets = n;
    } else if (name === 'output') {
      if (!isPlainObject(arg)) throw mongoError('Location40244', `The $bucketAuto 'output' field must be an object, but found type: ${typeof arg}`);
      output = arg;
    } else if (name === 'granularity') {
      if (typeof arg !== 'string') throw mongoError('Location40261', `The $bucketAuto 'granularity' field must be a string, but found type: ${typeof arg}`);
      rounder = granularityRounder(arg);
    } else {
      throw mongoError('Location40245', `Unrecognized option to $bucketAuto: ${name}`);
    }
  }
  if (groupBy === undefined || buckets === undefined) throw mongoError('Location40246', "$bucketAuto requires 'groupBy' and 'buckets' to be specified");
  if (buckets <= 0) throw mongoError('Location40243', `The $bucketAuto 'buckets' field must be greater than 0, but found: ${buckets}`);
  const { fields, make } = outputAccumulators(output, ctx);

  const pairs = docs.map((doc) => {
    const key = evaluateExpression(doc, groupBy, ctx.variables);
    if (rounder) assertRoundable(key);
    return { key: (key === undefined ? null : key) as unknown, doc };
  });
  // mongod sorts the (groupBy, document) pairs with its sorter: the blocking sort's memory bound applies.
  const keyed = boundedSort(pairs, (a: Document, b: Document) => compareValues(a.key, b.key, ctx.collation), {
    allowDiskUse: ctx.allowDiskUse,
    maxBytes: ctx.maxSortBytes,
  }) as typeof pairs;
  const approx = Math.max(1, Math.round(keyed.length / buckets));
  const out: Document[] = [];
  const eq = (a: unknown, b: unknown) => compareValues(a, b, ctx.collation) === 0;
  let i = 0;
  let previousMax: unknown;
  for (let b = 1; b <= buckets && i < keyed.length; b++) {
    const accs = make();
    let min: unknown = keyed[i]!.key;
    let max: unknown = min;
    const take = () => {
      const e = keyed[i++]!;
      max = e.key;
      for (const acc of accs) acc.add(e.doc);
    };
    if (rounder) min = previousMax ?? rounder.roundDown(min);
    take();
    for (let n = 1; i < keyed.length && (n < approx || b === buckets); n++) take();
    if (rounder) {
      const edge = rounder.roundUp(max);
      // Values below the rounded edge, or equal to the last one, join this bucket.
      while (i < keyed.length && (compareValues(edge, keyed[i]!.key, ctx.collation) > 0 || eq(max, keyed[i]!.key))) take();
      max = toDouble(edge) === 0 && i < keyed.length ? rounder.roundDown(keyed[i]!.key) : edge;
    } else {
      while (i < keyed.length && eq(max, keyed[i]!.key)) take();
      // A bucket's max is the next bucket's min (exclusive), except the last one's.
      if (i < keyed.length) max = keyed[i]!.key;
    }
    previousMax = max;
    out.push(finish({ min, max }, fields, accs));
  }
  return out;
}

const GRAPH_STRING_ARGS = new Set(['from', 'as', 'connectFromField', 'connectToField', 'depthField']);

function fieldPathArg(name: string, value: string): string {
  if (value.startsWith('$')) throw mongoError('Location16410', `FieldPath field names may not start with '$'. Consider using $getField or $setField.`);
  if (value === '' || value.split('.').some((p) => p === '')) throw mongoError('Location15998', `FieldPath field names may not be empty strings (${name}).`);
  return value;
}

interface GraphSpec {
  from: string;
  as: string;
  startWith: unknown;
  connectFromField: string;
  connectToField: string;
  depthField?: string;
  maxDepth?: number;
  restrict?: Document;
}

function parseGraphLookup(spec: unknown): GraphSpec {
  if (!isPlainObject(spec)) throw mongoError('Location40327', '$graphLookup specification must be an object');
  const out: Partial<GraphSpec> = {};
  for (const [name, arg] of Object.entries(spec)) {
    if (name === 'startWith') {
      out.startWith = arg;
      continue;
    }
    if (name === 'maxDepth') {
      if (!isNumeric(arg)) throw mongoError('Location40100', `maxDepth must be numeric, found type: ${typeof arg}`);
      const n = toDouble(arg);
      if (n < 0) throw mongoError('Location40101', `maxDepth requires a nonnegative argument, found: ${n}`);
      if (!Number.isInteger(n)) throw mongoError('Location40102', `maxDepth could not be represented as a long long: ${n}`);
      out.maxDepth = n;
      continue;
    }
    if (name === 'restrictSearchWithMatch') {
      if (!isPlainObject(arg)) throw mongoError('Location40185', `restrictSearchWithMatch must be an object, found ${typeof arg}`);
      out.restrict = arg;
      continue;
    }
    if (!GRAPH_STRING_ARGS.has(name)) throw mongoError('Location40104', `Unknown argument to $graphLookup: ${name}`);
    if (typeof arg !== 'string') throw mongoError('Location40103', `expected string as argument for ${name}, found: ${typeof arg}`);
    if (name === 'from') out.from = arg;
    else (out as Document)[name] = name === 'depthField' || name === 'as' ? fieldPathArg(name, arg) : arg;
  }
  if (!out.from || !out.as || out.startWith === undefined || !out.connectFromField || !out.connectToField) {
    throw mongoError('Location40105', "$graphLookup requires 'from', 'as', 'startWith', 'connectFromField', and 'connectToField' to be specified.");
  }
  return out as GraphSpec;
}

/** Values to follow: arrays are split into their elements (startWith and connectFromField alike). */
function frontierValues(values: unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const v of values) {
    if (Array.isArray(v)) out.push(...v);
    else if (v !== undefined) out.push(v);
  }
  return out;
}

/**
 * `$graphLookup`: a breadth-first search over `from`; each round is the query
 * `{connectToField: {$in: frontier}}` (plus restrictSearchWithMatch), as
 * mongod issues it; each document is reached once, at its smallest depth.
 */
function graphLookup(docs: Document[], rawSpec: unknown, ctx: PipelineContext): Document[] {
  const spec = parseGraphLookup(rawSpec);
  const restrict = spec.restrict ? compileFilter(spec.restrict, { collation: ctx.collation, variables: ctx.variables }) : () => true;
  const foreign = [...ctx.lookup(spec.from)].filter(restrict);
  return docs.map((doc) => {
    const found: Document[] = [];
    const seen = new Set<number>();
    let frontier = frontierValues([evaluateExpression(doc, spec.startWith, ctx.variables)]);
    for (let depth = 0; frontier.length > 0 && (spec.maxDepth === undefined || depth <= spec.maxDepth); depth++) {
      const matches = compileFilter({ [spec.connectToField]: { $in: frontier } }, { collation: ctx.collation });
      const next: unknown[] = [];
      foreign.forEach((candidate, i) => {
        if (seen.has(i) || !matches(candidate)) return;
        seen.add(i);
        const hit = cloneValue(candidate);
        if (spec.depthField) hit[spec.depthField] = Long.fromNumber(depth);
        found.push(hit);
        next.push(...frontierValues(getPathValues(candidate, spec.connectFromField)));
      });
      frontier = next;
    }
    return { ...doc, [spec.as]: found };
  });
}

/** `$sample: {size}`: a random subset without repeats (all documents, shuffled, when size >= count). */
function sample(docs: Document[], spec: unknown): Document[] {
  if (!isPlainObject(spec)) throw mongoError('Location28745', 'the $sample stage specification must be an object');
  let size: number | undefined;
  for (const [name, arg] of Object.entries(spec)) {
    if (name !== 'size') throw mongoError('Location28748', `unrecognized option to $sample: ${name}`);
    if (!isNumeric(arg)) throw mongoError('Location28746', 'size argument to $sample must be a number');
    size = Math.trunc(toDouble(arg));
  }
  if (size === undefined) throw mongoError('Location28749', '$sample stage must specify a size');
  if (!(size > 0)) throw mongoError('Location28747', 'size argument to $sample must be a positive integer');
  const copy = [...docs];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy.slice(0, size);
}

/** `$sortByCount: expr` is `$group: {_id: expr, count: {$sum: 1}}` then `$sort: {count: -1}`. */
function sortByCount(run: RunStages): Stage {
  return (docs, spec, ctx) => {
    if (isPlainObject(spec)) {
      if (!Object.keys(spec)[0]?.startsWith('$')) {
        throw mongoError('Location40147', 'the sortByCount field must be defined as a $-prefixed path or an expression inside an object');
      }
    } else if (typeof spec === 'string') {
      if (!spec.startsWith('$')) throw mongoError('Location40148', 'the sortByCount field must be defined as a $-prefixed path or an expression inside an object');
    } else {
      throw mongoError('Location40149', 'the sortByCount field must be specified as a string or as an object');
    }
    return run(docs, [{ $group: { _id: spec, count: { $sum: 1 } } }, { $sort: { count: -1 } }], ctx);
  };
}

const KEEP = '$$KEEP';
const PRUNE = '$$PRUNE';
const DESCEND = '$$DESCEND';

/** `$redact`: the expression decides, level by level, to keep, prune or descend into sub-documents. */
function redact(docs: Document[], spec: unknown, ctx: PipelineContext): Document[] {
  const variables = { ...ctx.variables, KEEP, PRUNE, DESCEND };
  const visit = (doc: Document): Document | undefined => {
    const decision = evaluateExpression(doc, spec, variables);
    if (decision === KEEP) return doc;
    if (decision === PRUNE) return undefined;
    if (decision !== DESCEND) {
      throw mongoError(
        'Location17053',
        `$redact's expression should not return anything aside from the variables $$KEEP, $$DESCEND, and $$PRUNE, but returned ${formatValue(decision)}`,
      );
    }
    const out: Document = {};
    for (const [key, value] of Object.entries(doc)) {
      if (isPlainObject(value)) {
        const kept = visit(value);
        if (kept !== undefined) out[key] = kept;
      } else if (Array.isArray(value)) {
        // Sub-documents of arrays are redacted one by one; other elements stay.
        out[key] = value.flatMap((el) => (isPlainObject(el) ? (visit(el) ?? []) : [el]));
      } else {
        out[key] = value;
      }
    }
    return out;
  };
  return docs.flatMap((d): Document[] => {
    const kept = visit(d);
    return kept ? [kept] : [];
  });
}

/** `$unionWith: coll` or `{coll, pipeline}` (7.0: coll may be left out when the pipeline starts with $documents). */
function unionWith(run: RunStages): Stage {
  return (docs, spec, ctx) => {
    if (typeof spec !== 'string' && !isPlainObject(spec)) {
      throw mongoError('FailedToParse', `the $unionWith stage specification must be an object or string, but found ${typeof spec}`);
    }
    const opts: Document = typeof spec === 'string' ? { coll: spec } : spec;
    for (const key of Object.keys(opts)) {
      if (key !== 'coll' && key !== 'pipeline') throw mongoError('IDLUnknownField', `BSON field '$unionWith.${key}' is an unknown field.`);
    }
    if (opts.coll !== undefined && typeof opts.coll !== 'string') {
      throw mongoError('TypeMismatch', "BSON field '$unionWith.coll' is the wrong type, expected type 'string'");
    }
    if (opts.pipeline !== undefined && (!Array.isArray(opts.pipeline) || !opts.pipeline.every(isPlainObject))) {
      throw mongoError('TypeMismatch', "BSON field '$unionWith.pipeline' is the wrong type, expected type 'array'");
    }
    const pipeline = (opts.pipeline ?? []) as Document[];
    const writer = pipeline.map((s) => Object.keys(s)[0]).find((s) => s === '$out' || s === '$merge');
    if (writer) throw mongoError('Location31441', `${writer} is not allowed within a $unionWith's sub-pipeline`);
    const startsWithDocuments = pipeline[0] !== undefined && '$documents' in pipeline[0];
    if (opts.coll === undefined && !startsWithDocuments) {
      throw mongoError('Location40414', "BSON field '$unionWith.coll' is missing but a required field");
    }
    const other = opts.coll === undefined ? [] : [...ctx.lookup(opts.coll as string)].map(cloneValue);
    return [...docs, ...run(other, pipeline, ctx)];
  };
}

/** `$documents` in a sub-pipeline: its literal documents replace the (empty) input. */
const documents: Stage = (_docs, spec, ctx) => {
  const value = evaluateExpression({}, spec, ctx.variables);
  if (!Array.isArray(value) || !value.every(isPlainObject)) {
    throw mongoError('TypeMismatch', '$documents must evaluate to an array of objects');
  }
  return (value as Document[]).map(cloneValue);
};

/** The stages of this file; `run` is stages.ts' runStages (for $sortByCount and sub-pipelines). */
export function moreStages(run: RunStages): Record<string, Stage> {
  return {
    $bucket: bucket,
    $bucketAuto: bucketAuto,
    $graphLookup: graphLookup,
    $sample: sample,
    $sortByCount: sortByCount(run),
    $redact: redact,
    $unionWith: unionWith(run),
    $documents: documents,
    $densify: (docs, spec) => runMingoStage('$densify', docs, spec),
    $fill: (docs, spec) => runMingoStage('$fill', docs, spec),
    $setWindowFields: (docs, spec) => runMingoStage('$setWindowFields', docs, spec),
  };
}
