import { mongoError } from '../../errors.js';
import { arithmetic } from '../arithmetic.js';
import { typedNumericOperator } from '../typed-operators.js';
import { compareValues, valuesEqual } from '../compare.js';
import { evaluateExpression, javascriptDisabled } from '../expression.js';
import { formatValue } from '../format.js';
import { cloneValue, isNumeric, isPlainObject, makeDouble, numericType, toDouble } from '../values.js';
import type { Document } from '../types.js';
import { N_ACCUMULATORS } from './accumulators-n.js';
import type { Accumulator, PipelineContext } from './pipeline-types.js';

/** $group accumulators, owned here so results keep the value model's numeric types. */

export type { Accumulator } from './pipeline-types.js';

type AccumulatorFactory = (arg: unknown, ctx: PipelineContext) => Accumulator;

const evalArg = (doc: Document, arg: unknown, ctx: PipelineContext) => evaluateExpression(doc, arg, ctx.variables);

const sum: AccumulatorFactory = (arg, ctx) => {
  let total: unknown = 0;
  return {
    add(doc) {
      const v = evalArg(doc, arg, ctx);
      const values = Array.isArray(v) && typeof arg === 'string' ? [] : [v];
      for (const x of values) if (isNumeric(x)) total = arithmetic(total, x, 'add') ?? makeDouble(toDouble(total) + toDouble(x));
    },
    result: () => total,
  };
};

/** $avg: a double, or a Decimal128 when a decimal was averaged (summed exactly, as $sum). */
const avg: AccumulatorFactory = (arg, ctx) => {
  let total: unknown = 0;
  let n = 0;
  return {
    add(doc) {
      const v = evalArg(doc, arg, ctx);
      if (isNumeric(v)) {
        total = arithmetic(total, v, 'add') ?? makeDouble(toDouble(total) + toDouble(v));
        n++;
      }
    },
    result: () => {
      if (n === 0) return null;
      return numericType(total) === 'decimal' ? typedNumericOperator('$divide', [total, n]) : makeDouble(toDouble(total) / n);
    },
  };
};

function bound(sign: 1 | -1): AccumulatorFactory {
  return (arg, ctx) => {
    let best: unknown;
    return {
      add(doc) {
        const v = evalArg(doc, arg, ctx);
        if (v === undefined || v === null) return;
        if (best === undefined || sign * compareValues(v, best, ctx.collation) > 0) best = v;
      },
      result: () => best ?? null,
    };
  };
}

const first: AccumulatorFactory = (arg, ctx) => {
  let seen = false;
  let value: unknown = null;
  return {
    add(doc) {
      if (seen) return;
      seen = true;
      value = evalArg(doc, arg, ctx) ?? null;
    },
    result: () => value,
  };
};

const last: AccumulatorFactory = (arg, ctx) => {
  let value: unknown = null;
  return {
    add(doc) {
      value = evalArg(doc, arg, ctx) ?? null;
    },
    result: () => value,
  };
};

const push: AccumulatorFactory = (arg, ctx) => {
  const out: unknown[] = [];
  return {
    add(doc) {
      const v = evalArg(doc, arg, ctx);
      if (v !== undefined) out.push(cloneValue(v));
    },
    result: () => out,
  };
};

const addToSet: AccumulatorFactory = (arg, ctx) => {
  const out: unknown[] = [];
  return {
    add(doc) {
      const v = evalArg(doc, arg, ctx);
      if (v !== undefined && !out.some((x) => valuesEqual(x, v, ctx.collation))) out.push(cloneValue(v));
    },
    result: () => out,
  };
};

const count: AccumulatorFactory = () => {
  let n = 0;
  return {
    add() {
      n++;
    },
    result: () => n,
  };
};

const mergeObjects: AccumulatorFactory = (arg, ctx) => {
  const out: Document = {};
  return {
    add(doc) {
      const v = evalArg(doc, arg, ctx);
      if (v === null || v === undefined) return;
      if (!isPlainObject(v)) throw mongoError('Location40400', `$mergeObjects requires object inputs, but input ${formatValue(v)} is of type ${typeof v}`);
      Object.assign(out, cloneValue(v));
    },
    result: () => out,
  };
};

const ACCUMULATORS: Readonly<Record<string, AccumulatorFactory>> = {
  $sum: sum,
  $avg: avg,
  $min: bound(-1),
  $max: bound(1),
  $first: first,
  $last: last,
  $push: push,
  $addToSet: addToSet,
  $count: count,
  $mergeObjects: mergeObjects,
  ...N_ACCUMULATORS,
};

/** Parses `{name: {$acc: expr}}` of a $group field into a factory of fresh accumulators. */
export function compileAccumulator(field: string, spec: unknown, ctx: PipelineContext): () => Accumulator {
  if (spec === null || typeof spec !== 'object' || Array.isArray(spec) || Object.keys(spec).length !== 1) {
    throw mongoError('Location40234', `The field '${field}' must be an accumulator object`);
  }
  const [name] = Object.keys(spec);
  const factory = ACCUMULATORS[name!];
  if (!factory && name === '$accumulator') throw javascriptDisabled();
  if (!factory) throw mongoError('Location15952', `unknown group operator '${name}'`);
  const arg = (spec as Document)[name!];
  return () => factory(arg, ctx);
}
