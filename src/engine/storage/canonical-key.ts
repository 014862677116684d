import type { Binary, BSONRegExp, Decimal128, Long, ObjectId, Timestamp } from 'bson';
import { collationKey, isSimpleCollation, type Collation } from '../collation/index.js';
import { bsonType, isPlainObject, numericType, toDouble } from '../query/index.js';

/**
 * A string that is equal for two values exactly when mongod considers them
 * equal (under an optional collation): 1, 1.0, Long(1) and Decimal128("1.00")
 * share one key; a string's part is its collation key, so a collated unique
 * index refuses exactly the strings a query under it calls equal. It is
 * the hash-map key of documents (`_id`) and of unique index entries, so that
 * lookups and unique checks never compare against every document.
 */
export function canonicalKey(value: unknown, collation?: Collation): string {
  const fold = stringFolder(collation);
  const scalar = scalarKey(value, fold);
  return scalar ?? JSON.stringify(structuredParts(value, fold));
}

/** The key of a compound index entry: one canonical key per field. */
export function canonicalTupleKey(values: readonly unknown[], collation?: Collation): string {
  if (values.length === 1) return canonicalKey(values[0], collation);
  const fold = stringFolder(collation);
  return JSON.stringify(values.map((v) => scalarKey(v, fold) ?? structuredParts(v, fold)));
}

type Fold = (s: string) => string;

const identity: Fold = (s) => s;

function stringFolder(collation?: Collation): Fold {
  return isSimpleCollation(collation) ? identity : (s) => collationKey(s, collation);
}

/** Tagged key of a non-container value; undefined for arrays and documents. */
function scalarKey(value: unknown, fold: Fold): string | undefined {
  if (value === undefined || value === null) return 'n';
  switch (typeof value) {
    case 'string':
      return 's' + fold(value);
    case 'number':
      return numberKey(value);
    case 'boolean':
      return value ? 'b1' : 'b0';
    case 'bigint':
      return 'i' + value.toString();
    default:
      break;
  }
  if (Array.isArray(value)) return undefined;
  if (value instanceof Date) return 't' + value.getTime();
  if (value instanceof RegExp) return 'r' + value.source + '/' + value.flags;
  if (value instanceof Uint8Array) return 'x0:' + Buffer.from(value).toString('base64');
  if (numericType(value) !== undefined) return numericKey(value);
  switch (bsonType(value)) {
    case 'ObjectId':
      return 'o' + (value as ObjectId).toHexString();
    case 'Binary': {
      const b = value as Binary;
      return 'x' + b.sub_type + ':' + Buffer.from(b.buffer.subarray(0, b.position)).toString('base64');
    }
    case 'Timestamp':
      return 'T' + (value as Timestamp).toString();
    case 'BSONRegExp':
      return 'r' + (value as BSONRegExp).pattern + '/' + (value as BSONRegExp).options;
    case 'BSONSymbol':
      return 's' + fold(String((value as { value: unknown }).value));
    case 'MinKey':
      return 'm';
    case 'MaxKey':
      return 'M';
    case 'Code':
      return 'c' + JSON.stringify(value);
    default:
      break;
  }
  if (isPlainObject(value)) return undefined;
  // DBRef and other object-like classes compare by their fields.
  const json = (value as { toJSON?: () => unknown }).toJSON?.();
  return isPlainObject(json) ? 'd' + JSON.stringify(structuredParts(json, fold)) : 'u' + String(value);
}

function structuredParts(value: unknown, fold: Fold): unknown {
  const scalar = scalarKey(value, fold);
  if (scalar !== undefined) return scalar;
  if (Array.isArray(value)) return ['a', ...value.map((v) => structuredParts(v, fold))];
  const doc = value as Record<string, unknown>;
  const parts: unknown[] = ['d'];
  for (const k of Object.keys(doc)) {
    if (doc[k] === undefined) continue;
    parts.push(k, structuredParts(doc[k], fold));
  }
  return parts;
}

// ------------------------------------------------------------------ numbers
// Every number becomes its exact rational value: "i<integer>" or
// "q<num>/<den>" in lowest terms, so equal values of any numeric type match.

function numberKey(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? '+inf' : '-inf';
  // A safe integer prints exactly (and -0 as "0"), as BigInt would, without allocating one.
  if (Number.isSafeInteger(n)) return 'i' + String(n);
  if (Number.isInteger(n)) return 'i' + BigInt(n).toString();
  let den = 1n;
  let x = n;
  while (!Number.isInteger(x)) {
    x *= 2;
    den *= 2n;
  }
  return rationalKey(BigInt(x), den);
}

const DECIMAL_RE = /^(-)?(\d+)(?:\.(\d*))?(?:E([+-]?\d+))?$/i;

function numericKey(value: unknown): string {
  switch (numericType(value)) {
    case 'long':
      return 'i' + (value as Long).toBigInt().toString();
    case 'decimal':
      return decimalKey(value as Decimal128);
    default:
      return numberKey(toDouble(value));
  }
}

function decimalKey(d: Decimal128): string {
  const s = d.toString();
  if (s.endsWith('NaN')) return 'NaN';
  if (s.endsWith('Infinity')) return s.startsWith('-') ? '-inf' : '+inf';
  const m = DECIMAL_RE.exec(s);
  if (!m) return 'NaN';
  const frac = m[3] ?? '';
  let num = BigInt(m[2] + frac);
  if (m[1]) num = -num;
  const exp = Number(m[4] ?? 0) - frac.length;
  if (exp >= 0) return 'i' + (num * 10n ** BigInt(exp)).toString();
  return rationalKey(num, 10n ** BigInt(-exp));
}

function rationalKey(num: bigint, den: bigint): string {
  const g = gcd(num < 0n ? -num : num, den);
  const n = num / g;
  const d = den / g;
  return d === 1n ? 'i' + n.toString() : 'q' + n.toString() + '/' + d.toString();
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a === 0n ? 1n : a;
}
