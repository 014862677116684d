import { Context, evalExpr } from 'mingo/core';
import * as accumulatorOps from 'mingo/operators/accumulator';
import * as expressionOps from 'mingo/operators/expression';
import { isMongoCommandError, mongoError } from '../errors.js';
import { arithmetic } from './arithmetic.js';
import { compareValues } from './compare.js';
import { comparisonExpressionOperators, comparisonOperands, compared, isComparisonOperator } from './expression-comparison.js';
import { regexExpressionOperators } from './regex-expressions.js';
import { bsonSizeOf, sizeExpressionOperators } from './size-operators.js';
import { textScoreOf } from './text/text-meta.js';
import { textScoreUnavailable } from './text/text-query.js';
import { TYPED_NUMERIC_OPERATORS, typedNumericOperator } from './typed-operators.js';
import { isNumeric, isPlainObject, makeDouble, toDouble, toPlainNumbers } from './values.js';
import type { Document } from './types.js';

/**
 * Aggregation expressions. Field references, variables, literals and
 * sub-documents are resolved here so values keep their exact types; operator
 * expressions ({$add: ...}) go to mingo on a copy whose numbers are plain JS
 * numbers (mingo does not know Long/Decimal128/Double), and its numeric
 * results come back into the value model.
 */

/** mongod's internalQueryMaxRangeBytes, counted as mongod does: 16 bytes per element. */
const MAX_RANGE_BYTES = 100 * 1024 * 1024;
const RANGE_ELEMENT_BYTES = 16;

type MingoOperator = (obj: unknown, expr: unknown, options: unknown) => unknown;

/**
 * mingo's `$range` builds whatever it is asked for: `{$range: [0, 1e9]}`
 * would take gigabytes and can take the process down. mongod refuses a range
 * over its memory limit (ExceededMemoryLimit); so do we, before building it.
 */
const guardedRange: MingoOperator = (obj, expr, options) => {
  if (Array.isArray(expr) && expr.length > 1 && expr.length < 4) {
    const [start, end, step = 1] = evalExpr(obj, expr, options as never) as unknown[];
    if (typeof start === 'number' && typeof end === 'number' && typeof step === 'number' && step !== 0) {
      const bytes = Math.max(0, Math.ceil((end - start) / step)) * RANGE_ELEMENT_BYTES;
      if (bytes > MAX_RANGE_BYTES) {
        throw mongoError(
          'ExceededMemoryLimit',
          `$range would use too much memory (${bytes} bytes) and cannot spill to disk. Memory limit: ${MAX_RANGE_BYTES} bytes`,
        );
      }
    }
  }
  return (expressionOps.$range as MingoOperator)(obj, expr, options);
};

// The regex operators are the engine's (regex-expressions.ts): the query $regex's backtrack budget, mongod's idx and codes.
// $bsonSize and $binarySize are the engine's too: mingo has neither (size-operators.ts).
// So are the comparisons: mingo's compare as its query operators do (expression-comparison.ts).
const EXPRESSION_OPERATORS = {
  ...expressionOps,
  $range: guardedRange,
  ...regexExpressionOperators,
  ...sizeExpressionOperators,
  ...comparisonExpressionOperators,
};
const CONTEXT = Context.init({
  expression: EXPRESSION_OPERATORS as never,
  accumulator: accumulatorOps,
});

export type Variables = Document;

/** `$a.b` over arrays: maps through arrays of sub-documents as mongod does. */
export function resolveFieldRef(doc: unknown, path: string[]): unknown {
  let cur: unknown = doc;
  for (let i = 0; i < path.length; i++) {
    if (Array.isArray(cur)) {
      const rest = path.slice(i);
      const out: unknown[] = [];
      for (const el of cur) {
        if (!isPlainObject(el) && !Array.isArray(el)) continue;
        const v = resolveFieldRef(el, rest);
        if (v !== undefined) out.push(v);
      }
      return out;
    }
    if (!isPlainObject(cur)) return undefined;
    cur = cur[path[i]!];
    if (cur === undefined) return undefined;
  }
  return cur;
}

function resolveVariable(name: string, doc: unknown, variables?: Variables): unknown {
  const [head, ...rest] = name.split('.');
  let base: unknown;
  if (head === 'ROOT' || head === 'CURRENT') base = doc;
  else if (variables && head! in variables) base = variables[head!];
  else if (head === 'NOW') base = new Date();
  else if (head === 'REMOVE') return undefined;
  else if (variables && head! in variables) base = variables[head!];
  else throw mongoError('FailedToParse', `Use of undefined variable: ${head}`);
  return rest.length ? resolveFieldRef(base, rest) : base;
}

