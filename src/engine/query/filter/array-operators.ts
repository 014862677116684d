import { mongoError } from '../../errors.js';
import { isNumeric, isPlainObject, toDouble } from '../values.js';
import type { FieldOperator, FilterContext, LeafMatcher } from './filter-types.js';

/** Array query operators: $all $elemMatch $size. */

/** Top-level operators that make an $elemMatch object the document form. */
const DOCUMENT_FORM_KEYS = new Set(['$and', '$or', '$nor', '$where', '$expr', '$comment', '$text', '$jsonSchema']);

function hasDBRefField(operand: object): boolean {
  return '$ref' in operand || '$id' in operand || '$db' in operand;
}

function elemMatch(operand: unknown, ctx: FilterContext): LeafMatcher {
  if (!isPlainObject(operand)) throw mongoError('BadValue', '$elemMatch needs an Object');
  const first = Object.keys(operand)[0];
  // Any DBRef field ($ref, $id, $db) makes it the document form: mongod matches DBRefs' fields so.
  const valueForm = first !== undefined && first.startsWith('$') && !DOCUMENT_FORM_KEYS.has(first) && !hasDBRefField(operand);
  let test: (el: unknown) => boolean;
  if (valueForm) {
    const m = ctx.compileFieldCondition(operand);
    test = (el) => m([el]);
  } else {
    const p = ctx.compileFilter(operand);
    test = (el) => isPlainObject(el) && p(el);
  }
  return (leaves) => leaves.some((leaf) => Array.isArray(leaf) && leaf.some(test));
}

export const arrayOperators: Record<string, FieldOperator> = {
  $elemMatch: elemMatch,
  $size: (operand) => {
    if (!isNumeric(operand)) throw mongoError('BadValue', '$size needs a number');
    const n = toDouble(operand);
    if (!Number.isInteger(n)) throw mongoError('BadValue', '$size must be a whole number');
    if (n < 0) throw mongoError('BadValue', '$size may not be negative');
    return (leaves) => leaves.some((v) => Array.isArray(v) && v.length === n);
  },
  $all: (operand, ctx) => {
    if (!Array.isArray(operand)) throw mongoError('BadValue', '$all needs an array');
    if (operand.length === 0) return () => false;
    const parts = operand.map((item): LeafMatcher => {
      if (isPlainObject(item) && '$elemMatch' in item) return elemMatch(item.$elemMatch, ctx);
      if (isPlainObject(item) && Object.keys(item)[0]?.startsWith('$')) {
        throw mongoError('BadValue', 'no $ expressions in $all');
      }
      return ctx.compileFieldCondition(item);
    });
    return (leaves) => parts.every((p) => p(leaves));
  },
};
