import { createHash } from 'node:crypto';
import { BSON, Long } from 'bson';
import { collationKey } from '../collation/index.js';
import { bsonType, isNumeric, isPlainObject, toBigInt, toDouble } from './values.js';
import type { Collation } from './types.js';
import type { IndexSpec } from '../model/index.js';

/** The position of a hashed index's hashed key field (mongod allows one), or -1. */
export function hashedFieldPosition(spec: IndexSpec): number {
  return Object.values(spec.key).indexOf('hashed');
}

/**
 * A hashed index's key of one value, as mongod computes it
 * (BSONElementHasher::hash64 with seed 0): the md5 of the value's canonical
 * type, then, for a number, its int64 (a double truncated toward zero, so
 * 3 and 3.1 share a key), for a document or array each element in turn
 * (type, name, value) and an end marker, for anything else its BSON value
 * bytes. The first 8 bytes of the digest, little-endian, are the key. A
 * missing value hashes as null. Under a collation a string is hashed as its
 * collation key: mongod hashes ICU's sort key bytes instead, so such keys
 * differ from mongod's (they are never sent anywhere but returnKey).
 */
export function hashedKey(value: unknown, collation?: Collation): Long {
  const md5 = createHash('md5');
  md5.update(int32(0)); // the seed
  hashElement(md5, value === undefined ? null : value, undefined, collation);
  const digest = md5.digest();
  return Long.fromBits(digest.readInt32LE(0), digest.readInt32LE(4));
}

type Md5 = ReturnType<typeof createHash>;

function hashElement(md5: Md5, value: unknown, name: string | undefined, collation: Collation | undefined): void {
  md5.update(int32(canonicalType(value)));
  if (name !== undefined) md5.update(cString(name));
  if (isNumeric(value)) {
    md5.update(int64(numberForHash(value)));
  } else if (Array.isArray(value) || isPlainObject(value)) {
    const entries: Array<[string, unknown]> = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
    for (const [key, child] of entries) if (child !== undefined || Array.isArray(value)) hashElement(md5, child ?? null, key, collation);
    // The end-of-object element: type 0, no name, no value.
    md5.update(int32(0));
  } else {
    const leaf = typeof value === 'string' && collation ? collationKey(value, collation) : value;
    md5.update(valueBytes(leaf));
  }
}

/** mongod's canonicalizeBSONType: the type order's classes, all numbers one class. */
function canonicalType(value: unknown): number {
  if (value === null) return 5;
  if (value === undefined) return 0;
  if (isNumeric(value)) return 10;
  if (typeof value === 'string') return 15;
  if (typeof value === 'boolean') return 40;
  if (value instanceof Date) return 45;
  if (value instanceof RegExp) return 50;
  if (Array.isArray(value)) return 25;
  switch (bsonType(value)) {
    case 'MinKey':
      return -1;
    case 'MaxKey':
      return 127;
    case 'BSONSymbol':
      return 15;
    case 'Binary':
      return 30;
    case 'ObjectId':
      return 35;
    case 'Timestamp':
      return 47;
    case 'BSONRegExp':
      return 50;
    case 'Code':
      return (value as { scope?: unknown }).scope ? 65 : 60;
    default:
      return 20;
  }
}

/** safeNumberLongForHash: doubles toward zero (NaN 0, out of range clamped), other numbers as int64. */
function numberForHash(value: unknown): bigint {
  const t = bsonType(value);
  if (t === 'Long' || t === 'Int32' || (typeof value === 'number' && Number.isInteger(value))) return toBigInt(value) ?? 0n;
  if (t === 'Decimal128') {
    const n = Number(String(value));
    if (Number.isNaN(n)) return 0n;
    return clampToLong(n, () => BigInt(Math.trunc(n)));
  }
  const d = toDouble(value);
  if (Number.isNaN(d)) return 0n;
  return clampToLong(d, () => BigInt(Math.trunc(d)));
}

const LONG_MAX = (1n << 63n) - 1n;
const LONG_MIN = -(1n << 63n);

function clampToLong(approx: number, exact: () => bigint): bigint {
  if (approx >= 2 ** 63) return LONG_MAX;
  if (approx < -(2 ** 63)) return LONG_MIN;
  return exact();
}

/** A leaf value's BSON value bytes (what follows an element's name). */
function valueBytes(value: unknown): Buffer {
  const doc = BSON.serialize({ '': value });
  // int32 length, type byte, the empty name's NUL, the value, the document's final NUL.
  return Buffer.from(doc.subarray(6, doc.length - 1));
}

function int32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32LE(n);
  return b;
}

function int64(n: bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigInt64LE(BigInt.asIntN(64, n));
  return b;
}

function cString(s: string): Buffer {
  return Buffer.concat([Buffer.from(s, 'utf8'), Buffer.alloc(1)]);
}
