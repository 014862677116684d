import { mongoError } from '../../errors.js';
import { valuesEqual } from '../compare.js';
import { evaluateExpression } from '../expression.js';
import { compileFilter } from '../filter/compile-filter.js';
import { formatValue } from '../format.js';
import { getMatchCandidates } from '../path.js';
import { compileProjection } from '../projection.js';
import { boundedSort } from '../bounded-sort.js';
import { compileSort } from '../sort.js';
import { carryTextScore } from '../text/text-meta.js';
import { containsText } from '../text/text-query.js';
import { cloneValue, isNumeric, isPlainObject, ownField, setField, toDouble } from '../values.js';
import { locate, removeValue, writeValue } from '../update/update-paths.js';
import type { Document } from '../types.js';
import { compileAccumulator } from './accumulators.js';
import { groupMemoryMeter } from './group-memory.js';
import { moreStages } from './more-stages.js';
import type { PipelineContext, Stage } from './pipeline-types.js';

/** Aggregation stages, each (docs, spec, ctx) -> docs. */

function nonNegativeInt(stage: string, spec: unknown): number {
  if (!isNumeric(spec) || !Number.isInteger(toDouble(spec)) || toDouble(spec) < 0) {
    throw mongoError('BadValue', `invalid argument to ${stage} stage: Expected a non-negative integer, got ${formatValue(spec)}`);
  }
  return toDouble(spec);
}

/** Sets computed fields ($addFields/$set): sub-documents of expressions merge into existing ones. */
export function addFields(doc: Document, spec: Document, root: Document, variables?: Document): Document {
  const out = cloneValue(doc);
  const assign = (target: Document, path: string, expr: unknown) => {
    if (isPlainObject(expr) && Object.keys(expr).length > 0 && !Object.keys(expr)[0]!.startsWith('$')) {
      for (const k of Object.keys(expr)) assign(target, `${path}.${k}`, expr[k]);
      return;
    }
    const value = evaluateExpression(root, expr, variables);
    const parts = path.split('.');
    if (value === undefined) {
      const slot = locate(target, parts, false);
      if (slot?.exists) removeValue(slot);
      return;
    }
    // $addFields replaces a non-document on the way rather than failing.
    let node = target;
    for (const p of parts.slice(0, -1)) {
      if (!isPlainObject(ownField(node, p))) setField(node, p, {});
      node = ownField(node, p) as Document;
    }
    setField(node, parts[parts.length - 1]!, value);
  };
  for (const key of Object.keys(spec)) assign(out, key, spec[key]);
  return out;
}

function newRoot(doc: Document, expr: unknown, variables?: Document): Document {
  const value = evaluateExpression(doc, expr, variables);
  if (!isPlainObject(value)) {
    throw mongoError('Location40228', `'newRoot' expression must evaluate to an object, but resulting value was: ${formatValue(value)}`);
  }
  return value;
}

function unsetSpec(spec: unknown): Document {
  const fields = typeof spec === 'string' ? [spec] : spec;
  if (!Array.isArray(fields) || fields.length === 0 || fields.some((f) => typeof f !== 'string')) {
    throw mongoError('Location31002', '$unset specification must be a string or an array containing only string values');
  }
  return Object.fromEntries(fields.map((f) => [f, 0]));
}

/** A grouping key: equal values (by BSON order) share one key. */
function groupKey(value: unknown): string {
  if (value === undefined || value === null) return 'null';
  if (isNumeric(value)) return `n:${toDouble(value)}`;
  if (Array.isArray(value)) return `a:[${value.map(groupKey).join(',')}]`;
  if (isPlainObject(value)) return `o:{${Object.keys(value).map((k) => `${JSON.stringify(k)}:${groupKey(value[k])}`).join(',')}}`;
  if (typeof value === 'string') return `s:${JSON.stringify(value)}`;
  return `x:${formatValue(value)}`;
}

const group: Stage = (docs, spec, ctx) => {
  if (!isPlainObject(spec) || !('_id' in spec)) throw mongoError('Location15955', "a group specification must include an _id");
  const fields = Object.keys(spec).filter((k) => k !== '_id');
  const factories = fields.map((f) => compileAccumulator(f, spec[f], ctx));
  const groups = new Map<string, { key: string; id: unknown; accs: ReturnType<(typeof factories)[number]>[] }>();
  const meter = groupMemoryMeter(spec, fields, ctx);
  for (const doc of docs) {
    const id = evaluateExpression(doc, spec._id, ctx.variables) ?? null;
    const key = ctx.collation ? `c:${groups.size}` : groupKey(id);
    let g = ctx.collation ? [...groups.values()].find((x) => valuesEqual(x.id, id, ctx.collation)) : groups.get(key);
    const isNew = !g;
    if (!g) {
      g = { key, id, accs: factories.map((f) => f()) };
      groups.set(key, g);
    }
    meter?.(doc, g.key, id, isNew);
    for (const acc of g.accs) acc.add(doc);
  }
  return [...groups.values()].map((g) => {
    const out: Document = { _id: g.id };
    fields.forEach((f, i) => (out[f] = g.accs[i]!.result()));
    return out;
  });
};

