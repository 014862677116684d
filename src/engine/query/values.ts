import { Double, Long } from 'bson';
import type { Decimal128 } from 'bson';
import type { Document } from './types.js';

/**
 * The value model (see types.ts): conversion from what `BSON.deserialize(...,
 * { promoteValues: false })` yields, and the numeric helpers every operator
 * shares. Values are recognised by `_bsontype` rather than `instanceof` so a
 * second copy of the bson package (the driver's) still works.
 */

export type NumericType = 'int' | 'long' | 'double' | 'decimal';

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

export function bsonType(value: unknown): string | undefined {
  if (value !== null && typeof value === 'object') {
    const t = (value as { _bsontype?: unknown })._bsontype;
    return typeof t === 'string' ? t : undefined;
  }
  return undefined;
}

/** A plain sub-document (not an array, not a bson value class, not a Date). */
export function isPlainObject(value: unknown): value is Document {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  if (value instanceof Date || value instanceof RegExp) return false;
  if (bsonType(value) !== undefined) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * A document's own field, never an inherited property: a field named
 * `__proto__` or `constructor` must not reach Object.prototype.
 */
export function ownField(doc: Document, key: string): unknown {
  return Object.hasOwn(doc, key) ? doc[key] : undefined;
}

/** Sets a document field; `__proto__` becomes a plain field, not the prototype. */
export function setField(doc: Document, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(doc, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    doc[key] = value;
  }
}

/** Converts a deserialized (promoteValues: false) value into the value model, recursively. */
export function fromBson(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(fromBson);
  switch (bsonType(value)) {
    case 'Int32':
      return (value as { value: number }).value;
    case 'Double':
      return makeDouble((value as { value: number }).value);
    case 'DBRef':
      return fromBson(dbRefDocument(value));
    case undefined:
      break;
    default:
      return value;
  }
  if (!isPlainObject(value)) return value;
  const out: Document = {};
  for (const key of Object.keys(value)) setField(out, key, fromBson(value[key]));
  return out;
}

/**
 * Converts a document `BSON.deserialize` has just built into the value model
 * by changing it in place: the same result as fromBson, without copying every
 * sub-document and array a second time (each read of a stored document and
 * each incoming command goes through here). The caller gives up the object:
 * nothing else may hold it or its parts.
 */
export function fromBsonDocument(doc: Document): Document {
  convertFieldsInPlace(doc);
  return doc;
}

/**
 * How many values fromBsonDocument has met that may view into the bytes they
 * were decoded from: a Binary (UUID included) is a view, and a Code's scope
 * may hold one unwalked. A caller compares the count before and
 * after a conversion to learn, at no cost to documents without them, whether
 * the decoded document keeps its bytes alive (storage/bson-codec.ts).
 */
let byteViews = 0;
export function byteViewsConverted(): number {
  return byteViews;
}

function convertFieldsInPlace(doc: Document): void {
  for (const key in doc) {
    if (!Object.hasOwn(doc, key)) continue;
    const value = doc[key];
    if (value !== null && typeof value === 'object') {
      const converted = convertInPlace(value);
      // setField: a field named __proto__ stays an own field.
      if (converted !== value) setField(doc, key, converted);
    }
  }
}

function convertInPlace(value: object): unknown {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const element: unknown = value[i];
      if (element !== null && typeof element === 'object') value[i] = convertInPlace(element);
    }
    return value;
  }
  switch (bsonType(value)) {
    case 'Int32':
      return (value as { value: number }).value;
    case 'Double': {
      // An integral double (or -0) keeps its wrapper (makeDouble): the deserialized one will do.
      const n = (value as { value: number }).value;
      return Number.isInteger(n) || Object.is(n, -0) ? value : n;
    }
    case 'DBRef': {
      const doc = dbRefDocument(value);
      convertFieldsInPlace(doc);
      return doc;
    }
    case 'Binary':
    case 'Code':
      byteViews++;
      return value;
    case undefined:
      break;
    default:
      return value;
  }
  if (isPlainObject(value)) convertFieldsInPlace(value);
  return value;
}

