import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MongoClient, MongoServerError, type Document } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, type RunningEngine } from '../../../src/engine/index.js';
import { describeCompat, type CompatCase, type LooseCollection } from './compat-cases.js';

/**
 * Geospatial indexes and queries as a standalone mongod 7.0 answers them:
 * `2d` and `2dsphere` specs, geometry validation on insert (16755), the
 * $geoWithin shapes, $geoIntersects, $near/$nearSphere (index required: 291;
 * meters for GeoJSON, radians for legacy $nearSphere, planar for 2d) and the
 * $geoNear stage. Shapes are small and near the equator, where the engine's
 * geometry and S2 agree; distances are rounded (last-bit float differences).
 */

const pt = (lng: number, lat: number) => ({ type: 'Point', coordinates: [lng, lat] });
const square = (x0: number, y0: number, x1: number, y1: number) => [[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]];

/** GeoJSON points along the equator (and one at [1, 1]); one document without a location. */
const places = [
  { _id: 1, name: 'a', loc: pt(0, 0) },
  { _id: 2, name: 'b', loc: pt(0.01, 0) },
  { _id: 3, name: 'c', loc: pt(0.05, 0) },
  { _id: 4, name: 'd', loc: pt(1, 1) },
  { _id: 5, name: 'e' },
];
const sphereIndex = [{ key: { loc: '2dsphere' } }];

/** Legacy coordinate pairs for a 2d index. */
const grid = [
  { _id: 1, pos: [0, 0] },
  { _id: 2, pos: [3, 4] },
  { _id: 3, pos: [1, 1] },
  { _id: 4, pos: [-2, 0] },
];
const flatIndex = [{ key: { pos: '2d' } }];

/** Mixed geometries around the unit square [0, 1]². */
const shapes = [
  { _id: 1, g: pt(0.5, 0.5) },
  { _id: 2, g: { type: 'LineString', coordinates: [[-1, 0.5], [2, 0.5]] } },
  { _id: 3, g: { type: 'Polygon', coordinates: [square(2, 2, 3, 3)] } },
  { _id: 4, g: { type: 'Polygon', coordinates: [square(0.8, 0.8, 1.5, 1.5)] } },
  { _id: 5, g: { type: 'LineString', coordinates: [[5, 5], [6, 6]] } },
  { _id: 6, g: [0.2, 0.3] },
  { _id: 7, g: { type: 'MultiPoint', coordinates: [[10, 10], [0.1, 0.1]] } },
  { _id: 8, g: { type: 'LineString', coordinates: [[0.2, 0.2], [0.4, 0.4]] } },
];
const unitSquare = { type: 'Polygon', coordinates: [square(0, 0, 1, 1)] };

const ids = (docs: Document[]) => docs.map((d) => d._id);
const near = (lng: number, lat: number, extra: Document = {}) => ({ $near: { $geometry: pt(lng, lat), ...extra } });
const geoIndexOf = async (c: { listIndexes(): { toArray(): Promise<Document[]> } }) =>
  (await c.listIndexes().toArray()).filter((ix) => ix.name !== '_id_');

