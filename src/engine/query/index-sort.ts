import type { IndexSpec, ScanPlan } from '../model/index.js';
import { boundsFor, conditionsOf, planWildcard, sameCollation } from './planner.js';
import { wildcardShape } from './wildcard-keys.js';
import { isNumeric, toDouble } from './values.js';
import type { Collation, Document } from './types.js';

/**
 * Index-provided sort (mongod's "provided sort"): an ascending/descending
 * index gives a sort's order when its key fields, after a prefix bound to
 * one equality value each, are the sort's fields, all in the index's
 * directions or all reversed (then the index is walked backwards). Sort
 * fields bound by equality are constants and drop out of the sort. The
 * plan bounds the equality prefix and, when the filter has one, a range on
 * the next key field (compound bounds: a deep page does not rescan).
 *
 * An index cannot give an order when it is multikey (entries per array
 * element), sparse or partial (it lacks documents), special (text, 2dsphere;
 * a hashed field ends the order a compound index gives), or its collation differs from the query's (strings would come in
 * another order). Hidden indexes only when hinted.
 */

export interface SortedScan {
  plan: ScanPlan;
  /** How tightly it bounds the scan: 2 per equality field, 1 for a range. */
  tightness: number;
}

/** The sorted scan `index` gives for `filter` + `sort`, or undefined when it cannot give that order. */
export function sortedScanFor(index: IndexSpec, filter: Document, sort: Document, collation: Collation | undefined, multikey: boolean): SortedScan | undefined {
  if (multikey || index.sparse || index.partialFilterExpression) return undefined;
  if (!sameCollation(index.collation, collation)) return undefined;
  if (wildcardShape(index)) return wildcardSortedScan(index, filter, sort);
  const fields = Object.keys(index.key);
  const dirs = fields.map((f) => direction(index.key[f]));
  // A hashed field holds hashes, not values: a compound hashed index orders by the fields before it
  // (mongod's sort over {a: 1, b: "hashed"}); text and geo indexes hold only some documents.
  if (fields.some((f, i) => dirs[i] === 0 && index.key[f] !== 'hashed')) return undefined;
  const sortFields = Object.keys(sort);
  if (sortFields.some((f) => direction(sort[f]) === 0)) return undefined;

  const conditions = conditionsOf(filter);
  const boundsOn = (path: string) => conditions.filter(([p]) => p === path).map(([, c]) => boundsFor(c)).filter((b) => b !== undefined);
  const equals: unknown[] = [];
  for (const [i, field] of fields.entries()) {
    if (dirs[i] === 0) break;
    const point = boundsOn(field).find((b) => b.equals?.length === 1);
    if (!point) break;
    equals.push(point.equals![0]);
  }
  const k = equals.length;
  const bound = new Set(fields.slice(0, k));
  const ordered = sortFields.filter((f) => !bound.has(f));
  if (ordered.length > fields.length - k || ordered.some((f, j) => f !== fields[k + j])) return undefined;
  const flips = ordered.map((f, j) => direction(sort[f]) * dirs[k + j]!);
  const flip = flips[0] ?? 1;
  if (flips.some((x) => x !== flip || x === 0)) return undefined;

  const range = k < fields.length && dirs[k] !== 0 ? boundsOn(fields[k]!).find((b) => b.range)?.range : undefined;
  // Storage keeps the first field ascending: index order is backwards there when that field is descending.
  const backward = flip * dirs[0]! < 0;
  const plan: ScanPlan = { index: index.name, keyBounds: { equals, ...(range ? { range } : {}) }, ...(backward ? { backward } : {}) };
  return { plan, tightness: 2 * k + (range ? 1 : 0) };
}

/**
 * A wildcard index gives the order of a sort on one field when the filter
 * reads that field's path through it (planWildcard, not its subpaths) and
 * no indexed document holds an array (mongod: the path is not multikey).
 */
function wildcardSortedScan(index: IndexSpec, filter: Document, sort: Document): SortedScan | undefined {
  const sortFields = Object.keys(sort);
  if (sortFields.length !== 1 || direction(sort[sortFields[0]!]) === 0) return undefined;
  const found = planWildcard(index, conditionsOf(filter));
  const plan = found?.plan;
  // A `$in`'s runs come one value after another, not merged: no order from them.
  if (!plan?.wildcard || plan.wildcard.subpaths || plan.keyBounds?.points || plan.wildcard.path !== sortFields[0]) return undefined;
  const shape = wildcardShape(index)!;
  const fields = Object.keys(index.key);
  // Stored order keeps the first key field ascending: the value runs in its own direction times the first field's.
  const stored = direction(index.key[shape.field]) * (shape.position === 0 ? 1 : direction(index.key[fields[0]!]));
  const backward = direction(sort[sortFields[0]!]) * stored < 0;
  const bounds = plan.keyBounds!;
  return { plan: { ...plan, ...(backward ? { backward } : {}) }, tightness: 2 * bounds.equals.length + (bounds.range ? 1 : 0) };
}

/**
 * The tightest sorted scan over the visible indexes; ties go to the index
 * with fewer key fields (fewer entries to step over), then to `_id_`.
 */
export function planSortedScan(
  filter: Document,
  indexes: readonly IndexSpec[],
  sort: Document,
  collation: Collation | undefined,
  multikey: ReadonlySet<string>,
): SortedScan | undefined {
  let best: { scan: SortedScan; width: number } | undefined;
  for (const index of indexes) {
    if (index.hidden) continue;
    const scan = sortedScanFor(index, filter, sort, collation, multikey.has(index.name));
    if (!scan) continue;
    const width = Object.keys(index.key).length;
    if (!best || scan.tightness > best.scan.tightness || (scan.tightness === best.scan.tightness && width < best.width)) best = { scan, width };
  }
  return best?.scan;
}

/** 1 or -1 for an ascending/descending key or sort direction; 0 for anything else (text, hashed, $meta). */
function direction(value: unknown): number {
  if (!isNumeric(value)) return 0;
  const d = toDouble(value);
  return d === 1 || d === -1 ? d : 0;
}