const unwind: Stage = (docs, spec) => {
  const opts = typeof spec === 'string' ? { path: spec } : spec;
  if (!isPlainObject(opts) || typeof opts.path !== 'string' || !opts.path.startsWith('$')) {
    throw mongoError('Location28650', "path option to $unwind stage should be prefixed with a '$'");
  }
  const path = opts.path.slice(1);
  const indexField = typeof opts.includeArrayIndex === 'string' ? opts.includeArrayIndex : undefined;
  const preserve = opts.preserveNullAndEmptyArrays === true;
  const parts = path.split('.');
  const out: Document[] = [];
  for (const doc of docs) {
    const slot = locate(doc, parts, false);
    const value = slot?.exists ? slot.value : undefined;
    const emit = (v: unknown, idx: unknown, present: boolean) => {
      const copy = cloneValue(doc);
      carryTextScore(doc, copy);
      const s = locate(copy, parts, false);
      if (s) {
        if (present) writeValue(s, cloneValue(v));
        else if (s.exists) removeValue(s);
      }
      if (indexField) copy[indexField] = idx;
      out.push(copy);
    };
    if (Array.isArray(value)) {
      if (value.length === 0) {
        if (preserve) emit(undefined, null, false);
      } else value.forEach((v, i) => emit(v, i, true));
    } else if (value === undefined || value === null) {
      if (preserve) emit(value, null, value === null);
    } else {
      emit(value, null, true);
    }
  }
  return out;
};

const lookup: Stage = (docs, spec, ctx) => {
  if (!isPlainObject(spec) || typeof spec.from !== 'string' || typeof spec.as !== 'string') {
    throw mongoError('FailedToParse', "$lookup requires 'from' and 'as' string fields");
  }
  const from = spec.from;
  const as = spec.as;
  const foreign = [...ctx.lookup(from)];
  const hasFields = typeof spec.localField === 'string' && typeof spec.foreignField === 'string';
  if (!hasFields && !Array.isArray(spec.pipeline)) {
    throw mongoError('FailedToParse', "$lookup requires either 'pipeline' or both 'localField' and 'foreignField'");
  }
  return docs.map((doc) => {
    let matched = foreign;
    if (hasFields) {
      const locals = getMatchCandidates(doc, spec.localField as string).map((v) => v ?? null);
      matched = matched.filter((f) => {
        const values = getMatchCandidates(f, spec.foreignField as string).map((v) => v ?? null);
        return values.some((fv) => locals.some((lv) => !Array.isArray(lv) && valuesEqual(fv, lv, ctx.collation)));
      });
    }
    if (Array.isArray(spec.pipeline)) {
      const vars: Document = { ...ctx.variables };
      if (isPlainObject(spec.let)) for (const k of Object.keys(spec.let)) vars[k] = evaluateExpression(doc, spec.let[k], ctx.variables);
      matched = runStages(matched.map(cloneValue), spec.pipeline as Document[], { ...ctx, variables: vars });
    }
    return { ...doc, [as]: matched.map(cloneValue) };
  });
};

function copyWithScore(doc: Document): Document {
  const copy = cloneValue(doc);
  carryTextScore(doc, copy);
  return copy;
}

const facet: Stage = (docs, spec, ctx) => {
  if (!isPlainObject(spec)) throw mongoError('Location15955', '$facet requires an object');
  const out: Document = {};
  for (const key of Object.keys(spec)) {
    const sub = spec[key];
    if (!Array.isArray(sub)) throw mongoError('Location40414', `arguments to $facet must be arrays, ${key} is type ${typeof sub}`);
    out[key] = runStages(docs.map(copyWithScore), sub as Document[], ctx);
  }
  return [out];
};

/** `$sort`, bounded as mongod's blocking sort; `keep` > 0 when a `$limit` follows (a top-k sort). */
function sortStage(docs: Document[], spec: unknown, ctx: PipelineContext, keep: number): Document[] {
  if (!isPlainObject(spec)) throw mongoError('Location15973', 'the $sort key specification must be an object');
  if (Object.keys(spec).length === 0) throw mongoError('Location15976', '$sort stage must have at least one sort key');
  return boundedSort(docs, compileSort(spec, ctx.collation), { keep, allowDiskUse: ctx.allowDiskUse, maxBytes: ctx.maxSortBytes });
}

