import { bsonType, isPlainObject, toDouble } from './values.js';

/** A short mongo-shell-like rendering of a value for error messages ({ _id: 1 }). */
export function formatValue(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[ ${value.map(formatValue).join(', ')} ]`;
  if (value instanceof Date) return `new Date(${value.getTime()})`;
  if (isPlainObject(value)) {
    const keys = Object.keys(value);
    if (keys.length === 0) return '{}';
    return `{ ${keys.map((k) => `${k}: ${formatValue(value[k])}`).join(', ')} }`;
  }
  switch (bsonType(value)) {
    case 'ObjectId':
      return `ObjectId('${(value as { toHexString(): string }).toHexString()}')`;
    case 'Double':
      return String(toDouble(value));
    case 'Long':
      return `${String(value)}`;
    case 'Decimal128':
      return `Decimal128("${String(value)}")`;
    default:
      return String(value);
  }
}
