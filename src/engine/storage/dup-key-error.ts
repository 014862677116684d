import type { Binary, BSONRegExp, Decimal128, Long, ObjectId, Timestamp } from 'bson';
import { mongoError } from '../errors.js';
import type { MongoCommandError } from '../errors.js';
import type { IndexSpec } from '../model/index.js';
import { bsonType, isPlainObject } from '../query/index.js';

/**
 * DuplicateKey (11000) exactly as mongod reports it, e.g.
 * `E11000 duplicate key error collection: db.coll index: email_1 dup key: { email: "x" }`
 * with `keyPattern` and `keyValue` (the driver copies both onto its error).
 */
export function duplicateKeyError(ns: string, spec: IndexSpec, values: readonly unknown[]): MongoCommandError {
  const fields = Object.keys(spec.key);
  const keyValue: Record<string, unknown> = {};
  fields.forEach((f, i) => {
    keyValue[f] = values[i] === undefined ? null : values[i];
  });
  const message =
    `E11000 duplicate key error collection: ${ns} index: ${spec.name} dup key: ` + formatBsonValue(keyValue);
  return mongoError('DuplicateKey', message, { keyPattern: { ...spec.key }, keyValue });
}

/** mongod's BSONObj::toString() rendering of one value (shell-like). */
export function formatBsonValue(value: unknown): string {
  if (value === undefined || value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (Array.isArray(value)) return value.length === 0 ? '[]' : `[ ${value.map(formatBsonValue).join(', ')} ]`;
  if (value instanceof Date) return `new Date(${value.getTime()})`;
  if (value instanceof RegExp) return `/${value.source}/${value.flags}`;
  switch (bsonType(value)) {
    case 'ObjectId':
      return `ObjectId('${(value as ObjectId).toHexString()}')`;
    case 'Double': {
      const n = (value as { value: number }).value;
      return Number.isInteger(n) ? n.toFixed(1) : String(n);
    }
    case 'Int32':
      return String((value as { value: number }).value);
    case 'Long':
      return (value as Long).toString();
    case 'Decimal128':
      return (value as Decimal128).toString();
    case 'Binary': {
      const b = value as Binary;
      const hex = Buffer.from(b.buffer.subarray(0, b.position)).toString('hex').toUpperCase();
      return `BinData(${b.sub_type}, ${hex})`;
    }
    case 'Timestamp': {
      const t = value as Timestamp;
      return `Timestamp(${t.t}, ${t.i})`;
    }
    case 'BSONRegExp':
      return `/${(value as BSONRegExp).pattern}/${(value as BSONRegExp).options}`;
    case 'MinKey':
      return 'MinKey';
    case 'MaxKey':
      return 'MaxKey';
    default:
      break;
  }
  if (isPlainObject(value)) {
    const keys = Object.keys(value).filter((k) => value[k] !== undefined);
    if (keys.length === 0) return '{}';
    return `{ ${keys.map((k) => `${k}: ${formatBsonValue(value[k])}`).join(', ')} }`;
  }
  return String(value);
}