export const STAGES: Readonly<Record<string, Stage>> = {
  $match: (docs, spec, ctx) => {
    if (!isPlainObject(spec)) throw mongoError('Location15959', 'the match filter must be an expression in an object');
    // The first $match of a pipeline is read through the collection (reads/); any other cannot search text.
    if (containsText(spec)) throw mongoError('Location17313', '$match with $text is only allowed as the first pipeline stage');
    const p = compileFilter(spec, { collation: ctx.collation, variables: ctx.variables });
    return docs.filter(p);
  },
  $sort: (docs, spec, ctx) => sortStage(docs, spec, ctx, 0),
  $skip: (docs, spec) => docs.slice(nonNegativeInt('$skip', spec)),
  $limit: (docs, spec) => {
    const n = nonNegativeInt('$limit', spec);
    if (n === 0) throw mongoError('Location15958', 'the limit must be positive');
    return docs.slice(0, n);
  },
  $project: (docs, spec, ctx) => {
    if (!isPlainObject(spec) || Object.keys(spec).length === 0) {
      throw mongoError('Location51272', '$project specification must be an object with at least one field');
    }
    const p = compileProjection(spec, undefined, { collation: ctx.collation, variables: ctx.variables });
    return docs.map(p);
  },
  $addFields: (docs, spec, ctx) => {
    if (!isPlainObject(spec)) throw mongoError('Location40272', '$addFields specification stage must be an object');
    return docs.map((d) => addFields(d, spec, d, ctx.variables));
  },
  $set: (docs, spec, ctx) => STAGES.$addFields!(docs, spec, ctx),
  $unset: (docs, spec) => docs.map(compileProjection(unsetSpec(spec))),
  $unwind: unwind,
  $group: group,
  $count: (docs, spec) => {
    if (typeof spec !== 'string' || spec === '' || spec.startsWith('$') || spec.includes('.')) {
      throw mongoError('Location40156', 'the count field must be a non-empty string, not starting with $ or containing .');
    }
    return docs.length === 0 ? [] : [{ [spec]: docs.length }];
  },
  $lookup: lookup,
  $facet: facet,
  $replaceRoot: (docs, spec, ctx) => {
    if (!isPlainObject(spec) || !('newRoot' in spec)) throw mongoError('Location40231', 'no newRoot specified for the $replaceRoot stage');
    return docs.map((d) => newRoot(d, spec.newRoot, ctx.variables));
  },
  $replaceWith: (docs, spec, ctx) => docs.map((d) => newRoot(d, spec, ctx.variables)),
  // The aggregate command answers a leading $geoNear (query/geo); anywhere else it is misplaced.
  $geoNear: () => {
    throw mongoError('Location40602', '$geoNear is only valid as the first stage in a pipeline.');
  },
  // $bucket, $bucketAuto, $graphLookup, $sample, $sortByCount, $redact, $unionWith, $densify, $fill, $setWindowFields, $documents.
  ...moreStages(runStages),
};

const OUTPUT_STAGES = new Set(['$out', '$merge']);
/** Stages that map each document to one new document. */
const SCORE_KEEPING_STAGES = new Set(['$project', '$addFields', '$set', '$unset', '$replaceRoot', '$replaceWith', '$lookup']);

function stageName(stage: unknown): string {
  if (!isPlainObject(stage) || Object.keys(stage).length !== 1) {
    throw mongoError('Location40323', 'A pipeline stage specification object must contain exactly one field.');
  }
  return Object.keys(stage)[0]!;
}

/**
 * Splits a trailing $out/$merge off a pipeline (the commands layer writes it);
 * one anywhere else is an error.
 */
/** A stage the engine runs ($out and $merge aside: splitOutputStage takes them off first). */
export function isKnownStage(name: string): boolean {
  return Object.hasOwn(STAGES, name);
}

export function splitOutputStage(pipeline: Document[]): { stages: Document[]; output?: Document } {
  pipeline.forEach((stage, i) => {
    const name = stageName(stage);
    if (OUTPUT_STAGES.has(name) && i !== pipeline.length - 1) {
      throw mongoError('Location40601', `${name} can only be the final stage in the pipeline`);
    }
  });
  const last = pipeline[pipeline.length - 1];
  if (last && OUTPUT_STAGES.has(stageName(last))) return { stages: pipeline.slice(0, -1), output: last };
  return { stages: pipeline };
}

export function runStages(docs: Document[], pipeline: Document[], ctx: PipelineContext): Document[] {
  if (!Array.isArray(pipeline)) throw mongoError('TypeMismatch', "'pipeline' option must be specified as an array");
  let current = docs;
  for (let i = 0; i < pipeline.length; i++) {
    const stage = pipeline[i]!;
    const name = stageName(stage);
    const next = pipeline[i + 1];
    if (name === '$sort' && next && stageName(next) === '$limit') {
      // $sort then $limit: only the first `limit` documents of the order are ever held.
      current = STAGES.$limit!(sortStage(current, stage.$sort, ctx, nonNegativeInt('$limit', next.$limit)), next.$limit, ctx);
      i++;
      continue;
    }
    if (OUTPUT_STAGES.has(name)) {
      throw mongoError('Location40601', `${name} must be split off with splitOutputStage before running the pipeline`);
    }
    const run = STAGES[name];
    if (!run) throw mongoError('Location40324', `Unrecognized pipeline stage name: '${name}'`);
    const produced = run(current, stage[name], ctx);
    // A document made from one keeps its text score (metadata), as in mongod.
    if (SCORE_KEEPING_STAGES.has(name) && produced.length === current.length) produced.forEach((d, k) => carryTextScore(current[k]!, d));
    current = produced;
  }
  return current;
}
