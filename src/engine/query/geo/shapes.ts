import { formatValue } from '../format.js';
import { isNumeric, isPlainObject, toDouble } from '../values.js';

/**
 * Geometries as mongod reads them (geo/geoparser.cpp): GeoJSON objects
 * (Point, LineString, Polygon, Multi*, GeometryCollection; "sphere", lng/lat
 * degrees) and legacy coordinate pairs (`[x, y]` or `{x, y}`; "flat", any
 * numbers). Parsing returns a reason string instead of throwing, so the index
 * (16755) and query (BadValue) callers can word their own errors.
 */

export type Pt = readonly [number, number];

export type Geometry =
  | { kind: 'point'; p: Pt; flat: boolean }
  | { kind: 'line'; pts: Pt[] }
  | { kind: 'polygon'; rings: Pt[][] }
  | { kind: 'multi'; parts: Geometry[] };

/** The mongod CRS name of a "big polygon" (strict winding order); the engine does not index or query by it. */
export const STRICT_WINDING_CRS = 'urn:x-mongodb:crs:strictwinding:EPSG:4326';
const PLAIN_CRS = new Set(['EPSG:4326', 'urn:ogc:def:crs:OGC:1.3:CRS84']);

export type Parsed = { ok: true; geometry: Geometry } | { ok: false; reason: string };

const fail = (reason: string): Parsed => ({ ok: false, reason });

/** `[x, y]` or `{a: x, b: y}` whose first two values are numbers (further values are ignored, as mongod does). */
export function legacyPoint(value: unknown): Pt | undefined {
  const values = Array.isArray(value) ? value : isPlainObject(value) ? Object.values(value) : undefined;
  if (!values || values.length < 2 || !isNumeric(values[0]) || !isNumeric(values[1])) return undefined;
  return [toDouble(values[0]), toDouble(values[1])];
}

function lngLat(value: unknown, what: string): Pt | string {
  if (!Array.isArray(value)) return `${what} must be an array`;
  if (value.length < 2) return `${what} must have at least 2 coordinates`;
  if (!value.every(isNumeric)) return `${what} must only contain numeric elements`;
  const [lng, lat] = [toDouble(value[0]), toDouble(value[1])];
  if (!(Math.abs(lng) <= 180 && Math.abs(lat) <= 90)) return `longitude/latitude is out of bounds, lng: ${lng} lat: ${lat}`;
  return [lng, lat];
}

function points(value: unknown, what: string): Pt[] | string {
  if (!Array.isArray(value)) return `${what} coordinates must be an array`;
  const out: Pt[] = [];
  for (const v of value) {
    const p = lngLat(v, 'Point');
    if (typeof p === 'string') return p;
    out.push(p);
  }
  return out;
}

const samePt = (a: Pt, b: Pt): boolean => a[0] === b[0] && a[1] === b[1];

/** A polygon ring as mongod checks it: closed, >= 3 distinct vertices, no crossing edges. Adjacent duplicates are dropped. */
function ring(value: unknown): Pt[] | string {
  const pts = points(value, 'Loop');
  if (typeof pts === 'string') return pts;
  if (pts.length < 4) return 'Loop must have at least 3 different vertices';
  if (!samePt(pts[0]!, pts[pts.length - 1]!)) return 'Loop is not closed';
  const open = pts.slice(0, -1).filter((p, i, all) => i === 0 || !samePt(p, all[i - 1]!));
  if (open.length > 1 && samePt(open[0]!, open[open.length - 1]!)) open.pop();
  if (open.length < 3) return 'Loop must have at least 3 different vertices';
  if (new Set(open.map((p) => `${p[0]},${p[1]}`)).size !== open.length) return 'Loop is not valid: Duplicate vertices';
  for (let i = 0; i < open.length; i++) {
    for (let j = i + 2; j < open.length; j++) {
      if (i === 0 && j === open.length - 1) continue;
      if (segmentsCross(open[i]!, open[(i + 1) % open.length]!, open[j]!, open[(j + 1) % open.length]!)) {
        return `Loop is not valid: Edges ${i} and ${j} cross`;
      }
    }
  }
  return open;
}

/** Proper or touching intersection of two segments (planar; the rings checked are small). */
function segmentsCross(a: Pt, b: Pt, c: Pt, d: Pt): boolean {
  const o = (p: Pt, q: Pt, r: Pt) => Math.sign((q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]));
  return o(a, b, c) * o(a, b, d) < 0 && o(c, d, a) * o(c, d, b) < 0;
}

