import { compareValues, typeRank } from './compare.js';
import { isNumeric, isPlainObject, numericType } from './values.js';

/**
 * Exact sameness as stored BSON would see it: same types (int vs double
 * differ), same field order. Used to tell a no-op update from a real one.
 */
export function identical(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => identical(v, b[i]));
  }
  if (isPlainObject(a) || isPlainObject(b)) {
    if (!isPlainObject(a) || !isPlainObject(b)) return false;
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    return ka.length === kb.length && ka.every((k, i) => k === kb[i] && identical(a[k], b[k]));
  }
  if (isNumeric(a) || isNumeric(b)) {
    return numericType(a) === numericType(b) && compareValues(a, b) === 0;
  }
  return typeRank(a) === typeRank(b) && compareValues(a, b) === 0;
}
