import type { Binary, BSONRegExp, Decimal128, ObjectId, Timestamp } from 'bson';
import { bsonType, isNumeric, isPlainObject, numericType, toDouble } from './values.js';
import { compareCollated, isSimpleCollation } from '../collation/index.js';
import type { Collation, Document } from './types.js';

/**
 * mongod's BSON total order (canonical type first, then value within the type).
 * Missing (undefined) and null compare equal, as mongod sorts missing as null.
 */

/** Canonical type ranks, as mongod's canonicalizeBSONType. */
export const TypeRank = {
  minKey: -1,
  null: 5,
  number: 10,
  string: 15,
  object: 20,
  array: 25,
  binData: 30,
  objectId: 35,
  bool: 40,
  date: 45,
  timestamp: 47,
  regex: 50,
  dbPointer: 55,
  javascript: 60,
  javascriptWithScope: 65,
  maxKey: 127,
} as const;

export function typeRank(value: unknown): number {
  if (value === undefined || value === null) return TypeRank.null;
  switch (typeof value) {
    case 'number':
    case 'bigint':
      return TypeRank.number;
    case 'string':
      return TypeRank.string;
    case 'boolean':
      return TypeRank.bool;
    default:
      break;
  }
  if (Array.isArray(value)) return TypeRank.array;
  if (value instanceof Date) return TypeRank.date;
  if (value instanceof RegExp) return TypeRank.regex;
  if (value instanceof Uint8Array) return TypeRank.binData;
  switch (bsonType(value)) {
    case 'Int32':
    case 'Double':
    case 'Long':
    case 'Decimal128':
      return TypeRank.number;
    case 'BSONSymbol':
      return TypeRank.string;
    case 'Binary':
      return TypeRank.binData;
    case 'ObjectId':
      return TypeRank.objectId;
    case 'Timestamp':
      return TypeRank.timestamp;
    case 'BSONRegExp':
      return TypeRank.regex;
    case 'DBPointer':
      return TypeRank.dbPointer;
    case 'Code':
      return (value as { scope?: unknown }).scope ? TypeRank.javascriptWithScope : TypeRank.javascript;
    case 'MinKey':
      return TypeRank.minKey;
    case 'MaxKey':
      return TypeRank.maxKey;
    default:
      return TypeRank.object;
  }
}

const sign = (n: number): number => (n < 0 ? -1 : n > 0 ? 1 : 0);

// ---------------------------------------------------------------- numbers

/** An exact rational (num/den, den > 0) or a special value. */
type Exact = { kind: 'nan' } | { kind: 'inf'; neg: boolean } | { kind: 'finite'; num: bigint; den: bigint };

const DECIMAL_RE = /^(-)?(\d+)(?:\.(\d*))?(?:E([+-]?\d+))?$/i;

function exactOfDouble(d: number): Exact {
  if (Number.isNaN(d)) return { kind: 'nan' };
  if (!Number.isFinite(d)) return { kind: 'inf', neg: d < 0 };
  if (Number.isInteger(d)) return { kind: 'finite', num: BigInt(d), den: 1n };
  // Scale by powers of two until integral: exact for binary doubles.
  let den = 1n;
  let x = d;
  while (!Number.isInteger(x)) {
    x *= 2;
    den *= 2n;
  }
  return { kind: 'finite', num: BigInt(x), den };
}

function exactOfDecimal(d: Decimal128): Exact {
  const s = d.toString();
  if (s === 'NaN' || s === '-NaN') return { kind: 'nan' };
  if (s === 'Infinity' || s === '-Infinity') return { kind: 'inf', neg: s[0] === '-' };
  const m = DECIMAL_RE.exec(s);
  if (!m) return { kind: 'nan' };
  const frac = m[3] ?? '';
  let num = BigInt(m[2] + frac);
  let exp = Number(m[4] ?? 0) - frac.length;
  if (m[1]) num = -num;
  if (exp >= 0) return { kind: 'finite', num: num * 10n ** BigInt(exp), den: 1n };
  exp = -exp;
  return { kind: 'finite', num, den: 10n ** BigInt(exp) };
}