const indexCases: CompatCase[] = [
  {
    name: '2dsphere: listed with 2dsphereIndexVersion 3',
    indexes: sphereIndex,
    run: geoIndexOf,
    expected: [{ v: 2, key: { loc: '2dsphere' }, name: 'loc_2dsphere', '2dsphereIndexVersion': 3 }],
  },
  {
    name: '2d: bits, min and max are kept',
    indexes: [{ key: { pos: '2d' }, options: { bits: 20, min: -500, max: 500 } }],
    run: geoIndexOf,
    expected: [{ v: 2, key: { pos: '2d' }, name: 'pos_2d', bits: 20, min: -500, max: 500 }],
  },
  {
    name: '2dsphere: compound with ascending fields before and after',
    indexes: [{ key: { category: 1, loc: '2dsphere', rank: -1 } }],
    run: async (c) => (await geoIndexOf(c)).map((ix) => ix.name),
    expected: ['category_1_loc_2dsphere_rank_-1'],
  },
  {
    name: '2d: compound with a trailing field',
    indexes: [{ key: { pos: '2d', kind: 1 } }],
    run: async (c) => (await geoIndexOf(c)).map((ix) => ix.name),
    expected: ['pos_2d_kind_1'],
  },
  {
    name: '2dsphere compound: a legacy pair beside an array field is no parallel-array key',
    indexes: [{ key: { loc: '2dsphere', tags: 1 } }],
    run: async (c) => {
      await c.insertOne({ _id: 1, loc: [1, 2], tags: ['x', 'y'] });
      return ids(await c.find({ tags: 'y', loc: { $geoWithin: { $centerSphere: [[1, 2], 0.01] } } }).toArray());
    },
    expected: [1],
  },
  { name: '2d must be the first field (16801)', run: (c) => c.createIndex({ kind: 1, pos: '2d' }), code: 16801 },
  { name: '2d: bits above 32 (InvalidOptions 72)', run: (c) => c.createIndex({ pos: '2d' }, { bits: 33 }), code: 72 },
  { name: '2d: min not below max (72)', run: (c) => c.createIndex({ pos: '2d' }, { min: 10, max: 10 }), code: 72 },
  { name: '2d and 2dsphere in one index (67)', run: (c) => c.createIndex({ pos: '2d', loc: '2dsphere' }), code: 67 },
  {
    name: '2dsphere insert: longitude out of bounds (16755)',
    indexes: sphereIndex,
    run: (c) => c.insertOne({ loc: pt(200, 0) }),
    code: 16755,
  },
  {
    name: '2dsphere insert: an unclosed polygon (16755)',
    indexes: sphereIndex,
    run: (c) => c.insertOne({ loc: { type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 1]]] } }),
    code: 16755,
  },
  {
    name: '2dsphere insert: a string (16755)',
    indexes: sphereIndex,
    run: (c) => c.insertOne({ loc: 'nowhere' }),
    code: 16755,
  },
  {
    name: '2dsphere insert: a self-crossing polygon (16755)',
    indexes: sphereIndex,
    run: (c) => c.insertOne({ loc: { type: 'Polygon', coordinates: [[[0, 0], [1, 1], [1, 0], [0, 1], [0, 0]]] } }),
    code: 16755,
  },
  {
    name: '2dsphere insert: a refused geometry changes nothing',
    indexes: sphereIndex,
    run: async (c) => {
      await c.insertOne({ _id: 1, loc: pt(200, 0) }).catch(() => undefined);
      return c.countDocuments();
    },
    expected: 0,
  },
  {
    name: '2dsphere insert: missing, null and legacy pairs are accepted',
    indexes: sphereIndex,
    run: async (c) => {
      await c.insertMany([{ _id: 1 }, { _id: 2, loc: null }, { _id: 3, loc: [10, 20] }, { _id: 4, loc: { type: 'GeometryCollection', geometries: [pt(1, 2)] } }]);
      return c.countDocuments();
    },
    expected: 4,
  },
  {
    name: '2dsphere insert: Multi* geometries are accepted and queried',
    indexes: sphereIndex,
    run: async (c) => {
      await c.insertMany([
        { _id: 1, loc: { type: 'MultiPoint', coordinates: [[0, 0], [5, 5]] } },
        { _id: 2, loc: { type: 'MultiLineString', coordinates: [[[10, 10], [11, 11]], [[20, 20], [21, 20]]] } },
        { _id: 3, loc: { type: 'MultiPolygon', coordinates: [[square(30, 30, 31, 31)], [square(40, 40, 41, 41)]] } },
      ]);
      return ids(await c.find({ loc: { $geoIntersects: { $geometry: { type: 'Polygon', coordinates: [square(20.5, 19.5, 40.5, 40.5)] } } } }).toArray());
    },
    expected: [2, 3],
  },
  {
    name: '2dsphere update: setting a malformed geometry is refused (16755) and changes nothing',
    indexes: sphereIndex,
    seed: [{ _id: 1, loc: pt(1, 2) }],
    run: async (c) => {
      const err = await c.updateOne({ _id: 1 }, { $set: { 'loc.coordinates': [1, 200] } }).catch((e: { code?: number }) => e.code);
      return [err, (await c.findOne({ _id: 1 }))?.loc];
    },
    expected: [16755, pt(1, 2)],
  },
  {
    name: '2dsphere build over a malformed stored geometry (16755)',
    seed: [{ _id: 1, loc: { type: 'Point', coordinates: ['x', 0] } }],
    run: (c) => c.createIndex({ loc: '2dsphere' }),
    code: 16755,
  },
  {
    name: '2d insert: a point out of the [min, max] range (13027)',
    indexes: flatIndex,
    run: (c) => c.insertOne({ pos: [200, 0] }),
    code: 13027,
  },
  { name: '2d insert: a one-number location (13068)', indexes: flatIndex, run: (c) => c.insertOne({ pos: [1] }), code: 13068 },
  { name: "2d insert: a location that is no pair of numbers (13026)", indexes: flatIndex, run: (c) => c.insertOne({ pos: [1, 'x'] }), code: 13026 },
  {
    name: '2d insert: a GeoJSON object is no location array (16804)',
    indexes: flatIndex,
    run: (c) => c.insertOne({ pos: pt(1, 2) }),
    code: 16804,
  },
  {
    name: '2d insert: strings and empty locations are not indexed, so accepted',
    indexes: flatIndex,
    run: async (c) => {
      await c.insertMany([{ _id: 1, pos: 'here' }, { _id: 2, pos: [] }, { _id: 3, pos: [[1, 2], [3, 4]] }]);
      return ids(await c.find({ pos: { $near: [3, 3.9] } }).toArray());
    },
    expected: [3],
  },
];

