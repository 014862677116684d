import { mongoError } from '../../errors.js';
import { getPathValues, splitPath } from '../path.js';
import { isRegexValue, regexMatches, regexOf } from '../regex.js';
import { isPlainObject } from '../values.js';
import type { Document } from '../types.js';
import { arrayOperators } from './array-operators.js';
import { bitwiseOperators } from './bitwise-operators.js';
import { comparisonOperators, equalsMatcher } from './comparison-operators.js';
import { elementOperators } from './element-operators.js';
import { evaluationOperators, evaluationTopLevel } from './evaluation-operators.js';
import { anyCandidate, type FieldOperator, type FilterContext, type FilterOptions, type LeafMatcher, type Predicate, type TopLevelOperator } from './filter-types.js';
import { jsonSchemaTopLevel } from './json-schema.js';
import { logicalOperators, logicalTopLevel } from './logical-operators.js';
import { geoOperators } from '../geo/geo-operators.js';

/**
 * Query filters compiled once into a predicate. Field conditions are tested
 * against the leaves a dotted path reaches (see path.ts); operators live in
 * one file per documentation category and are gathered here, read-only.
 */

const FIELD_OPERATORS: Readonly<Record<string, FieldOperator>> = {
  ...comparisonOperators,
  ...elementOperators,
  ...arrayOperators,
  ...evaluationOperators,
  ...logicalOperators,
  ...bitwiseOperators,
  ...geoOperators,
};

const TOP_LEVEL_OPERATORS: Readonly<Record<string, TopLevelOperator>> = {
  ...logicalTopLevel,
  ...evaluationTopLevel,
  $jsonSchema: jsonSchemaTopLevel,
};

const UNSUPPORTED_TOP_LEVEL = new Set(['$where', '$text']);

/** An object whose first key is an operator is an operator expression (DBRefs excepted). */
export function isOperatorObject(value: unknown): value is Document {
  if (!isPlainObject(value)) return false;
  const first = Object.keys(value)[0];
  return first !== undefined && first.startsWith('$') && first !== '$ref' && first !== '$id' && first !== '$db';
}

function compileOperatorObject(condition: Document, ctx: FilterContext): LeafMatcher {
  const parts: LeafMatcher[] = [];
  for (const name of Object.keys(condition)) {
    const op = FIELD_OPERATORS[name];
    if (!op) throw mongoError('BadValue', `unknown operator: ${name}`);
    parts.push(op(condition[name], ctx, condition));
  }
  return parts.length === 1 ? parts[0]! : (leaves) => parts.every((p) => p(leaves));
}

function makeContext(options: FilterOptions): FilterContext {
  const ctx: FilterContext = {
    options,
    compileFilter: (filter) => compileWith(filter, ctx),
    compileFieldCondition: (condition) => {
      if (isOperatorObject(condition)) return compileOperatorObject(condition, ctx);
      if (isRegexValue(condition)) {
        const re = regexOf(condition);
        return anyCandidate((v) => regexMatches(re, v));
      }
      return equalsMatcher(condition, options);
    },
  };
  return ctx;
}

function compileWith(filter: Document, ctx: FilterContext): Predicate {
  if (!isPlainObject(filter)) throw mongoError('BadValue', 'filter must be an object');
  const parts: Predicate[] = [];
  for (const key of Object.keys(filter)) {
    const value = filter[key];
    if (key === '$ref' || key === '$id' || key === '$db') {
      // A DBRef's fields, named as such (in $elemMatch over DBRefs): equality on that field, as in mongod.
      const equals = ctx.compileFieldCondition({ $eq: value });
      parts.push((doc) => equals([doc[key]]));
      continue;
    }
    if (key.startsWith('$')) {
      if (key === '$text' && ctx.options.text) {
        parts.push(ctx.options.text);
        continue;
      }
      const op = TOP_LEVEL_OPERATORS[key];
      if (op) parts.push(op(value, ctx));
      // No server-side JavaScript: mongod with security.javascriptEnabled false answers this.
      else if (key === '$where') throw mongoError('Location6108304', 'no globalScriptEngine in $where parsing');
      else if (UNSUPPORTED_TOP_LEVEL.has(key)) throw mongoError('BadValue', `${key} is not supported by this server`);
      else throw mongoError('BadValue', `unknown top level operator: ${key}`);
      continue;
    }
    const matcher = ctx.compileFieldCondition(value);
    if (key.includes('.')) {
      const path = splitPath(key);
      parts.push((doc) => matcher(getPathValues(doc, path)));
    } else {
      // Top-level field: no traversal needed.
      parts.push((doc) => matcher([doc[key]]));
    }
  }
  if (parts.length === 0) return () => true;
  if (parts.length === 1) return parts[0]!;
  return (doc) => {
    for (const p of parts) if (!p(doc)) return false;
    return true;
  };
}

/** Compiles a query filter into a predicate (throws BadValue & co. on a malformed filter). */
export function compileFilter(filter: Document, options: FilterOptions = {}): Predicate {
  return compileWith(filter ?? {}, makeContext(options));
}
