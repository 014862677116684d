import type { IndexSpec, ScanPlan } from '../model/index.js';
import { isOperatorObject } from './filter/compile-filter.js';
import { hashedFieldPosition, hashedKey } from './hashed-key.js';
import { isArrayIndex } from './path.js';
import { isRegexValue } from './regex.js';
import { wildcardShape } from './wildcard-keys.js';
import { isNumeric, isPlainObject, toDouble } from './values.js';
import type { Collation, Document } from './types.js';

/**
 * Picks an index to narrow a read. Bounds are on the index's first key field
 * and come from top-level conditions (or those inside a top-level $and).
 * Preference: `_id_`, then unique, then equality over range (rank). Partial, sparse
 * and collated indexes (unless the query collation equals theirs) are skipped.
 * The storage returns a superset; the caller still applies the whole filter.
 */

type Bounds = Omit<ScanPlan, 'index'>;

export function boundsFor(condition: unknown): Bounds | undefined {
  if (isRegexValue(condition)) return undefined;
  if (!isOperatorObject(condition)) {
    // Equality on an array value would also need the array itself; leave it to a scan.
    if (Array.isArray(condition) || condition === null || condition === undefined) return undefined;
    return { equals: [condition] };
  }
  if ('$eq' in condition) {
    const v = condition.$eq;
    if (Array.isArray(v) || v === null || isRegexValue(v)) return undefined;
    return { equals: [v] };
  }
  if ('$in' in condition && Array.isArray(condition.$in)) {
    const vals = condition.$in;
    if (vals.some((v) => Array.isArray(v) || v === null || isRegexValue(v) || isPlainObject(v))) return undefined;
    return { equals: [...vals] };
  }
  const range: NonNullable<ScanPlan['range']> = {};
  if ('$gt' in condition) Object.assign(range, { min: condition.$gt, minInclusive: false });
  if ('$gte' in condition) Object.assign(range, { min: condition.$gte, minInclusive: true });
  if ('$lt' in condition) Object.assign(range, { max: condition.$lt, maxInclusive: false });
  if ('$lte' in condition) Object.assign(range, { max: condition.$lte, maxInclusive: true });
  if (range.min === null || range.max === null) return undefined;
  return 'min' in range || 'max' in range ? { range } : undefined;
}

export function sameCollation(a: IndexSpec['collation'], b: Collation | undefined): boolean {
  const simple = (c: { locale: string } | undefined) => !c || c.locale === 'simple';
  if (simple(a) && simple(b)) return true;
  if (!a || !b) return false;
  return a.locale === b.locale && (a.strength ?? 3) === (b.strength ?? 3);
}

export function conditionsOf(filter: Document): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  for (const key of Object.keys(filter)) {
    if (key === '$and' && Array.isArray(filter.$and)) {
      for (const clause of filter.$and) if (isPlainObject(clause)) out.push(...conditionsOf(clause));
    } else if (key === '$expr') {
      out.push(...exprEqualities(filter.$expr));
    } else if (!key.startsWith('$')) {
      out.push([key, filter[key]]);
    }
  }
  return out;
}

/**
 * The equalities a top-level `$expr` states between a field and a constant
 * (`{$eq: ['$a', 5]}`, either way round, also among the clauses of its
 * `$and`), as conditions `a: 5` for planning only, as mongod plans its
 * `$_internalExprEq`: every document the expression matches has that key
 * (an array value never equals a scalar there), and the filter still runs.
 * Not a range: an expression compares across types in BSON order (null is
 * below 5), which the bounds of one type would miss.
 */
function exprEqualities(expr: unknown): Array<[string, unknown]> {
  if (!isPlainObject(expr) || Object.keys(expr).length !== 1) return [];
  if (Array.isArray(expr.$and)) return expr.$and.flatMap(exprEqualities);
  const operands = expr.$eq;
  if (!Array.isArray(operands) || operands.length !== 2) return [];
  const [left, right] = operands;
  const leftPath = fieldPathOf(left);
  const path = leftPath ?? fieldPathOf(right);
  const value = leftPath === undefined ? constantOf(left) : constantOf(right);
  return path === undefined || value === undefined ? [] : [[path, value]];
}