const withinCases: CompatCase[] = [
  { name: '$geoWithin $box (no index needed)', seed: grid, run: async (c) => ids(await c.find({ pos: { $geoWithin: { $box: [[0, 0], [2, 2]] } } }).toArray()), expected: [1, 3] },
  { name: '$geoWithin $center', seed: grid, run: async (c) => ids(await c.find({ pos: { $geoWithin: { $center: [[0, 0], 1.5] } } }).toArray()), expected: [1, 3] },
  {
    name: '$geoWithin $polygon',
    seed: grid,
    run: async (c) => ids(await c.find({ pos: { $geoWithin: { $polygon: [[-1, -1], [2, -1], [2, 2], [-1, 2]] } } }).toArray()),
    expected: [1, 3],
  },
  { name: '$within (the old name) with $box', seed: grid, run: async (c) => ids(await c.find({ pos: { $within: { $box: [[-3, -1], [0, 1]] } } }).toArray()), expected: [1, 4] },
  {
    name: '$geoWithin $box holds GeoJSON points too',
    seed: places,
    run: async (c) => ids(await c.find({ loc: { $geoWithin: { $box: [[-0.001, -0.001], [0.02, 0.02]] } } }).toArray()),
    expected: [1, 2],
  },
  {
    name: '$geoWithin $centerSphere (radians)',
    seed: places,
    run: async (c) => ids(await c.find({ loc: { $geoWithin: { $centerSphere: [[0, 0], 0.0002] } } }).toArray()),
    expected: [1, 2],
  },
  {
    name: '$geoWithin $geometry Polygon',
    seed: places,
    run: async (c) => ids(await c.find({ loc: { $geoWithin: { $geometry: { type: 'Polygon', coordinates: [square(-0.02, -0.02, 0.02, 0.02)] } } } }).toArray()),
    expected: [1, 2],
  },
  {
    name: '$geoWithin $geometry Polygon with a hole',
    seed: places,
    run: async (c) =>
      ids(
        await c
          .find({ loc: { $geoWithin: { $geometry: { type: 'Polygon', coordinates: [square(-0.02, -0.02, 0.02, 0.02), square(-0.005, -0.005, 0.005, 0.005)] } } } })
          .toArray(),
      ),
    expected: [2],
  },
  {
    name: '$geoWithin $geometry MultiPolygon',
    seed: places,
    indexes: sphereIndex,
    run: async (c) =>
      ids(
        await c
          .find({ loc: { $geoWithin: { $geometry: { type: 'MultiPolygon', coordinates: [[square(-0.001, -0.001, 0.001, 0.001)], [square(0.9, 0.9, 1.1, 1.1)]] } } } })
          .toArray(),
      ),
    expected: [1, 4],
  },
  {
    name: '$geoWithin $geometry: points, legacy pairs and lines wholly inside',
    seed: shapes,
    run: async (c) => ids(await c.find({ g: { $geoWithin: { $geometry: unitSquare } } }).toArray()),
    expected: [1, 6, 8],
  },
  { name: '$geoWithin $geometry Point is refused (2)', seed: places, run: (c) => c.find({ loc: { $geoWithin: { $geometry: pt(0, 0) } } }).toArray(), code: 2 },
  { name: '$geoWithin with an unknown shape (2)', seed: places, run: (c) => c.find({ loc: { $geoWithin: { $circle: [[0, 0], 1] } } }).toArray(), code: 2 },
  { name: '$geoWithin $polygon with two points (2)', seed: grid, run: (c) => c.find({ pos: { $geoWithin: { $polygon: [[0, 0], [1, 1]] } } }).toArray(), code: 2 },
  {
    name: '$geoWithin $geometry with an unclosed ring (2)',
    seed: places,
    run: (c) => c.find({ loc: { $geoWithin: { $geometry: { type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 1]]] } } } }).toArray(),
    code: 2,
  },
];

