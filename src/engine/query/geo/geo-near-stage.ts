import { mongoError } from '../../errors.js';
import { cloneValue, isNumeric, isPlainObject, setField, toDouble } from '../values.js';
import type { Document } from '../types.js';
import { planNear, type GeoIndexLike } from './near.js';

/**
 * The `$geoNear` aggregation stage, as mongod 7.0 runs it: parsed, then
 * rewritten into a query `{...query, <key>: {$near|$nearSphere: near,
 * $minDistance, $maxDistance}}` (DocumentSourceGeoNear::asNearQuery) whose
 * results, nearest first, get the distance (times distanceMultiplier) and
 * optionally the matched location written into them.
 */

export interface GeoNearStagePlan {
  /** The query the read path runs (it orders by distance). */
  filter: Document;
  /** Writes distanceField / includeLocs into the ordered results. */
  annotate(docs: Iterable<Document>): Document[];
}

interface GeoNearOptions {
  near: unknown;
  distanceField: string;
  query: Document;
  spherical: boolean;
  min?: number;
  max?: number;
  multiplier: number;
  includeLocs?: string;
  key?: string;
}

function nonNegative(spec: Document, name: string): number | undefined {
  const value = spec[name];
  if (value === undefined) return undefined;
  if (!isNumeric(value)) throw mongoError('TypeMismatch', `${name} must be a number`);
  const n = toDouble(value);
  if (!(n >= 0)) throw mongoError('BadValue', `${name} must be nonnegative`);
  return n;
}

function parseOptions(spec: unknown): GeoNearOptions {
  if (!isPlainObject(spec)) throw mongoError('FailedToParse', 'the $geoNear stage specification must be an object');
  if (spec.collation !== undefined) {
    throw mongoError('Location40227', "$geoNear does not accept the 'collation' parameter. Instead, specify a collation for the entire aggregation command.");
  }
  if (spec.limit !== undefined) throw mongoError('Location50858', "$geoNear no longer supports the 'limit' parameter. Use a $limit stage instead.");
  if (spec.num !== undefined) throw mongoError('Location50857', "$geoNear no longer supports the 'num' parameter. Use a $limit stage instead.");
  if (spec.near === undefined) throw mongoError('Location5860400', "$geoNear requires a 'near' argument");
  if (!Array.isArray(spec.near) && !isPlainObject(spec.near)) {
    throw mongoError('Location5860401', '$geoNear requires near argument to be a GeoJSON object or a legacy point(array)');
  }
  if (typeof spec.distanceField !== 'string') throw mongoError('Location16606', "$geoNear requires a 'distanceField' option as a String");
  const options: GeoNearOptions = {
    near: spec.near,
    distanceField: spec.distanceField,
    query: {},
    spherical: Boolean(spec.spherical),
    max: nonNegative(spec, 'maxDistance'),
    min: nonNegative(spec, 'minDistance'),
    multiplier: nonNegative(spec, 'distanceMultiplier') ?? 1,
  };
  if (spec.query !== undefined) {
    if (!isPlainObject(spec.query)) throw mongoError('TypeMismatch', 'query must be an object');
    options.query = spec.query;
  }
  if (spec.includeLocs !== undefined) {
    if (typeof spec.includeLocs !== 'string') throw mongoError('Location16607', "$geoNear requires that 'includeLocs' option is a String");
    options.includeLocs = spec.includeLocs;
  }
  if (spec.key !== undefined) {
    if (typeof spec.key !== 'string') throw mongoError('TypeMismatch', `$geoNear parameter 'key' must be of type string but found type: ${typeof spec.key}`);
    if (spec.key === '') throw mongoError('BadValue', "$geoNear parameter 'key' cannot be the empty string");
    options.key = spec.key;
  }
  return options;
}

/** Without `key`: the one 2d index's field, else the one 2dsphere index's (mongod's extractGeoNearFieldFromIndexes). */
function geoField(indexes: readonly GeoIndexLike[], ns: string): string {
  for (const kind of ['2d', '2dsphere']) {
    const found = indexes.filter((ix) => !ix.hidden && Object.values(ix.key).includes(kind));
    if (found.length > 1) throw mongoError('IndexNotFound', `There is more than one ${kind} index on ${ns}; unsure which to use for $geoNear`);
    if (found.length === 1) return Object.keys(found[0]!.key).find((f) => found[0]!.key[f] === kind)!;
  }
  throw mongoError('IndexNotFound', '$geoNear requires a 2d or 2dsphere index, but none were found');
}

/** Writes a value at a dotted path of a (copied) document, creating sub-documents on the way. */
function writePath(doc: Document, path: string, value: unknown): void {
  const parts = path.split('.');
  let node = doc;
  for (const part of parts.slice(0, -1)) {
    if (!isPlainObject(node[part])) setField(node, part, {});
    node = node[part] as Document;
  }
  setField(node, parts[parts.length - 1]!, value);
}

export function planGeoNearStage(spec: unknown, indexes: readonly GeoIndexLike[], ns: string): GeoNearStagePlan {
  const options = parseOptions(spec);
  const key = options.key ?? geoField(indexes, ns);
  const nearCondition: Document = { [options.spherical ? '$nearSphere' : '$near']: options.near };
  if (options.min !== undefined) nearCondition.$minDistance = options.min;
  if (options.max !== undefined) nearCondition.$maxDistance = options.max;
  const filter = key in options.query ? { $and: [options.query, { [key]: nearCondition }] } : { ...options.query, [key]: nearCondition };
  return {
    filter,
    annotate(docs) {
      const plan = planNear(filter, indexes, ns)!;
      const out: Document[] = [];
      for (const doc of docs) {
        const m = plan.measure(doc);
        if (!m) continue;
        const copy = cloneValue(doc);
        writePath(copy, options.distanceField, m.distance * options.multiplier);
        if (options.includeLocs !== undefined) writePath(copy, options.includeLocs, cloneValue(m.loc));
        out.push(copy);
      }
      return out;
    },
  };
}
