import { mongoError } from '../../errors.js';
import { compareValues } from '../compare.js';
import type { Document } from '../types.js';
import { isNumeric, isPlainObject, numericType, setField, toDouble } from '../values.js';

/** What every `$jsonSchema` keyword compiler shares (see json-schema.ts). */

/** One compiled keyword: `explain` is only asked about a value `test` refused. */
export interface SchemaRule {
  test(value: unknown): boolean;
  explain(value: unknown): Document[];
}

/** A compiled (sub)schema. `value` is undefined when the property is missing. */
export interface CompiledSchema {
  test(value: unknown): boolean;
  /** The failing rules' error entries (mongod's `details` array of a subschema). */
  explain(value: unknown): Document[];
  /** `title` and `description`, which mongod copies into error entries. */
  annotations: Document;
  /** Set when a top-level schema cannot match a document: mongod's whole errInfo details. */
  alwaysFalse?: Document;
}

/** Lets keyword files compile nested schemas without importing the compiler (no cycle). */
export interface SchemaContext {
  /** `top`: the schema applies to the document itself (mongod's empty path). */
  compile(schema: Document, top: boolean): CompiledSchema;
}

export const kw = (name: string) => `$jsonSchema keyword '${name}'`;

/** mongod's parseIntegerElementToNonNegativeLong: an integral, non-negative number (else 9). */
export function nonNegativeInteger(name: string, value: unknown): number {
  if (!isNumeric(value)) throw mongoError('FailedToParse', `Expected a number in: ${name}: ${String(value)}`);
  const n = toDouble(value);
  if (Number.isNaN(n)) throw mongoError('FailedToParse', `Expected an integer, but found NaN in: ${name}: ${String(value)}`);
  if (!Number.isInteger(n)) throw mongoError('FailedToParse', `Expected an integer: ${name}: ${String(value)}`);
  if (n < 0) throw mongoError('FailedToParse', `Expected a positive number in: ${name}: ${n}`);
  return n;
}

/** The value with sub-document fields sorted: `enum` and `uniqueItems` ignore field order. */
export function unorderedKey(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(unorderedKey);
  if (!isPlainObject(value)) return value;
  const out: Document = {};
  for (const key of Object.keys(value).sort()) setField(out, key, unorderedKey(value[key]));
  return out;
}

export function unorderedEqual(a: unknown, b: unknown): boolean {
  return compareValues(unorderedKey(a), unorderedKey(b)) === 0;
}

/** A rule that only applies to values of one kind (JSON Schema restrictions ignore other types). */
export function restriction(applies: (v: unknown) => boolean, check: (v: unknown) => boolean, explain: (v: unknown) => Document[]): SchemaRule {
  return { test: (v) => !applies(v) || check(v), explain };
}

export const isString = (v: unknown): v is string => typeof v === 'string';
export const isObject = (v: unknown): v is Document => isPlainObject(v);
export const isNumber = (v: unknown): boolean => numericType(v) !== undefined;

/** An error entry for a keyword: operatorName, specifiedAs, then the rest (mongod's field order). */
export function entry(name: string, specifiedAs: Document, rest: Document): Document {
  return { operatorName: name, specifiedAs, ...rest };
}

/** A schema-valued keyword operand must be an object. */
export function schemaOperand(message: string, value: unknown): Document {
  if (!isPlainObject(value)) throw mongoError('TypeMismatch', message);
  return value;
}