const intersectCases: CompatCase[] = [
  {
    name: '$geoIntersects Polygon: points, crossing and overlapping shapes, legacy pairs, multi-geometries',
    seed: shapes,
    run: async (c) => ids(await c.find({ g: { $geoIntersects: { $geometry: unitSquare } } }).toArray()),
    expected: [1, 2, 4, 6, 7, 8],
  },
  {
    name: '$geoIntersects with a 2dsphere index gives the same answer',
    seed: shapes,
    indexes: [{ key: { g: '2dsphere' } }],
    run: async (c) => ids(await c.find({ g: { $geoIntersects: { $geometry: unitSquare } } }).sort({ _id: 1 }).toArray()),
    expected: [1, 2, 4, 6, 7, 8],
  },
  {
    name: '$geoIntersects LineString',
    seed: shapes,
    run: async (c) => ids(await c.find({ g: { $geoIntersects: { $geometry: { type: 'LineString', coordinates: [[2.5, 1.5], [2.5, 3.5]] } } } }).toArray()),
    expected: [3],
  },
  { name: '$geoIntersects Point inside a polygon', seed: shapes, run: async (c) => ids(await c.find({ g: { $geoIntersects: { $geometry: pt(2.5, 2.5) } } }).toArray()), expected: [3] },
  { name: '$geoIntersects with a legacy $box is refused (2)', seed: shapes, run: (c) => c.find({ g: { $geoIntersects: { $box: [[0, 0], [1, 1]] } } }).toArray(), code: 2 },
];