function exactOf(value: unknown): Exact {
  switch (numericType(value)) {
    case 'long':
      return { kind: 'finite', num: (value as { toBigInt(): bigint }).toBigInt(), den: 1n };
    case 'decimal':
      return exactOfDecimal(value as Decimal128);
    default:
      return exactOfDouble(toDouble(value));
  }
}

function compareExact(a: Exact, b: Exact): number {
  // NaN sorts below every other number; infinities at the ends.
  const rank = (e: Exact): number => (e.kind === 'nan' ? 0 : e.kind === 'inf' ? (e.neg ? 1 : 3) : 2);
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  if (a.kind !== 'finite' || b.kind !== 'finite') return 0;
  const l = a.num * b.den;
  const r = b.num * a.den;
  return l < r ? -1 : l > r ? 1 : 0;
}

/** Exact comparison of any two value-model numbers. */
export function compareNumbers(a: unknown, b: unknown): number {
  const ta = numericType(a);
  const tb = numericType(b);
  // Fast path: both fit a JS number exactly.
  if ((ta === 'int' || ta === 'double') && (tb === 'int' || tb === 'double')) {
    const x = toDouble(a);
    const y = toDouble(b);
    if (x < y) return -1;
    if (x > y) return 1;
    if (x === y) return 0;
    return Number.isNaN(x) ? (Number.isNaN(y) ? 0 : -1) : 1;
  }
  return compareExact(exactOf(a), exactOf(b));
}

// ---------------------------------------------------------------- strings

/** Binary UTF-8 order: UTF-16 order except surrogates sort above U+E000..U+FFFF. */
export function compareUtf8(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x < y ? -1 : 1;
  }
  return sign(a.length - b.length);
}

/** Under a collation, equality is exactly that of the collation key (collation/collation-key.ts), as in collated indexes. */
export function compareStrings(a: string, b: string, collation?: Collation): number {
  if (isSimpleCollation(collation)) return compareUtf8(a, b);
  return compareCollated(a, b, collation!);
}

function stringOf(value: unknown): string {
  return typeof value === 'string' ? value : String((value as { value: unknown }).value);
}

// ---------------------------------------------------------------- others

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return sign(a.length - b.length);
}

/** bson 7's internal form of an ObjectId: its 12 bytes as four 24-bit big-endian numbers. */
interface ObjectIdWords {
  i0?: unknown;
  i1: number;
  i2: number;
  i3: number;
}

/**
 * Byte order of two ObjectIds. bson 7's `.id` copies the 12 bytes into a new
 * Buffer on every call, which made index inserts allocate twice per
 * comparison; its four 24-bit words compare in the same order without that.
 * Other forms (another bson version) fall back to the bytes.
 */
function compareObjectIds(a: ObjectId, b: ObjectId): number {
  const x = a as unknown as ObjectIdWords;
  const y = b as unknown as ObjectIdWords;
  if (typeof x.i0 !== 'number' || typeof y.i0 !== 'number') return compareBytes(a.id, b.id);
  if (x.i0 !== y.i0) return x.i0 < y.i0 ? -1 : 1;
  if (x.i1 !== y.i1) return x.i1 < y.i1 ? -1 : 1;
  if (x.i2 !== y.i2) return x.i2 < y.i2 ? -1 : 1;
  return x.i3 === y.i3 ? 0 : x.i3 < y.i3 ? -1 : 1;
}

function binaryParts(value: unknown): { bytes: Uint8Array; subtype: number } {
  if (value instanceof Uint8Array) return { bytes: value, subtype: 0 };
  const b = value as Binary;
  return { bytes: b.buffer.subarray(0, b.position), subtype: b.sub_type };
}

