import { mongoError } from '../../errors.js';
import { compareValues, typeRank } from '../compare.js';
import { isRegexValue, regexMatches, regexOf } from '../regex.js';
import { isPlainObject } from '../values.js';
import { anyCandidate, type FieldOperator, type FilterOptions, type LeafMatcher } from './filter-types.js';

/** Comparison query operators: $eq $ne $gt $gte $lt $lte $in $nin. */

/** Equality as queries see it: null also matches missing; collation applies to strings. */
export function equalsMatcher(value: unknown, options: FilterOptions): LeafMatcher {
  if (value === null || value === undefined) return anyCandidate((v) => v === null || v === undefined);
  const rank = typeRank(value);
  return anyCandidate((v) => typeRank(v) === rank && compareValues(v, value, options.collation) === 0);
}

/** Range test with type bracketing: only values of the operand's canonical type compare. */
function rangeMatcher(accept: (cmp: number) => boolean): FieldOperator {
  return (operand, ctx) => {
    const rank = typeRank(operand);
    return anyCandidate((v) => typeRank(v) === rank && accept(compareValues(v, operand, ctx.options.collation)));
  };
}

function inMatcher(name: string, operand: unknown, options: FilterOptions): LeafMatcher {
  if (!Array.isArray(operand)) throw mongoError('BadValue', `${name} needs an array`);
  const tests = operand.map((item): LeafMatcher => {
    if (isRegexValue(item)) {
      const re = regexOf(item);
      return anyCandidate((v) => regexMatches(re, v));
    }
    if (isPlainObject(item) && Object.keys(item)[0]?.startsWith('$')) {
      throw mongoError('BadValue', `cannot nest $ under ${name}`);
    }
    return equalsMatcher(item, options);
  });
  return (leaves) => tests.some((t) => t(leaves));
}

export const comparisonOperators: Record<string, FieldOperator> = {
  $eq: (operand, ctx) => equalsMatcher(operand, ctx.options),
  $ne: (operand, ctx) => {
    const eq = equalsMatcher(operand, ctx.options);
    return (leaves) => !eq(leaves);
  },
  $gt: rangeMatcher((c) => c > 0),
  $gte: rangeMatcher((c) => c >= 0),
  $lt: rangeMatcher((c) => c < 0),
  $lte: rangeMatcher((c) => c <= 0),
  $in: (operand, ctx) => inMatcher('$in', operand, ctx.options),
  $nin: (operand, ctx) => {
    const test = inMatcher('$nin', operand, ctx.options);
    return (leaves) => !test(leaves);
  },
};