const nearCases: CompatCase[] = [
  { name: '$near GeoJSON: nearest first, missing locations left out', seed: places, indexes: sphereIndex, run: async (c) => ids(await c.find({ loc: near(0.04, 0) }).toArray()), expected: [3, 2, 1, 4] },
  { name: '$near $maxDistance in meters', seed: places, indexes: sphereIndex, run: async (c) => ids(await c.find({ loc: near(0, 0, { $maxDistance: 2000 }) }).toArray()), expected: [1, 2] },
  { name: '$near $minDistance in meters', seed: places, indexes: sphereIndex, run: async (c) => ids(await c.find({ loc: near(0, 0, { $minDistance: 2000 }) }).toArray()), expected: [3, 4] },
  {
    name: '$near with another condition, skip and limit',
    seed: places,
    indexes: sphereIndex,
    run: async (c) => ids(await c.find({ loc: near(0, 0), name: { $ne: 'b' } }).skip(1).limit(1).toArray()),
    expected: [3],
  },
  {
    name: '$nearSphere GeoJSON behaves as $near (meters)',
    seed: places,
    indexes: sphereIndex,
    run: async (c) => ids(await c.find({ loc: { $nearSphere: { $geometry: pt(0, 0), $maxDistance: 6000 } } }).toArray()),
    expected: [1, 2, 3],
  },
  {
    name: '$nearSphere legacy point on a 2dsphere index: $maxDistance in radians',
    seed: places,
    indexes: sphereIndex,
    run: async (c) => ids(await c.find({ loc: { $nearSphere: [0, 0], $maxDistance: 0.0005 } }).toArray()),
    expected: [1, 2],
  },
  { name: '$near legacy on a 2d index: planar order', seed: grid, indexes: flatIndex, run: async (c) => ids(await c.find({ pos: { $near: [0, 0] } }).toArray()), expected: [1, 3, 4, 2] },
  { name: '$near legacy $maxDistance (planar units)', seed: grid, indexes: flatIndex, run: async (c) => ids(await c.find({ pos: { $near: [0, 0], $maxDistance: 2.5 } }).toArray()), expected: [1, 3, 4] },
  {
    name: '$nearSphere legacy on a 2d index (radians)',
    seed: grid,
    indexes: flatIndex,
    run: async (c) => ids(await c.find({ pos: { $nearSphere: [0, 0], $maxDistance: 0.03 } }).toArray()),
    expected: [1, 3],
  },
  {
    name: 'findOneAndDelete with $near removes the nearest',
    seed: places,
    indexes: sphereIndex,
    run: async (c) => [(await c.findOneAndDelete({ loc: near(0.04, 0) }))?._id, await c.countDocuments()],
    expected: [3, 4],
  },
  {
    name: '$near inside a top-level $and is served',
    seed: places,
    indexes: sphereIndex,
    run: async (c) => ids(await c.find({ $and: [{ loc: near(0, 0, { $maxDistance: 6000 }) }, { name: { $ne: 'a' } }] }).toArray()),
    expected: [2, 3],
  },
  { name: '$near inside $or (2)', seed: places, indexes: sphereIndex, run: (c) => c.find({ $or: [{ loc: near(0, 0) }, { name: 'e' }] }).toArray(), code: 2 },
  {
    name: 'two $near conditions (2)',
    seed: places,
    indexes: sphereIndex,
    run: (c) => c.find({ $and: [{ loc: near(0, 0) }, { loc: near(1, 1) }] }).toArray(),
    code: 2,
  },
  { name: '$near without a geo index (291)', seed: places, run: (c) => c.find({ loc: near(0, 0) }).toArray(), code: 291 },
  { name: '$near legacy point with only a 2dsphere index (291)', seed: places, indexes: sphereIndex, run: (c) => c.find({ loc: { $near: [0, 0] } }).toArray(), code: 291 },
  { name: '$near GeoJSON with only a 2d index (291)', seed: grid, indexes: flatIndex, run: (c) => c.find({ pos: near(0, 0) }).toArray(), code: 291 },
  { name: '$near in an aggregate $match (5626500)', seed: places, indexes: sphereIndex, run: (c) => c.aggregate([{ $match: { loc: near(0, 0) } }]).toArray(), code: 5626500 },
  { name: 'countDocuments with $near (5626500)', seed: places, indexes: sphereIndex, run: (c) => c.countDocuments({ loc: near(0, 0) }), code: 5626500 },
  { name: '$near GeoJSON negative $maxDistance (2)', seed: places, indexes: sphereIndex, run: (c) => c.find({ loc: near(0, 0, { $maxDistance: -1 }) }).toArray(), code: 2 },
  { name: '$near legacy negative $maxDistance (16896)', seed: grid, indexes: flatIndex, run: (c) => c.find({ pos: { $near: [0, 0], $maxDistance: -1 } }).toArray(), code: 16896 },
  { name: '$near legacy non-numeric $minDistance (16893)', seed: grid, indexes: flatIndex, run: (c) => c.find({ pos: { $near: [0, 0], $minDistance: 'x' } }).toArray(), code: 16893 },
  { name: '$near with an unknown sibling (34413)', seed: grid, indexes: flatIndex, run: (c) => c.find({ pos: { $near: [0, 0], $within: 1 } }).toArray(), code: 34413 },
];

const meters = (docs: Document[]) => docs.map((d) => [d._id, Math.round(d.dist)]);

