import { evalExpr } from 'mingo/core';
import { mongoError } from '../errors.js';
import { compareValues, typeRank } from './compare.js';

type Operator = (obj: unknown, expr: unknown, options: unknown) => unknown;

/**
 * The comparison expressions (`$eq`, `$ne`, `$gt`, `$gte`, `$lt`, `$lte`,
 * `$cmp`) as mongod evaluates them: two values in BSON order, an array as
 * one value (`[5]` is not 5, and sorts above every number), across types
 * (null is below 5, a string above it), and a missing value its own, below
 * null (`$eq: ['$missing', null]` is false). mingo's are its query
 * operators: an array matched by any element, and values of two types never
 * compared, so `{$lt: [null, 5]}` was false.
 */
const RESULT: Readonly<Record<string, (order: number) => unknown>> = {
  $eq: (order) => order === 0,
  $ne: (order) => order !== 0,
  $gt: (order) => order > 0,
  $gte: (order) => order >= 0,
  $lt: (order) => order < 0,
  $lte: (order) => order <= 0,
  $cmp: (order) => (order < 0 ? -1 : order > 0 ? 1 : 0),
};

export function isComparisonOperator(name: string): boolean {
  return name in RESULT;
}

/** mongod's Value order: BSON order, with a missing value (undefined) ranked between MinKey and null. */
export function compareExpressionValues(a: unknown, b: unknown): number {
  if (a === undefined || b === undefined) {
    if (a === b) return 0;
    return a === undefined ? (typeRank(b) < 0 ? 1 : -1) : typeRank(a) < 0 ? -1 : 1;
  }
  return compareValues(a, b);
}

/** The operator's two operands, as mongod's parser requires them (16020). */
export function comparisonOperands(name: string, operand: unknown): [unknown, unknown] {
  const operands = Array.isArray(operand) ? operand : [operand];
  if (operands.length !== 2) throw mongoError('Location16020', `Expression ${name} takes exactly 2 arguments. ${operands.length} were passed in.`);
  return operands as [unknown, unknown];
}

/** The operator's answer for two evaluated operands. */
export function compared(name: string, a: unknown, b: unknown): unknown {
  return RESULT[name]!(compareExpressionValues(a, b));
}

/** The same as mingo operators, for uses nested in mingo's own (evaluated on mingo's values). */
export const comparisonExpressionOperators: Readonly<Record<string, Operator>> = Object.fromEntries(
  Object.keys(RESULT).map((name) => [
    name,
    ((obj, expr, options) => {
      const [a, b] = comparisonOperands(name, expr);
      return compared(name, evalExpr(obj, a, options as never), evalExpr(obj, b, options as never));
    }) satisfies Operator,
  ]),
);