/** Converts mingo's plain numbers back: integral -> int32 (or Double beyond int32). */
export function fromMingo(value: unknown): unknown {
  if (typeof value === 'number') {
    if (Number.isInteger(value) && Math.abs(value) <= 2147483647 && !Object.is(value, -0)) return value;
    return makeDouble(value);
  }
  if (Array.isArray(value)) return value.map(fromMingo);
  if (isPlainObject(value)) {
    const out: Document = {};
    for (const k of Object.keys(value)) out[k] = fromMingo(value[k]);
    return out;
  }
  return value;
}

function isOperatorExpression(value: Document): boolean {
  const keys = Object.keys(value);
  return keys.length > 0 && keys[0]!.startsWith('$');
}

export function evaluateExpression(doc: unknown, expr: unknown, variables?: Variables): unknown {
  if (typeof expr === 'string') {
    if (expr.startsWith('$$')) return resolveVariable(expr.slice(2), doc, variables);
    if (expr.startsWith('$')) return resolveFieldRef(doc, expr.slice(1).split('.'));
    return expr;
  }
  if (Array.isArray(expr)) return expr.map((e) => evaluateExpression(doc, e, variables));
  if (!isPlainObject(expr)) return expr;
  if (!isOperatorExpression(expr)) {
    const out: Document = {};
    for (const k of Object.keys(expr)) {
      const v = evaluateExpression(doc, expr[k], variables);
      if (v !== undefined) out[k] = v;
    }
    return out;
  }
  if ('$literal' in expr) return expr.$literal;
  const name = Object.keys(expr)[0]!;
  if (name === '$meta') return metaValue(doc, expr.$meta);
  if (name === '$function') throw javascriptDisabled();
  // On the engine's own values (an integral double stays 8 bytes), not mingo's plain numbers.
  if (name === '$bsonSize') return bsonSizeOf(evaluateExpression(doc, singleOperand(expr.$bsonSize), variables));
  if (!(name in EXPRESSION_OPERATORS) && !(name in accumulatorOps)) {
    throw mongoError('InvalidPipelineOperator', `Unrecognized expression '${name}'`);
  }
  const typed = typedArithmetic(doc, name, expr[name], variables);
  if (typed !== undefined) return typed;
  if ((name === '$max' || name === '$min') && Array.isArray(expr[name])) return boundOfList(doc, name, expr[name] as unknown[], variables);
  if (isComparisonOperator(name)) {
    // On the engine's own values: a Long beyond 2^53 keeps its exact value (mingo's are plain numbers).
    const [a, b] = comparisonOperands(name, expr[name]);
    return compared(name, evaluateExpression(doc, a, variables), evaluateExpression(doc, b, variables));
  }
  try {
    const result = evalExpr(toPlainNumbers(doc), toPlainNumbers(withNowBound(expr, variables)), {
      context: CONTEXT,
      variables: variables ? (toPlainNumbers(variables) as Document) : undefined,
    } as never);
    return fromMingo(result);
  } catch (err) {
    // Our own guards (e.g. $range) already carry mongod's code.
    if (isMongoCommandError(err)) throw err;
    const message = err instanceof Error ? err.message : String(err);
    throw mongoError('BadValue', message);
  }
}

/**
 * `$$NOW` is one time for a whole statement (mongod: the command's), which the caller binds in
 * `variables.NOW`. mingo reads `$$NOW` itself, as the time of each of its evaluations, so two
 * fields of one `$set` computed from it differed by a millisecond: its uses are replaced by the
 * bound time before mingo sees the expression, memoized per expression object and time (an
 * updateMany evaluates one expression per document).
 */
const nowBound = new WeakMap<object, { now: Date; bound: unknown }>();

function withNowBound(expr: Document, variables?: Variables): unknown {
  const now = variables?.NOW;
  if (!(now instanceof Date)) return expr;
  const cached = nowBound.get(expr);
  if (cached?.now === now) return cached.bound;
  const bound = boundNow(expr, now);
  nowBound.set(expr, { now, bound });
  return bound;
}

/**
 * `value` with each `$$NOW` as `{$literal: now}`, in one walk: only the objects and lists on the
 * way to a use are copied, and a value without one is answered as it is (no copy).
 */