const geoNearCases: CompatCase[] = [
  {
    name: '$geoNear GeoJSON spherical: meters, nearest first',
    seed: places,
    indexes: sphereIndex,
    run: async (c) => meters(await c.aggregate([{ $geoNear: { near: pt(0, 0), distanceField: 'dist', spherical: true } }]).toArray()),
    expected: [[1, 0], [2, 1113], [3, 5566], [4, 157425]],
  },
  {
    name: '$geoNear maxDistance, minDistance and query',
    seed: places,
    indexes: sphereIndex,
    run: async (c) =>
      meters(await c.aggregate([{ $geoNear: { near: pt(0, 0), distanceField: 'dist', spherical: true, minDistance: 500, maxDistance: 10000, query: { name: { $ne: 'c' } } } }]).toArray()),
    expected: [[2, 1113]],
  },
  {
    name: '$geoNear includeLocs and a nested distanceField, then later stages',
    seed: places,
    indexes: sphereIndex,
    run: async (c) =>
      c
        .aggregate([
          { $geoNear: { near: pt(0.05, 0), distanceField: 'calc.dist', includeLocs: 'calc.where', maxDistance: 100 } },
          { $project: { _id: 1, where: '$calc.where', dist: '$calc.dist' } },
        ])
        .toArray(),
    expected: [{ _id: 3, where: pt(0.05, 0), dist: 0 }],
  },
  {
    name: '$geoNear distanceMultiplier (meters to km)',
    seed: places,
    indexes: sphereIndex,
    run: async (c) =>
      (await c.aggregate([{ $geoNear: { near: pt(0, 0), distanceField: 'dist', distanceMultiplier: 0.001 } }, { $limit: 3 }]).toArray()).map((d) => Math.round(d.dist * 1000) / 1000),
    expected: [0, 1.113, 5.566],
  },
  {
    name: '$geoNear legacy near, not spherical, on a 2d index: planar distances',
    seed: grid,
    indexes: flatIndex,
    run: async (c) => (await c.aggregate([{ $geoNear: { near: [0, 0], distanceField: 'dist' } }]).toArray()).map((d) => [d._id, Math.round(d.dist * 1000) / 1000]),
    expected: [[1, 0], [3, 1.414], [4, 2], [2, 5]],
  },
  {
    name: '$geoNear legacy near, spherical, on a 2d index: radians',
    seed: grid,
    indexes: flatIndex,
    run: async (c) => (await c.aggregate([{ $geoNear: { near: [0, 0], distanceField: 'dist', spherical: true } }]).toArray()).map((d) => [d._id, Math.round(d.dist * 10000) / 10000]),
    expected: [[1, 0], [3, 0.0247], [4, 0.0349], [2, 0.0872]],
  },
  {
    name: '$geoNear key picks one of two 2dsphere indexes',
    seed: [
      { _id: 1, home: pt(0, 0), work: pt(1, 0) },
      { _id: 2, home: pt(1, 0), work: pt(0, 0) },
    ],
    indexes: [{ key: { home: '2dsphere' } }, { key: { work: '2dsphere' } }],
    run: async (c) => ids(await c.aggregate([{ $geoNear: { near: pt(0, 0), distanceField: 'd', key: 'work' } }]).toArray()),
    expected: [2, 1],
  },
  {
    name: '$geoNear without key and two 2dsphere indexes (IndexNotFound 27)',
    seed: [{ _id: 1, home: pt(0, 0), work: pt(1, 0) }],
    indexes: [{ key: { home: '2dsphere' } }, { key: { work: '2dsphere' } }],
    run: (c) => c.aggregate([{ $geoNear: { near: pt(0, 0), distanceField: 'd' } }]).toArray(),
    code: 27,
  },
  { name: '$geoNear without any geo index (27)', seed: places, run: (c) => c.aggregate([{ $geoNear: { near: pt(0, 0), distanceField: 'd' } }]).toArray(), code: 27 },
  {
    name: '$geoNear not first (40602)',
    seed: places,
    indexes: sphereIndex,
    run: (c) => c.aggregate([{ $match: {} }, { $geoNear: { near: pt(0, 0), distanceField: 'd' } }]).toArray(),
    code: 40602,
  },
  { name: '$geoNear without near (5860400)', seed: places, indexes: sphereIndex, run: (c) => c.aggregate([{ $geoNear: { distanceField: 'd' } }]).toArray(), code: 5860400 },
  { name: '$geoNear without distanceField (16606)', seed: places, indexes: sphereIndex, run: (c) => c.aggregate([{ $geoNear: { near: pt(0, 0) } }]).toArray(), code: 16606 },
  { name: '$geoNear with the removed limit option (50858)', seed: places, indexes: sphereIndex, run: (c) => c.aggregate([{ $geoNear: { near: pt(0, 0), distanceField: 'd', limit: 1 } }]).toArray(), code: 50858 },
  { name: '$geoNear negative maxDistance (2)', seed: places, indexes: sphereIndex, run: (c) => c.aggregate([{ $geoNear: { near: pt(0, 0), distanceField: 'd', maxDistance: -5 } }]).toArray(), code: 2 },
  { name: '$geoNear includeLocs not a string (16607)', seed: places, indexes: sphereIndex, run: (c) => c.aggregate([{ $geoNear: { near: pt(0, 0), distanceField: 'd', includeLocs: 1 } }]).toArray(), code: 16607 },
  {
    name: '$geoNear legacy near, not spherical, with only a 2dsphere index (291)',
    seed: places,
    indexes: sphereIndex,
    run: (c) => c.aggregate([{ $geoNear: { near: [0, 0], distanceField: 'd' } }]).toArray(),
    code: 291,
  },
];

