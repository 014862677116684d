import { mongoError } from '../../errors.js';
import { compareValues } from '../compare.js';
import { evaluateExpression } from '../expression.js';
import { formatValue } from '../format.js';
import { compileSort } from '../sort.js';
import { cloneValue, isNumeric, isPlainObject, makeDouble, toDouble } from '../values.js';
import type { Document } from '../types.js';
import type { Accumulator, PipelineContext } from './pipeline-types.js';

/**
 * The $group accumulators mongod 5.0+ added: standard deviations and the
 * "n" family ($firstN/$lastN/$minN/$maxN, $top/$bottom/$topN/$bottomN), with
 * mongod's argument checks and codes (accumulator_multi.cpp).
 */

type Factory = (arg: unknown, ctx: PipelineContext) => Accumulator;

const evalArg = (doc: Document, arg: unknown, ctx: PipelineContext) => evaluateExpression(doc, arg, ctx.variables);

/** Welford's running variance: numbers only, as mongod ignores other values. */
function stdDev(sample: boolean): Factory {
  return (arg, ctx) => {
    let n = 0;
    let mean = 0;
    let m2 = 0;
    return {
      add(doc) {
        // In $group an array value is not a number: ignored, as mongod does.
        const x = evalArg(doc, arg, ctx);
        if (!isNumeric(x)) return;
        const d = toDouble(x);
        n++;
        const delta = d - mean;
        mean += delta / n;
        m2 += delta * (d - mean);
      },
      result: () => {
        const count = sample ? n - 1 : n;
        if (count <= 0) return null;
        return makeDouble(Math.sqrt(m2 / count));
      },
    };
  };
}

/** mongod's validateN: a positive integral number. */
function validateN(value: unknown): number {
  if (!isNumeric(value)) throw mongoError('Location5787902', `Value for 'n' must be of integral type, but found ${formatValue(value)}`);
  const n = toDouble(value);
  if (!Number.isInteger(n)) throw mongoError('Location5787903', `Value for 'n' must be of integral type, but found ${formatValue(value)}`);
  if (n <= 0) throw mongoError('Location5787908', `'n' must be greater than 0, found ${n}`);
  return n;
}

/** `{input, n}` of $firstN/$lastN/$minN/$maxN. */
function nInputArgs(name: string, spec: unknown): { n: unknown; input: unknown } {
  if (!isPlainObject(spec)) {
    const code = name === '$firstN' || name === '$lastN' ? 'Location5787801' : 'Location5787900';
    throw mongoError(code, `specification must be an object; found ${formatValue(spec)}`);
  }
  for (const key of Object.keys(spec)) {
    if (key !== 'n' && key !== 'input') throw mongoError('Location5787901', `Unknown argument for 'n' operator: ${key}`);
  }
  if (!('n' in spec)) throw mongoError('Location5787906', "Missing value for 'n'");
  if (!('input' in spec)) throw mongoError('Location5787907', "Missing value for 'input'");
  return { n: spec.n, input: spec.input };
}

/** `n` is an expression evaluated once per group (on its first document). */
function lazyN(nExpr: unknown, ctx: PipelineContext): (doc: Document) => number {
  let n: number | undefined;
  return (doc) => (n ??= validateN(evalArg(doc, nExpr, ctx)));
}

function firstLastN(last: boolean): Factory {
  return (spec, ctx) => {
    const { n: nExpr, input } = nInputArgs(last ? '$lastN' : '$firstN', spec);
    const nOf = lazyN(nExpr, ctx);
    let out: unknown[] = [];
    return {
      add(doc) {
        const n = nOf(doc);
        if (!last && out.length >= n) return;
        // Missing becomes null: $firstN/$lastN keep nulls.
        out.push(cloneValue(evalArg(doc, input, ctx) ?? null));
        if (last && out.length > n) out = out.slice(out.length - n);
      },
      result: () => out,
    };
  };
}

function minMaxN(sign: 1 | -1): Factory {
  return (spec, ctx) => {
    const { n: nExpr, input } = nInputArgs(sign > 0 ? '$maxN' : '$minN', spec);
    const nOf = lazyN(nExpr, ctx);
    const values: unknown[] = [];
    let n = 0;
    return {
      add(doc) {
        n = nOf(doc);
        const v = evalArg(doc, input, ctx);
        if (v === undefined || v === null) return;
        values.push(cloneValue(v));
      },
      // $maxN in descending order, $minN ascending; a stable sort keeps the first seen of equals.
      result: () => values.sort((a, b) => -sign * compareValues(a, b, ctx.collation)).slice(0, n),
    };
  };
}

/** `{n?, output, sortBy}` of $top/$bottom/$topN/$bottomN. */
function topBottomArgs(name: string, spec: unknown, single: boolean): { n: unknown; output: unknown; sortBy: Document } {
  if (!isPlainObject(spec)) throw mongoError('Location5788001', `specification must be an object; found ${formatValue(spec)}`);
  for (const key of Object.keys(spec)) {
    if (key === 'output' || key === 'sortBy' || (!single && key === 'n')) continue;
    throw mongoError('Location5788002', `Unknown argument to ${name} '${key}'`);
  }
  if (!single && !('n' in spec)) throw mongoError('Location5788003', "Missing value for 'n'");
  if (!('output' in spec)) throw mongoError('Location5788004', "Missing value for 'output'");
  if (!('sortBy' in spec)) throw mongoError('Location5788005', "Missing value for 'sortBy'");
  if (!isPlainObject(spec.sortBy)) throw mongoError('TypeMismatch', `${name} sortBy must be an object`);
  return { n: single ? 1 : spec.n, output: spec.output, sortBy: spec.sortBy };
}

function topBottom(name: string, bottom: boolean, single: boolean): Factory {
  return (spec, ctx) => {
    const { n: nExpr, output, sortBy } = topBottomArgs(name, spec, single);
    const compare = compileSort(sortBy, ctx.collation);
    const nOf = lazyN(nExpr, ctx);
    const entries: { doc: Document; out: unknown }[] = [];
    let n = 1;
    return {
      add(doc) {
        n = nOf(doc);
        // Missing output becomes null: these accumulators keep nulls.
        entries.push({ doc, out: cloneValue(evalArg(doc, output, ctx) ?? null) });
      },
      result: () => {
        const sorted = entries.sort((a, b) => compare(a.doc, b.doc)).map((e) => e.out);
        const picked = bottom ? sorted.slice(Math.max(0, sorted.length - n)) : sorted.slice(0, n);
        return single ? (picked[0] ?? null) : picked;
      },
    };
  };
}

export const N_ACCUMULATORS: Readonly<Record<string, Factory>> = {
  $stdDevPop: stdDev(false),
  $stdDevSamp: stdDev(true),
  $firstN: firstLastN(false),
  $lastN: firstLastN(true),
  $maxN: minMaxN(1),
  $minN: minMaxN(-1),
  $top: topBottom('$top', false, true),
  $bottom: topBottom('$bottom', true, true),
  $topN: topBottom('$topN', false, false),
  $bottomN: topBottom('$bottomN', true, false),
};
