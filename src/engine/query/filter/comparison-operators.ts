import { mongoError } from '../../errors.js';
import type { ObjectId } from 'bson';
import { compareValues, TypeRank, typeRank } from '../compare.js';
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

/**
 * `$in`: strings (without a collation), plain numbers and ObjectIds are looked up in sets, the
 * other items tested one by one. Testing every item for every value made `_id: {$in: [8,000
 * ids]}` cost 64 million comparisons (seconds, for every client of the engine). A set finds
 * exactly what equality would: a string equals only the same string without a collation, an
 * ObjectId only the same bytes, a plain number every numerically equal one (NaN its like, -0
 * and 0 each other, as the set's SameValueZero does); a number of another BSON type (Long,
 * Decimal128) is compared with the number items one by one.
 */
function inMatcher(name: string, operand: unknown, options: FilterOptions): LeafMatcher {
  if (!Array.isArray(operand)) throw mongoError('BadValue', `${name} needs an array`);
  const strings = new Set<string>();
  const numbers = new Set<number>();
  const objectIds = new Set<string>();
  const others: LeafMatcher[] = [];
  for (const item of operand) {
    if (isRegexValue(item)) {
      const re = regexOf(item);
      others.push(anyCandidate((v) => regexMatches(re, v)));
    } else if (isPlainObject(item) && Object.keys(item)[0]?.startsWith('$')) {
      throw mongoError('BadValue', `cannot nest $ under ${name}`);
    } else if (typeof item === 'string' && !options.collation) {
      strings.add(item);
    } else if (typeof item === 'number') {
      numbers.add(item);
    } else if (typeRank(item) === TypeRank.objectId) {
      objectIds.add((item as ObjectId).toHexString());
    } else {
      others.push(equalsMatcher(item, options));
    }
  }
  const keyed = anyCandidate((v) => {
    if (typeof v === 'string') return strings.has(v);
    if (typeof v === 'number') return numbers.has(v);
    const rank = typeRank(v);
    if (rank === TypeRank.objectId) return objectIds.has((v as ObjectId).toHexString());
    // A BSONSymbol (deprecated) compares as its string.
    if (rank === TypeRank.string) return strings.has(String(v));
    if (rank === TypeRank.number) for (const n of numbers) if (compareValues(v, n) === 0) return true;
    return false;
  });
  const anyKeyed = strings.size + numbers.size + objectIds.size > 0;
  return (leaves) => (anyKeyed && keyed(leaves)) || others.some((test) => test(leaves));
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
