import { mongoError } from '../../errors.js';
import { getPathValues } from '../path.js';
import { isPlainObject } from '../values.js';
import type { Document } from '../types.js';
import { distanceTo, nearUnits, NEAR_OPERATORS, parseNear, storedGeometries, type NearSpec, type NearUnits } from './geo-query.js';

/**
 * A $near/$nearSphere query resolved against the collection's indexes, as
 * mongod's planner does: legacy $near needs a 2d index on the path, legacy
 * $nearSphere a 2d or 2dsphere one, a GeoJSON point a 2dsphere one; without
 * it the query fails (291). The index also decides the candidates: a 2d
 * index holds legacy pairs only, a 2dsphere index every document with a
 * geometry in the field. Evaluation scans; results come nearest first.
 */

export interface GeoIndexLike {
  name: string;
  key: Record<string, unknown>;
  hidden?: unknown;
}

export interface NearMeasure {
  distance: number;
  /** The stored location that was nearest (`includeLocs`). */
  loc: unknown;
}

export interface NearPlan {
  path: string;
  spec: NearSpec;
  units: NearUnits;
  /** The kind of index that answers it (explain names its stage after it). */
  kind: '2d' | '2dsphere';
  /** The nearest location of a document within the query's bounds, else undefined. */
  measure(doc: Document): NearMeasure | undefined;
  /** The same test over the values a path reaches (the filter operator's view). */
  test(leaves: unknown[]): boolean;
}

function nearConditions(filter: Document): Array<[string, Document]> {
  const out: Array<[string, Document]> = [];
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and' && Array.isArray(value)) {
      for (const clause of value) if (isPlainObject(clause)) out.push(...nearConditions(clause));
    } else if (!key.startsWith('$') && isPlainObject(value) && Object.keys(value).some((k) => NEAR_OPERATORS.has(k))) {
      out.push([key, value]);
    }
  }
  return out;
}

/** Whether a filter holds a top-level near condition (read paths that cannot sort by distance refuse it). */
export function hasNearCondition(filter: Document | undefined): boolean {
  return filter !== undefined && nearConditions(filter).length > 0;
}

function indexFor(path: string, units: NearUnits, indexes: readonly GeoIndexLike[]): '2d' | '2dsphere' | undefined {
  const usable = indexes.filter((ix) => !ix.hidden);
  const has = (kind: string) => usable.some((ix) => ix.key[path] === kind && (kind !== '2d' || Object.keys(ix.key)[0] === path));
  if (units === 'flat') return has('2d') ? '2d' : undefined;
  if (units === 'radians') return has('2d') ? '2d' : has('2dsphere') ? '2dsphere' : undefined;
  return has('2dsphere') ? '2dsphere' : undefined;
}

/** How many near operators a filter holds anywhere ($or branches, $elemMatch, ...). */
function countNearOperators(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + countNearOperators(v), 0);
  if (!isPlainObject(value)) return 0;
  return Object.entries(value).reduce((n, [k, v]) => n + (NEAR_OPERATORS.has(k) ? 1 : 0) + countNearOperators(v), 0);
}

/** The filter's near query, resolved; undefined when there is none. Throws mongod's errors. */
export function planNear(filter: Document | undefined, indexes: readonly GeoIndexLike[], ns: string): NearPlan | undefined {
  const parsed = parseNearQuery(filter);
  if (!parsed) return undefined;
  const { path, spec, units } = parsed;
  const kind = indexFor(path, units, indexes);
  if (!kind) {
    throw mongoError(
      'NoQueryExecutionPlans',
      `error processing query: ns=${ns} planner returned error :: caused by :: unable to find index for $geoNear query`,
    );
  }
  const nearest = (leaves: unknown[]): NearMeasure | undefined => {
    let best: NearMeasure | undefined;
    for (const leaf of leaves) {
      for (const { g, loc } of storedGeometries(leaf)) {
        // A 2d index holds legacy coordinate pairs only.
        if (kind === '2d' && !(g.kind === 'point' && g.flat)) continue;
        const distance = distanceTo(spec, units, g);
        if (distance !== undefined && (!best || distance < best.distance)) best = { distance, loc };
      }
    }
    if (!best || best.distance < spec.min || best.distance > spec.max) return undefined;
    return best;
  };
  return {
    path,
    spec,
    units,
    kind,
    measure: (doc) => nearest(getPathValues(doc, path)),
    test: (leaves) => nearest(leaves) !== undefined,
  };
}

/**
 * The filter's near query checked as mongod's CanonicalQuery checks it, before
 * any planning (so also for a missing collection, where no index is needed).
 */
export function parseNearQuery(filter: Document | undefined): { path: string; spec: NearSpec; units: NearUnits } | undefined {
  if (!filter) return undefined;
  const found = nearConditions(filter);
  const total = countNearOperators(filter);
  if (total > 1) throw mongoError('BadValue', 'Too many geoNear expressions');
  // mongod's CanonicalQuery: a near operator only at the top level (or in a top-level $and).
  if (total > found.length) throw mongoError('BadValue', 'geoNear must be top-level expr');
  if (found.length === 0) return undefined;
  const [path, condition] = found[0]!;
  const spec = parseNear(condition);
  return { path, spec, units: nearUnits(spec) };
}

/** Orders documents nearest first; equal distances keep their scan order. */
export function orderByDistance(docs: Iterable<Document>, plan: NearPlan): Document[] {
  const measured: Array<{ doc: Document; distance: number }> = [];
  for (const doc of docs) {
    const m = plan.measure(doc);
    if (m) measured.push({ doc, distance: m.distance });
  }
  return measured.sort((a, b) => a.distance - b.distance).map((m) => m.doc);
}
