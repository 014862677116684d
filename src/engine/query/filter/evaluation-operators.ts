import { mongoError } from '../../errors.js';
import { checkExpressionOperators, evaluateExpression, isTruthy } from '../expression.js';
import { isRegexValue, regexMatches, toRegExp } from '../regex.js';
import { isNumeric, toDouble } from '../values.js';
import { anyCandidate, type FieldOperator, type TopLevelOperator } from './filter-types.js';

/** Evaluation query operators: $regex (+ $options) $mod, and top-level $expr. */

function regexOperand(operand: unknown, options: unknown): RegExp {
  if (options !== undefined && typeof options !== 'string') throw mongoError('BadValue', '$options has to be a string');
  if (typeof operand === 'string') return toRegExp(operand, (options as string | undefined) ?? '');
  if (isRegexValue(operand)) {
    const { source, flags } =
      operand instanceof RegExp
        ? { source: operand.source, flags: operand.flags }
        : { source: (operand as { pattern: string }).pattern, flags: (operand as { options: string }).options };
    if (options !== undefined && flags) throw mongoError('BadValue', 'options set in both $regex and $options');
    return toRegExp(source, (options as string | undefined) ?? flags);
  }
  throw mongoError('BadValue', '$regex has to be a string');
}

export const evaluationOperators: Record<string, FieldOperator> = {
  $regex: (operand, _ctx, siblings) => {
    const re = regexOperand(operand, siblings.$options);
    return anyCandidate((v) => regexMatches(re, v));
  },
  // Consumed by $regex; alone it is an error.
  $options: (_operand, _ctx, siblings) => {
    if (!('$regex' in siblings)) throw mongoError('BadValue', '$options needs a $regex');
    return () => true;
  },
  $mod: (operand) => {
    if (!Array.isArray(operand)) throw mongoError('BadValue', 'malformed mod, needs to be an array');
    if (operand.length < 2) throw mongoError('BadValue', 'malformed mod, not enough elements');
    if (operand.length > 2) throw mongoError('BadValue', 'malformed mod, too many elements');
    if (!isNumeric(operand[0])) throw mongoError('BadValue', 'malformed mod, divisor not a number');
    if (!isNumeric(operand[1])) throw mongoError('BadValue', 'malformed mod, remainder not a number');
    const divisor = Math.trunc(toDouble(operand[0]));
    const remainder = Math.trunc(toDouble(operand[1]));
    if (divisor === 0) throw mongoError('BadValue', 'divisor cannot be 0');
    return anyCandidate((v) => {
      if (!isNumeric(v)) return false;
      const n = toDouble(v);
      return Number.isFinite(n) && Math.trunc(n) % divisor === remainder;
    });
  },
};

export const evaluationTopLevel: Record<string, TopLevelOperator> = {
  $expr: (operand, ctx) => {
    checkExpressionOperators(operand);
    return (doc) => isTruthy(evaluateExpression(doc, operand, ctx.options.variables));
  },
  $comment: () => () => true,
};