/** `'$a.b'` -> `a.b`; not a variable (`$$x`), nor a path with a numeric part (no array position in an expression). */
function fieldPathOf(operand: unknown): string | undefined {
  if (typeof operand !== 'string' || !operand.startsWith('$') || operand.startsWith('$$')) return undefined;
  const parts = operand.slice(1).split('.');
  return parts.some((part) => part === '' || isArrayIndex(part)) ? undefined : operand.slice(1);
}

/** A scalar constant of an expression (itself or in `$literal`); not a string read as a path, an object, a list or null. */
function constantOf(operand: unknown): unknown {
  const value = isPlainObject(operand) && Object.keys(operand).length === 1 && '$literal' in operand ? operand.$literal : operand;
  if (value === operand && typeof value === 'string' && value.startsWith('$')) return undefined;
  if (value === null || value === undefined || Array.isArray(value) || isPlainObject(value) || isRegexValue(value)) return undefined;
  return value;
}

/**
 * `_id_`, then unique, then equality over range; between otherwise equal
 * indexes, the one whose further key fields the filter also fixes by
 * equality (it is the more specific, e.g. `{word: 1, tenant: 1}` over
 * `{tenant: 1, _id: 1}` for both fixed), never enough to outrank the above.
 */
function rank(index: IndexSpec, bounds: Bounds, conditions: ReadonlyArray<[string, unknown]>): number {
  let score = bounds.equals ? 2 : 1;
  if (index.name === '_id_') score += 8;
  else if (index.unique) score += 4;
  const further = Object.keys(index.key).slice(1);
  const fixed = further.filter((field) => conditions.some(([path, condition]) => path === field && boundsFor(condition)?.equals));
  return score + fixed.length / (further.length + 1) / 2;
}

/** Strings compare by collation under a collated index/query: only bound them when collations agree. */
export function planQuery(filter: Document | undefined, indexes: IndexSpec[], collation?: Collation): ScanPlan | undefined {
  if (!filter) return undefined;
  const conditions = conditionsOf(filter);
  let best: { plan: ScanPlan; score: number } | undefined;
  const consider = (plan: ScanPlan, score: number) => {
    if (!best || score > best.score) best = { plan, score };
  };
  for (const index of indexes) {
    // A hidden index (collMod) is maintained but never chosen.
    if (index.partialFilterExpression || index.sparse || index.hidden) continue;
    if (!sameCollation(index.collation, collation)) continue;
    // A wildcard index holds only documents with a covered leaf: it answers through its `$_path` bounds or not at all.
    if (wildcardShape(index)) {
      const wildcard = planWildcard(index, conditions);
      if (wildcard) consider(wildcard.plan, wildcard.score);
      continue;
    }
    const hashed = hashedFieldPosition(index) === 0 ? planHashed(index, conditions) : undefined;
    if (hashed) consider(hashed.plan, hashed.score);
    const first = Object.keys(index.key)[0];
    const dir = first === undefined ? undefined : index.key[first];
    const d = isNumeric(dir) ? toDouble(dir) : Number.NaN;
    if (first === undefined || (d !== 1 && d !== -1)) continue;
    for (const [path, condition] of conditions) {
      if (path !== first) continue;
      const bounds = boundsFor(condition);
      if (!bounds) continue;
      consider({ index: index.name, ...bounds }, rank(index, bounds, conditions));
    }
  }
  return (best as { plan: ScanPlan } | undefined)?.plan;
}

type Scored = { plan: ScanPlan; score: number };

/**
 * A hashed first field answers equality and `$in` (mongod's hashed bounds:
 * each value's hash, inexact, so the filter still runs), null and
 * `$exists: false` through null's hash (a missing field is keyed as null);
 * never a range or an array (which a hashed field never holds).
 */