function polygon(value: unknown): Geometry | string {
  if (!Array.isArray(value) || value.length === 0) return 'Polygon coordinates must be an array of rings';
  const rings: Pt[][] = [];
  for (const r of value) {
    const parsed = ring(r);
    if (typeof parsed === 'string') return parsed;
    rings.push(parsed);
  }
  return { kind: 'polygon', rings };
}

function crsOf(obj: Record<string, unknown>): 'plain' | 'strict' | string {
  if (obj.crs === undefined) return 'plain';
  const crs = obj.crs;
  const name = isPlainObject(crs) && isPlainObject(crs.properties) ? crs.properties.name : undefined;
  if (!isPlainObject(crs) || crs.type !== 'name' || typeof name !== 'string') return 'GeoJSON CRS must be an object of type name';
  if (name === STRICT_WINDING_CRS) return 'strict';
  return PLAIN_CRS.has(name) ? 'plain' : `Unknown CRS name: ${name}`;
}

/** A GeoJSON object (`{type, coordinates}` or a GeometryCollection). */
export function parseGeoJson(obj: Record<string, unknown>): Parsed {
  const crs = crsOf(obj);
  if (crs === 'strict') return fail("can't index geometry with strict winding order");
  if (crs !== 'plain') return fail(crs);
  const c = obj.coordinates;
  let out: Geometry | string;
  switch (obj.type) {
    case 'Point': {
      const p = lngLat(c, 'Point');
      out = typeof p === 'string' ? p : { kind: 'point', p, flat: false };
      break;
    }
    case 'LineString': {
      const pts = points(c, 'LineString');
      out = typeof pts === 'string' ? pts : pts.length < 2 ? `Invalid number of points in linestring: ${pts.length}` : { kind: 'line', pts };
      break;
    }
    case 'Polygon':
      out = polygon(c);
      break;
    case 'MultiPoint':
    case 'MultiLineString':
    case 'MultiPolygon': {
      const single = obj.type.slice('Multi'.length);
      if (!Array.isArray(c) || c.length === 0) {
        out = `${obj.type} coordinates must be a non-empty array`;
        break;
      }
      const parts: Geometry[] = [];
      out = { kind: 'multi', parts };
      for (const part of c) {
        const parsed = parseGeoJson({ type: single, coordinates: part });
        if (!parsed.ok) {
          out = parsed.reason;
          break;
        }
        parts.push(parsed.geometry);
      }
      break;
    }
    case 'GeometryCollection': {
      const list = obj.geometries;
      if (!Array.isArray(list)) {
        out = 'GeometryCollection geometries must be an array';
        break;
      }
      const parts: Geometry[] = [];
      out = { kind: 'multi', parts };
      for (const g of list) {
        const parsed = isPlainObject(g) ? parseGeoJson(g) : fail(`Element ${formatValue(g)} of "geometries" is not an object`);
        if (!parsed.ok) {
          out = parsed.reason;
          break;
        }
        parts.push(parsed.geometry);
      }
      break;
    }
    default:
      out = `unknown GeoJSON type: ${formatValue(obj)}`;
  }
  return typeof out === 'string' ? fail(out) : { ok: true, geometry: out };
}

/** A stored value: GeoJSON, or a legacy pair (mongod's GeometryContainer::parseFromStorage). */
export function parseStored(value: unknown): Parsed {
  if (isPlainObject(value) && typeof value.type === 'string') return parseGeoJson(value);
  if (!Array.isArray(value) && !isPlainObject(value)) return fail(`geo element must be an array or object: ${formatValue(value)}`);
  const p = legacyPoint(value);
  if (p) return { ok: true, geometry: { kind: 'point', p, flat: true } };
  if (isPlainObject(value) && 'type' in value) return fail(`unknown GeoJSON type: ${formatValue(value)}`);
  return fail(`Point must only contain numeric elements`);
}

/** Every vertex of a geometry (points, line and ring vertices). */
export function vertices(g: Geometry): Pt[] {
  switch (g.kind) {
    case 'point':
      return [g.p];
    case 'line':
      return g.pts;
    case 'polygon':
      return g.rings.flat();
    case 'multi':
      return g.parts.flatMap(vertices);
  }
}

/** The simple parts of a geometry (multi and collections flattened). */
export function simpleParts(g: Geometry): Exclude<Geometry, { kind: 'multi' }>[] {
  return g.kind === 'multi' ? g.parts.flatMap(simpleParts) : [g];
}

export function isValidLngLat(p: Pt): boolean {
  return Math.abs(p[0]) <= 180 && Math.abs(p[1]) <= 90;
}
