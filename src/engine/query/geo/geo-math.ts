import type { Pt } from './shapes.js';

/**
 * Small geometry: planar primitives for `2d` (flat) shapes, and the sphere
 * maths for GeoJSON (S2 in mongod). Spherical relations (containment,
 * intersection) are decided in a gnomonic projection centred on the shapes
 * involved: it maps great circles to straight lines, so the planar tests
 * below give geodesic-edge answers (mongod's) as long as every vertex lies
 * in the hemisphere around that centre. Shapes spanning more than that fall
 * back to straight edges in lng/lat, an approximation mongod does not make.
 */

/** mongod's kRadiusOfEarthInMeters (geo/geoconstants.h). */
export const EARTH_RADIUS_METERS = 6378100;

type Vec = readonly [number, number, number];

const RAD = Math.PI / 180;

export function toVec(p: Pt): Vec {
  const lng = p[0] * RAD;
  const lat = p[1] * RAD;
  return [Math.cos(lat) * Math.cos(lng), Math.cos(lat) * Math.sin(lng), Math.sin(lat)];
}

const dot = (a: Vec, b: Vec): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a: Vec, b: Vec): Vec => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const norm = (a: Vec): number => Math.sqrt(dot(a, a));

/** The angle between two unit vectors (atan2 form: accurate for tiny and near-antipodal angles). */
function angleBetween(a: Vec, b: Vec): number {
  return Math.atan2(norm(cross(a, b)), dot(a, b));
}

/** Great-circle distance in radians between two lng/lat points. */
export function sphereDistance(a: Pt, b: Pt): number {
  return angleBetween(toVec(a), toVec(b));
}

/** Great-circle distance in radians from p to the geodesic segment a-b. */
export function sphereSegmentDistance(p: Pt, a: Pt, b: Pt): number {
  const [pv, av, bv] = [toVec(p), toVec(a), toVec(b)];
  const n = cross(av, bv);
  const len = norm(n);
  if (len > 1e-15) {
    const unit: Vec = [n[0] / len, n[1] / len, n[2] / len];
    const off = dot(pv, unit);
    const q: Vec = [pv[0] - off * unit[0], pv[1] - off * unit[1], pv[2] - off * unit[2]];
    // q (projected onto the arc's great circle) lies between a and b: the closest point is interior.
    if (norm(q) > 1e-15 && dot(cross(av, q), n) >= 0 && dot(cross(q, bv), n) >= 0) return angleBetween(pv, scale(q));
  }
  return Math.min(angleBetween(pv, av), angleBetween(pv, bv));
}

function scale(v: Vec): Vec {
  const l = norm(v);
  return [v[0] / l, v[1] / l, v[2] / l];
}

/**
 * A planar view of a set of lng/lat points in which great-circle arcs are
 * straight (gnomonic projection about their mean direction); falls back to
 * plain lng/lat when the points do not fit in one open hemisphere.
 */
export function sphereProjector(points: readonly Pt[]): (p: Pt) => Pt {
  const vecs = points.map(toVec);
  const sum: Vec = vecs.reduce<Vec>((s, v) => [s[0] + v[0], s[1] + v[1], s[2] + v[2]], [0, 0, 0]);
  if (norm(sum) < 1e-12) return (p) => p;
  const c = scale(sum);
  if (vecs.some((v) => dot(v, c) < 1e-6)) return (p) => p;
  // An orthonormal basis (e1, e2) of the tangent plane at c.
  const helper: Vec = Math.abs(c[2]) < 0.9 ? [0, 0, 1] : [1, 0, 0];
  const e1 = scale(cross(helper, c));
  const e2 = cross(c, e1);
  return (p) => {
    const v = toVec(p);
    const d = dot(v, c);
    return [dot(v, e1) / d, dot(v, e2) / d];
  };
}

// ---- planar primitives ----

const EPS = 1e-12;

function orient(p: Pt, q: Pt, r: Pt): number {
  const v = (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]);
  return Math.abs(v) < EPS ? 0 : Math.sign(v);
}

export function pointOnSegment(p: Pt, a: Pt, b: Pt): boolean {
  return (
    orient(a, b, p) === 0 &&
    p[0] >= Math.min(a[0], b[0]) - EPS && p[0] <= Math.max(a[0], b[0]) + EPS &&
    p[1] >= Math.min(a[1], b[1]) - EPS && p[1] <= Math.max(a[1], b[1]) + EPS
  );
}

/** Segments a-b and c-d share a point (crossing or touching). */
export function segmentsIntersect(a: Pt, b: Pt, c: Pt, d: Pt): boolean {
  const [o1, o2, o3, o4] = [orient(a, b, c), orient(a, b, d), orient(c, d, a), orient(c, d, b)];
  if (o1 * o2 < 0 && o3 * o4 < 0) return true;
  return pointOnSegment(c, a, b) || pointOnSegment(d, a, b) || pointOnSegment(a, c, d) || pointOnSegment(b, c, d);
}

/** Segments a-b and c-d cross at a point interior to both. */
export function segmentsCrossProperly(a: Pt, b: Pt, c: Pt, d: Pt): boolean {
  return orient(a, b, c) * orient(a, b, d) < 0 && orient(c, d, a) * orient(c, d, b) < 0;
}

/** Even-odd test against an open ring (last vertex not repeated). Points on an edge count as inside. */
export function pointInRing(p: Pt, ring: readonly Pt[]): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [a, b] = [ring[i]!, ring[j]!];
    if (pointOnSegment(p, a, b)) return true;
    if (a[1] > p[1] !== b[1] > p[1] && p[0] < ((b[0] - a[0]) * (p[1] - a[1])) / (b[1] - a[1]) + a[0]) inside = !inside;
  }
  return inside;
}

/** Each edge of an open ring, closing edge included. */
export function ringEdges(ring: readonly Pt[]): Array<[Pt, Pt]> {
  return ring.map((p, i) => [p, ring[(i + 1) % ring.length]!]);
}

/** Euclidean distance, written as mongod's geo/shapes.cpp distance() computes it (hypot rounds differently). */
export function planarDistance(a: Pt, b: Pt): number {
  const dx = a[0] - b[0];
  const dy = a[1] - b[1];
  return Math.sqrt(dx * dx + dy * dy);
}
