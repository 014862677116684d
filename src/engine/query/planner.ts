import type { IndexSpec, ScanPlan } from '../model/index.js';
import { isOperatorObject } from './filter/compile-filter.js';
import { isRegexValue } from './regex.js';
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
    } else if (!key.startsWith('$')) {
      out.push([key, filter[key]]);
    }
  }
  return out;
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
  for (const index of indexes) {
    // A hidden index (collMod) is maintained but never chosen.
    if (index.partialFilterExpression || index.sparse || index.hidden) continue;
    if (!sameCollation(index.collation, collation)) continue;
    const first = Object.keys(index.key)[0];
    const dir = first === undefined ? undefined : index.key[first];
    const d = isNumeric(dir) ? toDouble(dir) : Number.NaN;
    if (first === undefined || (d !== 1 && d !== -1)) continue;
    for (const [path, condition] of conditions) {
      if (path !== first) continue;
      const bounds = boundsFor(condition);
      if (!bounds) continue;
      const score = rank(index, bounds, conditions);
      if (!best || score > best.score) best = { plan: { index: index.name, ...bounds }, score };
    }
  }
  return best?.plan;
}
