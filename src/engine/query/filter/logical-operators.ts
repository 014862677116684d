import { mongoError } from '../../errors.js';
import { isRegexValue, regexMatches, regexOf } from '../regex.js';
import { isPlainObject } from '../values.js';
import { anyCandidate, type FieldOperator, type FilterContext, type Predicate, type TopLevelOperator } from './filter-types.js';

/** Logical query operators: $and $or $nor (top level) and $not (field level). */

function clauses(name: string, operand: unknown, ctx: FilterContext): Predicate[] {
  if (!Array.isArray(operand) || operand.length === 0) {
    throw mongoError('BadValue', `${name} must be a nonempty array`);
  }
  return operand.map((clause) => {
    if (!isPlainObject(clause)) throw mongoError('BadValue', '$or/$and/$nor entries need to be full objects');
    return ctx.compileFilter(clause);
  });
}

export const logicalTopLevel: Record<string, TopLevelOperator> = {
  $and: (operand, ctx) => {
    const ps = clauses('$and', operand, ctx);
    return (doc) => ps.every((p) => p(doc));
  },
  $or: (operand, ctx) => {
    const ps = clauses('$or', operand, ctx);
    return (doc) => ps.some((p) => p(doc));
  },
  $nor: (operand, ctx) => {
    const ps = clauses('$nor', operand, ctx);
    return (doc) => !ps.some((p) => p(doc));
  },
};

export const logicalOperators: Record<string, FieldOperator> = {
  $not: (operand, ctx) => {
    if (isRegexValue(operand)) {
      const re = regexOf(operand);
      const m = anyCandidate((v) => regexMatches(re, v));
      return (leaves) => !m(leaves);
    }
    if (!isPlainObject(operand)) throw mongoError('BadValue', '$not needs a regex or a document');
    const keys = Object.keys(operand);
    if (keys.length === 0) throw mongoError('BadValue', '$not cannot be empty');
    if (!keys[0]!.startsWith('$')) throw mongoError('BadValue', `unknown operator: ${keys[0]}`);
    const m = ctx.compileFieldCondition(operand);
    return (leaves) => !m(leaves);
  },
};