/**
 * A DBRef as mongod sees it: a plain document `{$ref, $id, $db?, ...}`. js-bson
 * turns every such shape into a DBRef class, a query's `{$elemMatch: {$id, $ref}}`
 * and `refs.$id` paths included, which then match nothing.
 */
function dbRefDocument(value: unknown): Document {
  const ref = value as { collection: string; oid: unknown; db?: string; fields?: Document };
  const doc: Document = { $ref: ref.collection, $id: ref.oid };
  if (ref.db) doc.$db = ref.db;
  for (const key of Object.keys(ref.fields ?? {})) setField(doc, key, ref.fields![key]);
  return doc;
}

/**
 * A double in the value model: integral values (and -0) keep a `Double`
 * wrapper so they serialize back as doubles rather than int32.
 */
export function makeDouble(n: number): number | Double {
  if (Number.isInteger(n) || Object.is(n, -0)) return new Double(n);
  return n;
}

export function isNumeric(value: unknown): boolean {
  if (typeof value === 'number') return true;
  const t = bsonType(value);
  return t === 'Double' || t === 'Long' || t === 'Decimal128' || t === 'Int32';
}

/** The BSON numeric type a value serializes as; undefined when not a number. */
export function numericType(value: unknown): NumericType | undefined {
  if (typeof value === 'number') {
    return Number.isInteger(value) && value >= INT32_MIN && value <= INT32_MAX && !Object.is(value, -0)
      ? 'int'
      : 'double';
  }
  switch (bsonType(value)) {
    case 'Int32':
      return 'int';
    case 'Double':
      return 'double';
    case 'Long':
      return 'long';
    case 'Decimal128':
      return 'decimal';
    default:
      return undefined;
  }
}

/** Lossy conversion to a JS number (for arithmetic in double and for mingo). */
export function toDouble(value: unknown): number {
  if (typeof value === 'number') return value;
  switch (bsonType(value)) {
    case 'Int32':
    case 'Double':
      return (value as { value: number }).value;
    case 'Long':
      return (value as Long).toNumber();
    case 'Decimal128':
      return Number((value as Decimal128).toString());
    default:
      return Number.NaN;
  }
}

/** Exact integer value of an int/long, or of an integral double within safe range. */
export function toBigInt(value: unknown): bigint | undefined {
  const t = numericType(value);
  if (t === 'long') return (value as Long).toBigInt();
  if (t === 'int' || t === 'double') {
    const n = toDouble(value);
    return Number.isInteger(n) ? BigInt(n) : undefined;
  }
  return undefined;
}

const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;

/** An integer result typed by mongod's rules: int32 when it fits and allowed, else long. */
export function makeInteger(n: bigint, atLeast: 'int' | 'long'): number | Long | undefined {
  if (n < LONG_MIN || n > LONG_MAX) return undefined;
  if (atLeast === 'int' && n >= BigInt(INT32_MIN) && n <= BigInt(INT32_MAX)) return Number(n);
  return Long.fromBigInt(n);
}

/** Converts value-model numbers into plain JS numbers, deeply (input for mingo). */
export function toPlainNumbers(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(toPlainNumbers);
  if (isNumeric(value)) return toDouble(value);
  if (!isPlainObject(value)) return value;
  const out: Document = {};
  for (const key of Object.keys(value)) setField(out, key, toPlainNumbers(value[key]));
  return out;
}

/** Deep copy of a value-model value (bson value classes are immutable and shared). */
export function cloneValue<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(cloneValue) as T;
  if (value instanceof Date) return new Date(value.getTime()) as T;
  if (!isPlainObject(value)) return value;
  const out: Document = {};
  for (const key of Object.keys(value)) setField(out, key, cloneValue(value[key]));
  return out as T;
}