function compareBinary(a: unknown, b: unknown): number {
  const x = binaryParts(a);
  const y = binaryParts(b);
  if (x.bytes.length !== y.bytes.length) return sign(x.bytes.length - y.bytes.length);
  if (x.subtype !== y.subtype) return sign(x.subtype - y.subtype);
  return compareBytes(x.bytes, y.bytes);
}

function compareTimestamps(a: Timestamp, b: Timestamp): number {
  const x = (a.getHighBits() >>> 0) * 4294967296 + (a.getLowBits() >>> 0);
  const y = (b.getHighBits() >>> 0) * 4294967296 + (b.getLowBits() >>> 0);
  return sign(x - y);
}

function regexParts(value: unknown): [string, string] {
  if (value instanceof RegExp) return [value.source, value.flags];
  const r = value as BSONRegExp;
  return [r.pattern, r.options];
}

function compareDocuments(a: Document, b: Document, collation?: Collation): number {
  const ka = Object.keys(a).filter((k) => a[k] !== undefined);
  const kb = Object.keys(b).filter((k) => b[k] !== undefined);
  const n = Math.min(ka.length, kb.length);
  for (let i = 0; i < n; i++) {
    const va = a[ka[i]!];
    const vb = b[kb[i]!];
    const t = typeRank(va) - typeRank(vb);
    if (t !== 0) return sign(t);
    const names = compareUtf8(ka[i]!, kb[i]!);
    if (names !== 0) return names;
    const c = compareValues(va, vb, collation);
    if (c !== 0) return c;
  }
  return sign(ka.length - kb.length);
}

function compareArrays(a: unknown[], b: unknown[], collation?: Collation): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const t = typeRank(a[i]) - typeRank(b[i]);
    if (t !== 0) return sign(t);
    const c = compareValues(a[i], b[i], collation);
    if (c !== 0) return c;
  }
  return sign(a.length - b.length);
}

/** Documents as mongod sees them: DBRef and other object-like classes by their fields. */
function asDocument(value: unknown): Document {
  if (isPlainObject(value)) return value;
  const json = (value as { toJSON?: () => unknown }).toJSON?.();
  return isPlainObject(json) ? json : (value as Document);
}

/** mongod's BSON order: negative, zero or positive. */
export function compareValues(a: unknown, b: unknown, collation?: Collation): number {
  // Fast paths for the commonest pairs.
  if (typeof a === 'number' && typeof b === 'number' && !Number.isNaN(a) && !Number.isNaN(b)) return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string' && isSimpleCollation(collation)) return a === b ? 0 : compareUtf8(a, b);
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case TypeRank.null:
    case TypeRank.minKey:
    case TypeRank.maxKey:
      return 0;
    case TypeRank.number:
      return compareNumbers(a, b);
    case TypeRank.string:
      return compareStrings(stringOf(a), stringOf(b), collation);
    case TypeRank.object:
      return compareDocuments(asDocument(a), asDocument(b), collation);
    case TypeRank.array:
      return compareArrays(a as unknown[], b as unknown[], collation);
    case TypeRank.binData:
      return compareBinary(a, b);
    case TypeRank.objectId:
      return compareObjectIds(a as ObjectId, b as ObjectId);
    case TypeRank.bool:
      return a === b ? 0 : a ? 1 : -1;
    case TypeRank.date:
      return sign((a as Date).getTime() - (b as Date).getTime());
    case TypeRank.timestamp:
      return compareTimestamps(a as Timestamp, b as Timestamp);
    case TypeRank.regex: {
      const [pa, oa] = regexParts(a);
      const [pb, ob] = regexParts(b);
      return compareUtf8(pa, pb) || compareUtf8(oa, ob);
    }
    default:
      return compareUtf8(String((a as { code?: unknown }).code), String((b as { code?: unknown }).code));
  }
}

export function valuesEqual(a: unknown, b: unknown, collation?: Collation): boolean {
  return compareValues(a, b, collation) === 0;
}

export { isNumeric };
