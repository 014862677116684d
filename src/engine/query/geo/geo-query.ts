import { mongoError, type ErrorCodeName } from '../../errors.js';
import { formatValue } from '../format.js';
import { isNumeric, isPlainObject, toDouble } from '../values.js';
import { EARTH_RADIUS_METERS, planarDistance } from './geo-math.js';
import { intersects, regionContains, sphereDistanceTo, type Region } from './relations.js';
import { STRICT_WINDING_CRS, isValidLngLat, legacyPoint, parseGeoJson, parseStored, simpleParts, type Geometry, type Pt } from './shapes.js';

/**
 * Query-side parsing of the geo operators (mongod's geo/geoparser.cpp and
 * geo_near parsing), with mongod's codes: malformed shapes are BadValue (2);
 * the legacy $near siblings keep their historic location codes.
 */

const badValue = (message: string) => mongoError('BadValue', message);

function pointArg(value: unknown, what: string): Pt {
  const p = legacyPoint(value);
  if (!p) throw badValue(`${what}: Point must only contain numeric elements`);
  return p;
}

function geometryArg(value: unknown): Geometry {
  if (!isPlainObject(value)) throw badValue(`$geometry must be an object: ${formatValue(value)}`);
  const crs = isPlainObject(value.crs) && isPlainObject(value.crs.properties) ? value.crs.properties.name : undefined;
  if (crs === STRICT_WINDING_CRS) {
    // A "big polygon" (a polygon larger than a hemisphere, strict winding order) needs S2's loop maths.
    throw badValue('$geometry with the strictwinding crs ("big polygon") is not supported by this server');
  }
  const parsed = parseGeoJson(value);
  if (!parsed.ok) throw badValue(`${parsed.reason}: ${formatValue(value)}`);
  return parsed.geometry;
}

/** `$geoWithin` / `$within`: one shape specifier. */
export function parseWithin(operand: unknown): Region {
  if (!isPlainObject(operand)) throw badValue(`$geoWithin must be an object, found ${formatValue(operand)}`);
  const keys = Object.keys(operand);
  const key = keys[0];
  if (keys.length !== 1) throw badValue(`$geoWithin takes exactly one shape specifier, found ${keys.length}`);
  const arg = operand[key!];
  switch (key) {
    case '$box': {
      if (!Array.isArray(arg) || arg.length !== 2) throw badValue('$box requires exactly two corner points');
      const [a, b] = [pointArg(arg[0], '$box'), pointArg(arg[1], '$box')];
      return { kind: 'box', min: [Math.min(a[0], b[0]), Math.min(a[1], b[1])], max: [Math.max(a[0], b[0]), Math.max(a[1], b[1])] };
    }
    case '$center':
    case '$centerSphere': {
      if (!Array.isArray(arg) || arg.length !== 2) throw badValue(`${key} requires a center point and a radius`);
      const c = pointArg(arg[0], key);
      if (!isNumeric(arg[1]) || !(toDouble(arg[1]) >= 0)) throw badValue('radius must be a non-negative number');
      const r = toDouble(arg[1]);
      if (key === '$center') return { kind: 'center', c, r };
      if (!isValidLngLat(c)) throw badValue('Spherical MaxDistance query has invalid center: out of bounds');
      return { kind: 'cap', c, r };
    }
    case '$polygon': {
      if (!Array.isArray(arg) || arg.length < 3) throw badValue('Polygon must have at least 3 points');
      return { kind: 'flatPolygon', ring: arg.map((p) => pointArg(p, '$polygon')) };
    }
    case '$geometry': {
      const g = geometryArg(arg);
      // mongod's supportsContains(): a Polygon, a MultiPolygon, or a collection holding polygons.
      const type = (arg as Record<string, unknown>).type;
      const polygonal = type === 'Polygon' || type === 'MultiPolygon' || (type === 'GeometryCollection' && simpleParts(g).some((p) => p.kind === 'polygon'));
      if (!polygonal) throw badValue(`$within not supported with provided geometry: ${formatValue(operand)}`);
      return { kind: 'geometry', g };
    }
    default:
      throw badValue(`unknown geo specifier: ${key}: ${formatValue(arg)}`);
  }
}

/** `$geoIntersects: {$geometry}`. */
export function parseIntersects(operand: unknown): Geometry {
  if (!isPlainObject(operand) || !('$geometry' in operand)) {
    throw badValue(`$geoIntersects requires a $geometry argument, found ${formatValue(operand)}`);
  }
  return geometryArg(operand.$geometry);
}

/** The geometries a stored value holds: one geometry, or (an array of locations) several; malformed ones never match. */
export function storedGeometries(value: unknown): Array<{ g: Geometry; loc: unknown }> {
  const parsed = parseStored(value);
  if (parsed.ok) return [{ g: parsed.geometry, loc: value }];
  if (!Array.isArray(value)) return [];
  return value.flatMap((v) => {
    const p = parseStored(v);
    return p.ok ? [{ g: p.geometry, loc: v }] : [];
  });
}

export function withinMatcher(region: Region): (leaves: unknown[]) => boolean {
  return (leaves) => leaves.some((leaf) => storedGeometries(leaf).some(({ g }) => regionContains(region, g)));
}

