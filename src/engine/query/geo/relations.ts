import {
  planarDistance,
  pointInRing,
  pointOnSegment,
  ringEdges,
  segmentsCrossProperly,
  segmentsIntersect,
  sphereDistance,
  sphereProjector,
  sphereSegmentDistance,
} from './geo-math.js';
import { isValidLngLat, simpleParts, vertices, type Geometry, type Pt } from './shapes.js';

/**
 * How a stored geometry relates to a query region, as mongod's
 * GeometryContainer::contains / intersects decide it. Flat regions ($box,
 * $center, $polygon) only ever contain points; spherical ones ($centerSphere,
 * $geometry) contain and intersect any geometry.
 */

export type Region =
  | { kind: 'box'; min: Pt; max: Pt }
  | { kind: 'center'; c: Pt; r: number }
  | { kind: 'flatPolygon'; ring: Pt[] }
  | { kind: 'cap'; c: Pt; r: number }
  | { kind: 'geometry'; g: Geometry };

type Simple = Exclude<Geometry, { kind: 'multi' }>;

/** A sphere geometry can hold a legacy point only when it is a valid lng/lat. */
function onSphere(g: Geometry): boolean {
  return vertices(g).every(isValidLngLat);
}

export function regionContains(region: Region, g: Geometry): boolean {
  switch (region.kind) {
    case 'box':
      return g.kind === 'point' && g.p[0] >= region.min[0] && g.p[0] <= region.max[0] && g.p[1] >= region.min[1] && g.p[1] <= region.max[1];
    case 'center':
      return g.kind === 'point' && planarDistance(g.p, region.c) <= region.r;
    case 'flatPolygon':
      return g.kind === 'point' && pointInRing(g.p, region.ring);
    case 'cap':
      // A cap (radius below a quarter turn) is convex on the sphere: holding every vertex is holding the shape.
      return onSphere(g) && vertices(g).every((p) => sphereDistance(p, region.c) <= region.r);
    case 'geometry': {
      if (!onSphere(g)) return false;
      const polygons = simpleParts(region.g).filter((p): p is Extract<Simple, { kind: 'polygon' }> => p.kind === 'polygon');
      return simpleParts(g).every((part) => polygons.some((poly) => within(part, poly)));
    }
  }
}

export function intersects(query: Geometry, g: Geometry): boolean {
  if (!onSphere(g)) return false;
  return simpleParts(query).some((q) => simpleParts(g).some((part) => simpleIntersect(q, part)));
}

/** Projects two simple shapes into one plane where their geodesic edges are straight. */
function project(a: Simple, b: Simple): [Simple, Simple] {
  const to = sphereProjector([...vertices(a), ...vertices(b)]);
  const map = (s: Simple): Simple => {
    switch (s.kind) {
      case 'point':
        return { ...s, p: to(s.p) };
      case 'line':
        return { kind: 'line', pts: s.pts.map(to) };
      case 'polygon':
        return { kind: 'polygon', rings: s.rings.map((r) => r.map(to)) };
    }
  };
  return [map(a), map(b)];
}

function inPolygon(p: Pt, poly: Extract<Simple, { kind: 'polygon' }>): boolean {
  const [shell, ...holes] = poly.rings;
  return pointInRing(p, shell!) && !holes.some((h) => pointInRing(p, h) && !ringEdges(h).some(([a, b]) => pointOnSegment(p, a, b)));
}

function edgesOf(s: Simple): Array<[Pt, Pt]> {
  if (s.kind === 'line') return s.pts.slice(1).map((p, i) => [s.pts[i]!, p]);
  if (s.kind === 'polygon') return s.rings.flatMap(ringEdges);
  return [];
}

function simpleIntersect(qs: Simple, gs: Simple): boolean {
  const [a, b] = project(qs, gs);
  if (a.kind === 'point' && b.kind === 'point') return Math.abs(a.p[0] - b.p[0]) < 1e-12 && Math.abs(a.p[1] - b.p[1]) < 1e-12;
  if (a.kind === 'point' || b.kind === 'point') {
    const [pt, other] = (a.kind === 'point' ? [a, b] : [b, a]) as [Extract<Simple, { kind: 'point' }>, Simple];
    if (other.kind === 'polygon') return inPolygon(pt.p, other);
    return edgesOf(other).some(([s, e]) => pointOnSegment(pt.p, s, e));
  }
  const crossing = edgesOf(a).some(([p, q]) => edgesOf(b).some(([r, s]) => segmentsIntersect(p, q, r, s)));
  if (crossing) return true;
  if (b.kind === 'polygon' && vertices(a).some((p) => inPolygon(p, b))) return true;
  if (a.kind === 'polygon' && vertices(b).some((p) => inPolygon(p, a))) return true;
  return false;
}

/** The simple shape lies inside the polygon: every vertex inside, no edge crossing its rings. */
function within(gs: Simple, polygon: Extract<Simple, { kind: 'polygon' }>): boolean {
  const [g, poly] = project(gs, polygon) as [Simple, Extract<Simple, { kind: 'polygon' }>];
  if (!vertices(g).every((p) => inPolygon(p, poly))) return false;
  const ringEdgeList = poly.rings.flatMap(ringEdges);
  if (edgesOf(g).some(([p, q]) => ringEdgeList.some(([r, s]) => segmentsCrossProperly(p, q, r, s)))) return false;
  // A hole of the query polygon inside the shape leaves part of the shape outside.
  if (g.kind === 'polygon' && poly.rings.slice(1).some((hole) => pointInRing(hole[0]!, g.rings[0]!))) return false;
  return true;
}

/** Radians from a lng/lat point to the nearest part of a geometry (0 inside a polygon). */
export function sphereDistanceTo(p: Pt, g: Geometry): number {
  let best = Infinity;
  for (const part of simpleParts(g)) {
    if (part.kind === 'point') best = Math.min(best, sphereDistance(p, part.p));
    else {
      if (part.kind === 'polygon') {
        const [pt, poly] = project({ kind: 'point', p, flat: false }, part) as [Extract<Simple, { kind: 'point' }>, Extract<Simple, { kind: 'polygon' }>];
        if (inPolygon(pt.p, poly)) return 0;
      }
      for (const [a, b] of edgesOf(part)) best = Math.min(best, sphereSegmentDistance(p, a, b));
    }
  }
  return best;
}