function boundNow(value: unknown, now: Date): unknown {
  if (value === '$$NOW') return { $literal: now };
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i += 1) {
      const bound = boundNow(value[i], now);
      if (bound !== value[i]) (copy ??= value.slice())[i] = bound;
    }
    return copy ?? value;
  }
  if (!isPlainObject(value) || '$literal' in value) return value;
  let copy: Document | undefined;
  for (const key of Object.keys(value)) {
    const bound = boundNow(value[key], now);
    if (bound !== value[key]) (copy ??= { ...value })[key] = bound;
  }
  return copy ?? value;
}

/** A unary operator's operand, also given as a list of one (`{$bsonSize: ["$$ROOT"]}`). */
function singleOperand(operand: unknown): unknown {
  return Array.isArray(operand) && operand.length === 1 ? operand[0] : operand;
}

/**
 * `{$max: [e1, e2, ...]}` / `$min`: the greatest (least) value of the list in
 * BSON order, null and missing values left out (null when none is left), an
 * array compared as a value (not traversed), as mongod does. mingo sorts the
 * list with JavaScript's sort, which puts a missing value last, so any
 * missing operand made its $max null.
 */
function boundOfList(doc: unknown, name: '$max' | '$min', operands: readonly unknown[], variables?: Variables): unknown {
  const sign = name === '$max' ? 1 : -1;
  let best: unknown;
  for (const operand of operands) {
    const value = evaluateExpression(doc, operand, variables);
    if (value === undefined || value === null) continue;
    if (best === undefined || sign * compareValues(value, best) > 0) best = value;
  }
  return best ?? null;
}

/**
 * Refuses unknown operators anywhere in an expression before it runs, as
 * mongod's parser does (168): also in a branch no document reaches, and
 * when no document is read at all (a missing collection).
 */
export function checkExpressionOperators(expr: unknown): void {
  if (Array.isArray(expr)) {
    for (const e of expr) checkExpressionOperators(e);
    return;
  }
  if (!isPlainObject(expr)) return;
  if (isOperatorExpression(expr)) {
    const name = Object.keys(expr)[0]!;
    if (name === '$literal' || name === '$meta' || name === '$function') return;
    if (!(name in EXPRESSION_OPERATORS) && !(name in accumulatorOps)) {
      throw mongoError('InvalidPipelineOperator', `Unrecognized expression '${name}'`);
    }
  }
  for (const value of Object.values(expr)) checkExpressionOperators(value);
}

/** `{$meta: "textScore"}`: the score a `$text` query gave the document. */
function metaValue(doc: unknown, name: unknown): unknown {
  if (name !== 'textScore') {
    throw mongoError('Location17308', `Unsupported argument to $meta: ${typeof name === 'string' ? name : String(name)}`);
  }
  const score = textScoreOf(doc);
  if (score === undefined) throw textScoreUnavailable();
  return makeDouble(score);
}

/** MongoDB truthiness for expression results ($expr, $cond): false, null, missing and 0 are false. */
export function isTruthy(value: unknown): boolean {
  if (value === undefined || value === null || value === false) return false;
  if (isNumeric(value)) return toDouble(value) !== 0;
  return true;
}


/**
 * Numeric operators over numbers only: computed here so int/long/double/
 * decimal result types follow mongod (mingo runs on JS numbers and would
 * lose Long and Decimal128). Undefined when another operand type (dates,
 * null, ...) needs mingo.
 */
function typedArithmetic(doc: unknown, name: string, args: unknown, variables?: Variables): unknown {
  if (TYPED_NUMERIC_OPERATORS.has(name)) {
    const operands = (Array.isArray(args) ? args : [args]).map((a) => evaluateExpression(doc, a, variables));
    return typedNumericOperator(name, operands);
  }
  if ((name !== '$add' && name !== '$multiply') || !Array.isArray(args) || args.length === 0) return undefined;
  const values = args.map((a) => evaluateExpression(doc, a, variables));
  if (!values.every(isNumeric)) return undefined;
  let acc = values[0];
  for (const v of values.slice(1)) {
    acc = arithmetic(acc, v, name === '$add' ? 'add' : 'mul');
    if (acc === undefined) return undefined;
  }
  return acc;
}

/** `$function` and `$accumulator` run JavaScript, which the engine does not (mongod: javascriptEnabled false). */
export function javascriptDisabled(): Error {
  return mongoError('Location31264', 'Cannot run server-side javascript without the javascript engine enabled');
}