export function intersectsMatcher(query: Geometry): (leaves: unknown[]) => boolean {
  return (leaves) => leaves.some((leaf) => storedGeometries(leaf).some(({ g }) => intersects(query, g)));
}

// ---- $near / $nearSphere ----

export interface NearSpec {
  op: '$near' | '$nearSphere' | '$geoNear';
  point: Pt;
  /** The point was GeoJSON (mongod's SPHERE crs): distances in meters. */
  geoJson: boolean;
  min: number;
  max: number;
}

export const NEAR_OPERATORS = new Set(['$near', '$nearSphere', '$geoNear']);
const NEAR_SIBLINGS = new Set(['$maxDistance', '$minDistance', '$uniqueDocs']);

function geoJsonPoint(value: unknown): Pt | undefined {
  if (!isPlainObject(value) || value.type !== 'Point') return undefined;
  const parsed = parseGeoJson(value);
  if (!parsed.ok) throw badValue(`invalid point in geo near query $geometry argument: ${formatValue(value)}  ${parsed.reason}`);
  return (parsed.geometry as { p: Pt }).p;
}

function distanceValue(value: unknown, name: string, codes: [ErrorCodeName, ErrorCodeName] | undefined): number {
  if (!isNumeric(value)) {
    if (codes) throw mongoError(codes[0], `${name} must be a number`);
    throw badValue(`${name} must be a number`);
  }
  const d = toDouble(value);
  if (!(d >= 0) || (!codes && !Number.isFinite(d))) {
    if (codes) throw mongoError(codes[1], `${name} must be non-negative`);
    throw badValue(`${name} must be non-negative`);
  }
  return d;
}

/** Parses a field condition holding $near/$nearSphere (legacy sibling form or `{$geometry, $maxDistance}`). */
export function parseNear(condition: Record<string, unknown>): NearSpec {
  const opName = Object.keys(condition).find((k) => NEAR_OPERATORS.has(k))!;
  const arg = condition[opName];
  const spec: NearSpec = { op: opName as NearSpec['op'], point: [0, 0], geoJson: false, min: 0, max: Infinity };
  if (isPlainObject(arg) && '$geometry' in arg) {
    // The GeoJSON form: its options live inside, and the operator stands alone.
    const extra = Object.keys(condition).find((k) => k !== opName);
    if (extra) {
      throw badValue(`geo near accepts just one argument when querying for a GeoJSON point. Extra field found: ${extra}: ${formatValue(condition[extra])}`);
    }
    for (const [key, value] of Object.entries(arg)) {
      if (key === '$geometry') {
        const p = geoJsonPoint(value);
        if (!p) throw badValue(`$near requires geojson point, given ${formatValue(value)}`);
        spec.point = p;
        spec.geoJson = true;
      } else if (key === '$minDistance') spec.min = distanceValue(value, key, undefined);
      else if (key === '$maxDistance') spec.max = distanceValue(value, key, undefined);
      else throw badValue(`invalid argument in geo near query: ${key}`);
    }
    return spec;
  }
  const geo = geoJsonPoint(arg);
  const legacy = geo ? undefined : legacyPoint(arg);
  if (!geo && !legacy) throw badValue(`invalid point provided to geo near query: ${formatValue(arg)}`);
  spec.point = geo ?? legacy!;
  spec.geoJson = geo !== undefined;
  // `[x, y, maxDistance]`: the legacy three-element form.
  if (Array.isArray(arg) && arg.length > 2 && isNumeric(arg[2])) spec.max = toDouble(arg[2]);
  for (const [key, value] of Object.entries(condition)) {
    if (key === opName) continue;
    if (key === '$minDistance') spec.min = distanceValue(value, key, ['Location16893', 'Location16894']);
    else if (key === '$maxDistance') spec.max = distanceValue(value, key, ['Location16895', 'Location16896']);
    else if (!NEAR_SIBLINGS.has(key)) throw mongoError('Location34413', `invalid argument in geo near query: ${key}`);
  }
  if (spec.op === '$nearSphere' && !spec.geoJson && !isValidLngLat(spec.point)) {
    throw badValue('Legacy point is out of bounds for spherical query');
  }
  return spec;
}

/** The index kind that can answer a near query and how it measures: flat (2d $near), radians or meters. */
export type NearUnits = 'flat' | 'radians' | 'meters';

export function nearUnits(spec: NearSpec): NearUnits {
  if (spec.geoJson) return 'meters';
  return spec.op === '$nearSphere' ? 'radians' : 'flat';
}

/** Distance from the near point to a stored geometry in the query's units (undefined: not comparable). */
export function distanceTo(spec: NearSpec, units: NearUnits, g: Geometry): number | undefined {
  if (units === 'flat') return g.kind === 'point' ? planarDistance(spec.point, g.p) : undefined;
  const radians = sphereDistanceTo(spec.point, g);
  if (!Number.isFinite(radians)) return undefined;
  return units === 'meters' ? radians * EARTH_RADIUS_METERS : radians;
}

export { NEAR_SIBLINGS };