describeCompat('geospatial indexes', indexCases);
describeCompat('geospatial $geoWithin', withinCases);
describeCompat('geospatial $geoIntersects', intersectCases);
describeCompat('geospatial $near', nearCases);
describeCompat('geospatial $geoNear', geoNearCases);

describe('geospatial: what the engine refuses where mongod would need S2 (engine only)', () => {
  let engine: RunningEngine;
  let client: MongoClient;
  beforeAll(async () => {
    engine = await startEngine({ inMemory: true, port: 0 });
    client = await new MongoClient(engine.uri).connect();
  });
  afterAll(async () => {
    await client?.close();
    await engine?.close();
  });

  it('a "big polygon" (strictwinding crs) $geometry is a clear BadValue', async () => {
    const coll = client.db('geo_refusals').collection('c');
    await coll.insertOne({ loc: pt(0, 0) });
    const bigPolygon = {
      type: 'Polygon',
      coordinates: [square(-10, -10, 10, 10)],
      crs: { type: 'name', properties: { name: 'urn:x-mongodb:crs:strictwinding:EPSG:4326' } },
    };
    const err = await coll.find({ loc: { $geoWithin: { $geometry: bigPolygon } } }).toArray().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MongoServerError);
    expect(err).toMatchObject({ code: 2, message: expect.stringContaining('big polygon') });
  });
});

describe('geospatial index specs survive a restart on lmdb', () => {
  it('lists the specs as before and answers $near and $geoNear after reopening', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'engine-geo-'));
    try {
      let engine = await startEngine({ dbPath: dir, port: 0 });
      let client = await new MongoClient(engine.uri).connect();
      const before: LooseCollection = client.db('geo').collection('places');
      await before.createIndex({ loc: '2dsphere', name: 1 });
      await before.createIndex({ pos: '2d' }, { bits: 24, min: -200, max: 200 });
      await before.insertMany(places.map((p) => ({ ...p, pos: (p.loc?.coordinates as number[] | undefined) ?? [50, 50] })));
      const specs = await before.listIndexes().toArray();
      await client.close();
      await engine.close();

      engine = await startEngine({ dbPath: dir, port: 0 });
      client = await new MongoClient(engine.uri).connect();
      const after = client.db('geo').collection('places');
      try {
        expect(await after.listIndexes().toArray()).toEqual(specs);
        expect(specs.map((s) => s.name)).toEqual(['_id_', 'loc_2dsphere_name_1', 'pos_2d']);
        expect(ids(await after.find({ loc: near(0, 0, { $maxDistance: 2000 }) }).toArray())).toEqual([1, 2]);
        expect(ids(await after.aggregate([{ $geoNear: { near: [0, 0], distanceField: 'd' } }, { $limit: 2 }]).toArray())).toEqual([1, 2]);
        const refused = await after.insertOne({ loc: pt(0, 100) }).catch((e: unknown) => e);
        expect(refused).toMatchObject({ code: 16755 });
      } finally {
        await client.close();
        await engine.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