function planHashed(index: IndexSpec, conditions: ReadonlyArray<[string, unknown]>): Scored | undefined {
  const first = Object.keys(index.key)[0]!;
  let found: Scored | undefined;
  for (const [path, condition] of conditions) {
    if (path !== first) continue;
    const equals = hashableEquals(condition);
    if (!equals) continue;
    const keys = equals.map((v) => hashedKey(v, index.collation as Collation | undefined));
    found = { plan: { index: index.name, equals: keys }, score: rank(index, { equals: keys }, conditions) };
    if (equals.length === 1) break;
  }
  return found;
}

function hashableEquals(condition: unknown): unknown[] | undefined {
  if (isOperatorObject(condition)) {
    const keys = Object.keys(condition);
    if (keys.length === 1 && keys[0] === '$eq') return hashableEquals(condition.$eq);
    if (keys.length === 1 && keys[0] === '$exists' && (condition.$exists === false || condition.$exists === 0)) return [null];
    if (keys.length === 1 && keys[0] === '$in' && Array.isArray(condition.$in)) {
      const values = condition.$in;
      return values.every((v) => hashableEquals(v) !== undefined) ? values : undefined;
    }
    return undefined;
  }
  if (condition === undefined || Array.isArray(condition) || isRegexValue(condition)) return undefined;
  return [condition];
}

/**
 * A wildcard index answers a condition on one path it covers (mongod's
 * `$_path` bounds): equality to a scalar, a range, `$in` (a run per
 * value) or `$exists: true` (the path and its subpaths), after an equality
 * on each regular field before its `$**` field. Not null, `$ne`,
 * `$exists: false`, documents or arrays: a missing field has no key. A path
 * with a numeric part could name an array position, which the keys do not
 * hold: left to a scan.
 */
export function planWildcard(index: IndexSpec, conditions: ReadonlyArray<[string, unknown]>): Scored | undefined {
  const shape = wildcardShape(index);
  if (!shape) return undefined;
  const fields = Object.keys(index.key);
  const prefix: unknown[] = [];
  for (const field of fields.slice(0, shape.position)) {
    const point = conditions.map(([p, c]) => (p === field ? boundsFor(c) : undefined)).find((b) => b?.equals?.length === 1);
    if (!point) return undefined;
    prefix.push(point.equals![0]);
  }
  let best: Scored | undefined;
  for (const [path, condition] of conditions) {
    if (!shape.covers(path) || path.split('.').some(isArrayIndex) || fields.includes(path)) continue;
    const found = wildcardBounds(index, path, condition, prefix);
    if (found && (!best || found.score > best.score)) best = found;
  }
  return best;
}

function wildcardBounds(index: IndexSpec, path: string, condition: unknown, prefix: unknown[]): Scored | undefined {
  const plan = (keyBounds: NonNullable<ScanPlan['keyBounds']>, subpaths = false): ScanPlan => ({
    index: index.name,
    keyBounds,
    wildcard: subpaths ? { path, subpaths } : { path },
  });
  const exists = isOperatorObject(condition) && condition.$exists === true && Object.keys(condition).length === 1;
  if (exists) {
    // The path itself, then its subpaths ("a." up to "a/", '/' following '.'); simple strings only.
    if (index.collation && (index.collation as { locale?: string }).locale !== 'simple') return undefined;
    return { plan: plan({ equals: prefix, range: { min: path, minInclusive: true, max: `${path}/`, maxInclusive: false } }, true), score: 0.8 };
  }
  const bounds = boundsFor(condition);
  if (!bounds) return undefined;
  if (bounds.equals) {
    if (bounds.equals.some((v) => isPlainObject(v))) return undefined;
    if (bounds.equals.length === 1) return { plan: plan({ equals: [...prefix, path, bounds.equals[0]] }), score: 1.9 };
    return { plan: plan({ equals: [...prefix, path], points: bounds.equals }), score: 1.5 };
  }
  if (bounds.range) return { plan: plan({ equals: [...prefix, path], range: bounds.range }), score: 0.9 };
  return undefined;
}
