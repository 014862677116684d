import { BSON } from 'bson';
import { evalExpr } from 'mingo/core';
import { mongoError } from '../errors.js';
import { bsonTypeName } from './type-names.js';
import { bsonType, isPlainObject } from './values.js';

type Operator = (obj: unknown, expr: unknown, options: unknown) => unknown;

/**
 * `$bsonSize` (a document's size in bytes, as stored) and `$binarySize` (a
 * string's UTF-8 bytes, a BinData's length), which mingo does not have: null
 * or missing gives null; any other type is mongod's error (31393, 51276).
 */
export function bsonSizeOf(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (!isPlainObject(value)) throw mongoError('Location31393', `$bsonSize requires a document input, found: ${bsonTypeName(value)}`);
  return BSON.calculateObjectSize(value, { ignoreUndefined: true });
}

export function binarySizeOf(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  if (bsonType(value) === 'Binary') return (value as { length(): number }).length();
  throw mongoError('Location51276', `$binarySize requires a string or BinData argument, found: ${bsonTypeName(value)}`);
}

/** The two as mingo operators, for uses nested in other operators (evaluated on mingo's values). */
export const sizeExpressionOperators: Readonly<Record<string, Operator>> = {
  $bsonSize: (obj, expr, options) => bsonSizeOf(evalExpr(obj, expr, options as never)),
  $binarySize: (obj, expr, options) => binarySizeOf(evalExpr(obj, expr, options as never)),
};
