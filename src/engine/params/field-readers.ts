import { Long } from 'bson';
import { mongoError } from '../errors.js';
import { evaluateExpression } from '../query/index.js';
import type { Document } from '../query/types.js';
import { bsonType, isNumeric, isPlainObject, toDouble } from '../query/values.js';

/**
 * Typed parameter readers: the first stage of every handler. A field of the
 * wrong type fails the way mongod's IDL parser does (TypeMismatch 14,
 * "BSON field 'find.filter' is the wrong type ..."); absent fields give
 * `undefined` so each handler states its own defaults.
 */

export function wrongType(command: string, field: string, value: unknown, expected: string): Error {
  return mongoError(
    'TypeMismatch',
    `BSON field '${command}.${field}' is the wrong type '${typeName(value)}', expected type '${expected}'`,
  );
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const t = bsonType(value);
  if (t) return t.toLowerCase();
  return typeof value;
}

export function optionalDocument(body: Document, command: string, field: string): Document | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) throw wrongType(command, field, value, 'object');
  return value;
}

export function optionalArray(body: Document, command: string, field: string): unknown[] | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw wrongType(command, field, value, 'array');
  return value;
}

/** mongod's IDL error for an absent required field (40414). */
export function missingField(command: string, field: string): Error {
  return mongoError('Location40414', `BSON field '${command}.${field}' is missing but a required field`);
}

export function requiredArray(body: Document, command: string, field: string): unknown[] {
  const value = optionalArray(body, command, field);
  if (value === undefined) throw missingField(command, field);
  return value;
}

export function optionalString(body: Document, command: string, field: string): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw wrongType(command, field, value, 'string');
  return value;
}

/** mongod's "bool" fields accept numbers too (`{upsert: 1}`). */
export function optionalBool(body: Document, command: string, field: string): boolean | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'boolean') return value;
  if (isNumeric(value)) return toDouble(value) !== 0;
  throw wrongType(command, field, value, 'bool');
}

/** An integral count (limit, skip, batchSize); doubles are truncated as mongod does. */
export function optionalInteger(body: Document, command: string, field: string): number | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (!isNumeric(value)) throw wrongType(command, field, value, 'long');
  return Math.trunc(toDouble(value));
}

/** Counts that must not be negative fail with 51024 as mongod's IDL validators do. */
export function nonNegativeInteger(body: Document, command: string, field: string): number | undefined {
  const value = optionalInteger(body, command, field);
  if (value !== undefined && value < 0) {
    throw mongoError('Location51024', `BSON field '${field}' value must be >= 0, actual value '${value}'`);
  }
  return value;
}

/** Cursor ids travel as int64; the driver always sends a Long. */
export function cursorIdParam(value: unknown, command: string, field: string): bigint {
  if (bsonType(value) === 'Long') return (value as Long).toBigInt();
  throw wrongType(command, field, value, 'long');
}

/** Fields every command may carry that are not options of the command itself. */
const GENERIC_FIELDS = new Set([
  '$db', 'lsid', 'txnNumber', 'autocommit', 'startTransaction', '$clusterTime', '$readPreference',
  'readConcern', 'writeConcern', 'comment', 'maxTimeMS', 'apiVersion', 'apiStrict', 'apiDeprecationErrors',
]);

/** The command's own options: the body minus the command name and generic fields. */
export function commandOptions(body: Document, command: string): Document {
  const out: Document = {};
  for (const [key, value] of Object.entries(body)) {
    if (key !== command && !GENERIC_FIELDS.has(key)) out[key] = value;
  }
  return out;
}

/**
 * The `let` option: each value is an expression evaluated once, before the
 * command runs (so `{$literal: "$x"}` is the string "$x", `"$$NOW"` one date
 * for every document). It cannot refer to document fields. The command's `$$NOW` comes with
 * them (`NOW`): one time for every statement and document of the command, as in mongod.
 */
export function letParam(body: Document, command: string): Document {
  const raw = optionalDocument(body, command, 'let');
  const system = { NOW: new Date() };
  const out: Document = { ...system };
  for (const [name, expr] of Object.entries(raw ?? {})) out[name] = evaluateExpression({}, expr, system);
  return out;
}

/**
 * mongod's IDL parser is strict for the statements of update and delete: a
 * field it does not know fails the whole command with IDLUnknownField (40415),
 * e.g. `sort` in an update statement on a 7.0 server (accepted from 8.0).
 */
export function assertKnownFields(doc: Document, where: string, known: ReadonlySet<string>): void {
  const unknown = Object.keys(doc).find((key) => !known.has(key));
  if (unknown !== undefined) throw mongoError('IDLUnknownField', `BSON field '${where}.${unknown}' is an unknown field.`);
}
