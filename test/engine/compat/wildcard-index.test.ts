import type { Document } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { restarts } from '../support/restarts.js';
import { describeCompat, type CompatCase, type LooseCollection } from './compat-cases.js';
import { access, ids, sortedIds, stages, winning } from './explain-helpers.js';

/**
 * Wildcard indexes as mongod 7.0 has them: `{"$**": 1}` (every leaf but
 * `_id`), `{"path.$**": 1}`, `wildcardProjection`, compound wildcard
 * indexes, and their refusals with mongod's codes. A condition on one
 * covered path reads the index (explain: IXSCAN over `{$_path: 1, <path>:
 * 1}`), also for array elements and fields of documents inside arrays;
 * null, `$ne` and `$exists: false` (no key for a missing field), documents
 * and positions are left to a scan. Every read returns what a collection
 * scan returns.
 */

const seed = [
  { _id: 1, a: 1, b: { c: 1, d: 'x' } },
  { _id: 2, a: 2, b: { c: 2 } },
  { _id: 3, a: [3, 4], b: [{ c: 3 }, { c: 30 }] },
  { _id: 4, a: 'text', b: { d: 'y' } },
  { _id: 5, b: { c: null } },
  { _id: 6, a: { x: 1 } },
  { _id: 7, a: [], b: {} },
  { _id: 8, a: [[5]] },
];
const all = [{ key: { '$**': 1 } }];

/**
 * The query's plan and documents, and whether they are a collection scan's;
 * `covered`: a query on the same path the index answers, whose plan is
 * shown too (a query the index cannot answer still finds its documents).
 */
const bothWays = async (c: LooseCollection, filter: Document, covered?: Document) => {
  const indexed = sortedIds(await c.find(filter).toArray());
  const scanned = sortedIds(await c.find(filter).hint({ $natural: 1 }).toArray());
  const plan = access(await winning(c, filter)).stage;
  const result: Document = { plan, indexed, same: JSON.stringify(indexed) === JSON.stringify(scanned) };
  if (covered) result.covered = access(await winning(c, covered)).stage;
  return result;
};

const create = (c: LooseCollection, key: Document, options: Document = {}) => c.createIndex(key, options);

const cases: CompatCase[] = [
  // Creation.
  { name: 'listIndexes shows {"$**": 1}', indexes: all, run: async (c) => (await c.listIndexes().toArray())[1], expected: { v: 2, key: { '$**': 1 }, name: '$**_1' } },
  {
    name: 'listIndexes shows a subpath index and a projection',
    run: async (c) => {
      await create(c, { 'b.$**': 1 });
      await create(c, { '$**': 1 }, { wildcardProjection: { a: 1, 'b.c': 1 } });
      return (await c.listIndexes().toArray()).slice(1);
    },
    expected: [
      { v: 2, key: { 'b.$**': 1 }, name: 'b.$**_1' },
      { v: 2, key: { '$**': 1 }, name: '$**_1', wildcardProjection: { a: 1, 'b.c': 1 } },
    ],
  },
  {
    name: 'compound wildcard indexes are created',
    run: async (c) => [await create(c, { a: 1, 'b.$**': 1 }), await create(c, { '$**': -1, z: 1 }, { wildcardProjection: { z: 0 } })],
    expected: ['a_1_b.$**_1', '$**_-1_z_1'],
  },
  { name: 'unique is refused (67)', run: (c) => create(c, { '$**': 1 }, { unique: true }), code: 67 },
  { name: 'sparse is refused (67)', run: (c) => create(c, { '$**': 1 }, { sparse: true }), code: 67 },
  { name: 'a TTL is refused (67)', run: (c) => create(c, { '$**': 1 }, { expireAfterSeconds: 60 }), code: 67 },
  { name: '{"$**": "hashed"} is refused (67)', run: (c) => create(c, { '$**': 'hashed' }), code: 67 },
  { name: '{"$**": "2dsphere"} is refused (67)', run: (c) => create(c, { '$**': '2dsphere' }), code: 67 },
  { name: '{"a.$**": "text"} is refused (67)', run: (c) => create(c, { 'a.$**': 'text' }), code: 67 },
  { name: 'a wildcard with a hashed field is refused (67)', run: (c) => create(c, { 'a.$**': 1, b: 'hashed' }), code: 67 },
  { name: '{"$**.$**": 1} is refused (67)', run: (c) => create(c, { '$**.$**': 1 }), code: 67 },
  { name: '{"$**": 0} is refused (67)', run: (c) => create(c, { '$**': 0 }), code: 67 },
  { name: '{"a": "wildcard"} is refused (67)', run: (c) => create(c, { a: 'wildcard' }), code: 67 },
  { name: 'two wildcard fields are refused (7246201)', run: (c) => create(c, { 'a.$**': 1, 'b.$**': 1 }), code: 7246201 },
  { name: 'a regular field inside the wildcard path is refused (7246204)', run: (c) => create(c, { a: 1, 'a.$**': 1 }), code: 7246204 },
  { name: 'a compound {"$**": 1} without a projection is refused (67)', run: (c) => create(c, { a: 1, '$**': 1 }), code: 67 },
  { name: 'a projection on a non-wildcard index is refused (BadValue 2)', run: (c) => create(c, { a: 1 }, { wildcardProjection: { a: 1 } }), code: 2 },
  { name: 'a projection that is not a document is refused (14)', run: (c) => create(c, { 'a.$**': 1 }, { wildcardProjection: 'a' }), code: 14 },
  { name: 'a projection with a subpath index is refused (9)', run: (c) => create(c, { 'a.$**': 1 }, { wildcardProjection: { a: 1 } }), code: 9 },
  { name: 'an empty projection is refused (9)', run: (c) => create(c, { '$**': 1 }, { wildcardProjection: {} }), code: 9 },
  { name: 'a projection mixing inclusion and exclusion is refused (31254)', run: (c) => create(c, { '$**': 1 }, { wildcardProjection: { a: 1, b: 0 } }), code: 31254 },
  { name: 'a projection with a computed field is refused (51271)', run: (c) => create(c, { '$**': 1 }, { wildcardProjection: { a: 1, b: 'x' } }), code: 51271 },
  {
    name: 'a compound projection overlapping its paths is refused (7246200)',
    run: (c) => create(c, { '$**': 1, c: 1 }, { wildcardProjection: { 'a.b': 1, 'a.b.c': 1 } }),
    code: 7246200,
  },
  // Reads: the same documents as a collection scan.
  { name: 'equality on a top-level field', seed, indexes: all, run: (c) => bothWays(c, { a: 1 }), expected: { plan: 'IXSCAN', indexed: [1], same: true } },
  { name: 'equality on an array element', seed, indexes: all, run: (c) => bothWays(c, { a: 4 }), expected: { plan: 'IXSCAN', indexed: [3], same: true } },
  { name: 'equality on a nested field', seed, indexes: all, run: (c) => bothWays(c, { 'b.c': 2 }), expected: { plan: 'IXSCAN', indexed: [2], same: true } },
  { name: 'equality on a field of documents in an array', seed, indexes: all, run: (c) => bothWays(c, { 'b.c': 30 }), expected: { plan: 'IXSCAN', indexed: [3], same: true } },
  { name: 'a range', seed, indexes: all, run: (c) => bothWays(c, { a: { $gte: 2, $lt: 4 } }), expected: { plan: 'IXSCAN', indexed: [2, 3], same: true } },
  { name: 'a range on a nested path', seed, indexes: all, run: (c) => bothWays(c, { 'b.c': { $gt: 2 } }), expected: { plan: 'IXSCAN', indexed: [3], same: true } },
  { name: '$in', seed, indexes: all, run: (c) => bothWays(c, { a: { $in: [1, 'text'] } }), expected: { plan: 'IXSCAN', indexed: [1, 4], same: true } },
  { name: '$exists: true (the path or below it)', seed, indexes: all, run: (c) => bothWays(c, { 'b.d': { $exists: true } }), expected: { plan: 'IXSCAN', indexed: [1, 4], same: true } },
  { name: '$exists: true on a document path', seed, indexes: all, run: (c) => bothWays(c, { b: { $exists: true } }), expected: { plan: 'IXSCAN', indexed: [1, 2, 3, 4, 5, 7], same: true } },
  {
    name: '$exists: true finds a document whose field holds only dotted names (mongod leaves those out)',
    seed: [{ _id: 1, a: { 'x.y': 1 } }, { _id: 2, a: 1 }, { _id: 3 }],
    indexes: all,
    run: (c) => bothWays(c, { a: { $exists: true } }),
    expected: { plan: 'IXSCAN', indexed: [1, 2], same: true },
  },
  { name: '$exists: false', seed, indexes: all, run: (c) => bothWays(c, { a: { $exists: false } }, { a: 1 }), expected: { plan: 'COLLSCAN', indexed: [5], same: true, covered: 'IXSCAN' } },
  { name: 'null', seed, indexes: all, run: (c) => bothWays(c, { 'b.c': null }, { 'b.c': 1 }), expected: { plan: 'COLLSCAN', indexed: [4, 5, 6, 7, 8], same: true, covered: 'IXSCAN' } },
  { name: '$ne: null', seed, indexes: all, run: (c) => bothWays(c, { 'b.c': { $ne: null } }, { 'b.c': 1 }), expected: { plan: 'COLLSCAN', indexed: [1, 2, 3], same: true, covered: 'IXSCAN' } },
  { name: 'equality to a document', seed, indexes: all, run: (c) => bothWays(c, { a: { x: 1 } }, { 'a.x': 1 }), expected: { plan: 'COLLSCAN', indexed: [6], same: true, covered: 'IXSCAN' } },
  { name: 'equality to an empty array', seed, indexes: all, run: (c) => bothWays(c, { a: [] }, { a: 1 }), expected: { plan: 'COLLSCAN', indexed: [7], same: true, covered: 'IXSCAN' } },
  { name: 'equality to an array inside an array', seed, indexes: all, run: (c) => bothWays(c, { a: [5] }, { a: 5 }), expected: { plan: 'COLLSCAN', indexed: [8], same: true, covered: 'IXSCAN' } },
  { name: 'an array position', seed, indexes: all, run: (c) => bothWays(c, { 'a.1': 4 }, { a: 4 }), expected: { plan: 'COLLSCAN', indexed: [3], same: true, covered: 'IXSCAN' } },
  {
    name: '_id is not in the index by default: a range on it reads the _id index',
    seed,
    indexes: all,
    run: async (c) => [access(await winning(c, { _id: { $gt: 6 } })).indexName, sortedIds(await c.find({ _id: { $gt: 6 } }).toArray()), access(await winning(c, { a: 1 })).indexName],
    expected: ['_id_', [7, 8], '$**_1'],
  },
  {
    name: 'an update moves the document\'s keys',
    seed,
    indexes: all,
    run: async (c) => {
      await c.updateOne({ _id: 1 }, { $set: { a: 42 }, $unset: { b: '' } });
      return [ids(await c.find({ a: 1 }).toArray()), ids(await c.find({ a: 42 }).toArray()), ids(await c.find({ 'b.c': 1 }).toArray()), access(await winning(c, { a: 42 })).stage];
    },
    expected: [[], [1], [], 'IXSCAN'],
  },
  {
    name: 'a subpath index covers its path only',
    seed,
    indexes: [{ key: { 'b.$**': 1 } }],
    run: async (c) => [access(await winning(c, { 'b.c': 2 })).stage, access(await winning(c, { a: 2 })).stage, sortedIds(await c.find({ 'b.c': 2 }).toArray())],
    expected: ['IXSCAN', 'COLLSCAN', [2]],
  },
  {
    name: 'an inclusion projection covers the included paths',
    seed,
    indexes: [{ key: { '$**': 1 }, options: { wildcardProjection: { 'b.c': 1 } } }],
    run: async (c) => [access(await winning(c, { 'b.c': 2 })).stage, access(await winning(c, { 'b.d': 'x' })).stage, access(await winning(c, { a: 1 })).stage],
    expected: ['IXSCAN', 'COLLSCAN', 'COLLSCAN'],
  },
  {
    name: 'an exclusion projection covers the other paths',
    seed,
    indexes: [{ key: { '$**': 1 }, options: { wildcardProjection: { b: 0 } } }],
    run: async (c) => [access(await winning(c, { a: 1 })).stage, access(await winning(c, { 'b.c': 2 })).stage, sortedIds(await c.find({ 'b.c': 2 }).toArray())],
    expected: ['IXSCAN', 'COLLSCAN', [2]],
  },
  {
    name: 'a projection including _id indexes _id',
    seed,
    indexes: [{ key: { '$**': 1 }, options: { wildcardProjection: { _id: 1, a: 1 } } }],
    run: async (c) => [sortedIds(await c.find({ _id: { $gt: 6 } }).hint('$**_1').toArray()), access(await winning(c, { _id: { $gt: 6 } }, { hint: '$**_1' })).keyPattern],
    expected: [[7, 8], { $_path: 1, _id: 1 }],
  },
  {
    name: 'a compound wildcard index answers its regular field and a path',
    seed: [
      { _id: 1, t: 1, b: { c: 1 } },
      { _id: 2, t: 2, b: { c: 1 } },
      { _id: 3, t: 1, b: { c: 2 } },
      { _id: 4, t: 1 },
    ],
    indexes: [{ key: { t: 1, 'b.$**': 1 } }],
    run: async (c) => [access(await winning(c, { t: 1, 'b.c': 1 })), sortedIds(await c.find({ t: 1, 'b.c': 1 }).toArray()), sortedIds(await c.find({ t: 1 }).toArray())],
    expected: [
      { stage: 'IXSCAN', keyPattern: { t: 1, $_path: 1, 'b.c': 1 }, indexName: 't_1_b.$**_1', indexBounds: { t: ['[1, 1]'], $_path: ['["b.c", "b.c"]'], 'b.c': ['[1, 1]'] } },
      [1],
      [1, 3, 4],
    ],
  },
  // Plans.
  {
    name: 'explain: equality reads $_path and the value',
    seed,
    indexes: all,
    run: async (c) => {
      const plan = await winning(c, { a: 2 });
      return { stages: stages(plan), access: access(plan) };
    },
    expected: {
      stages: ['FETCH', 'IXSCAN'],
      access: { stage: 'IXSCAN', keyPattern: { $_path: 1, a: 1 }, indexName: '$**_1', indexBounds: { $_path: ['["a", "a"]'], a: ['[2, 2]'] } },
    },
  },
  {
    name: 'explain: a nested path and a range',
    seed,
    indexes: all,
    run: async (c) => access(await winning(c, { 'b.c': { $gt: 2 } })),
    expected: { stage: 'IXSCAN', keyPattern: { $_path: 1, 'b.c': 1 }, indexName: '$**_1', indexBounds: { $_path: ['["b.c", "b.c"]'], 'b.c': ['(2, inf.0]'] } },
  },
  {
    name: 'explain: $in reads each value of the path',
    seed,
    indexes: all,
    run: async (c) => access(await winning(c, { a: { $in: ['text', 1] } })),
    expected: { stage: 'IXSCAN', keyPattern: { $_path: 1, a: 1 }, indexName: '$**_1', indexBounds: { $_path: ['["a", "a"]'], a: ['[1, 1]', '["text", "text"]'] } },
  },
  {
    name: 'explain: $exists reads the path and its subpaths',
    seed,
    indexes: all,
    run: async (c) => access(await winning(c, { b: { $exists: true } })),
    expected: { stage: 'IXSCAN', keyPattern: { $_path: 1, b: 1 }, indexName: '$**_1', indexBounds: { $_path: ['["b", "b"]', '["b.", "b/")'], b: ['[MinKey, MaxKey]'] } },
  },
  {
    name: 'a sort on the queried field comes from the index when no array is indexed',
    seed: [{ _id: 1, a: 3 }, { _id: 2, a: 1 }, { _id: 3, a: 2 }, { _id: 4, b: 1 }],
    indexes: all,
    run: async (c) => [stages(await winning(c, { a: { $gt: 0 } }, { sort: { a: -1 } })), ids(await c.find({ a: { $gt: 0 } }).sort({ a: -1 }).toArray())],
    expected: [['FETCH', 'IXSCAN'], [1, 3, 2]],
  },
  {
    name: 'a descending wildcard index gives both directions of the sort',
    seed: [{ _id: 1, a: 3 }, { _id: 2, a: 1 }, { _id: 3, a: 2 }, { _id: 4, b: 1 }],
    indexes: [{ key: { '$**': -1 } }],
    run: async (c) => [
      stages(await winning(c, { a: { $lt: 3 } }, { sort: { a: 1 } })),
      ids(await c.find({ a: { $lt: 3 } }).sort({ a: 1 }).toArray()),
      ids(await c.find({ a: { $gte: 1 } }).sort({ a: -1 }).limit(2).toArray()),
    ],
    expected: [['FETCH', 'IXSCAN'], [2, 3], [1, 3]],
  },
  {
    name: 'with an array indexed the sort is a blocking SORT, still in order',
    seed,
    indexes: all,
    run: async (c) => [stages(await winning(c, { a: { $gt: 0 } }, { sort: { a: 1 } })), ids(await c.find({ a: { $gt: 0 } }).sort({ a: 1 }).toArray())],
    expected: [['SORT', 'FETCH', 'IXSCAN'], [1, 2, 3]],
  },
  // Hints.
  {
    name: 'a hint by name reads the path\'s bounds',
    seed,
    indexes: [...all, { key: { a: 1 } }],
    run: async (c) => [ids(await c.find({ a: 2 }).hint('$**_1').toArray()), access(await winning(c, { a: 2 }, { hint: '$**_1' })).indexBounds],
    expected: [[2], { $_path: ['["a", "a"]'], a: ['[2, 2]'] }],
  },
  {
    name: 'a hint by key pattern',
    seed,
    indexes: all,
    run: async (c) => [sortedIds(await c.find({ 'b.c': { $lte: 3 } }).hint({ '$**': 1 }).toArray()), access(await winning(c, { 'b.c': { $lte: 3 } }, { hint: { '$**': 1 } })).keyPattern],
    expected: [[1, 2, 3], { $_path: 1, 'b.c': 1 }],
  },
  {
    name: 'a hint when the filter reads no covered path has no plan (291)',
    seed,
    indexes: [{ key: { 'b.$**': 1 } }],
    run: (c) => c.find({ a: 1 }).hint({ 'b.$**': 1 }).toArray(),
    code: 291,
  },
  {
    name: 'returnKey gives $_path and the value',
    seed,
    indexes: all,
    run: async (c) => c.find({ a: 2 }, { returnKey: true }).hint('$**_1').toArray(),
    expected: [{ $_path: 'a', a: 2 }],
  },
];

describeCompat('wildcard index', cases);

describe('wildcard index on lmdb: survives a restart', () => {
  const { dbPath: tempDir, withClient } = restarts('engine-wildcard');

  it('keeps the spec and its projection and answers through it', async () => {
    const dbPath = tempDir();
    await withClient(dbPath, async (client) => {
      const c: LooseCollection = client.db('app').collection('things');
      await c.createIndex({ '$**': 1 }, { wildcardProjection: { b: 0 } });
      await c.insertMany(seed.map((d) => ({ ...d })));
    });
    const after = await withClient(dbPath, async (client) => {
      const c: LooseCollection = client.db('app').collection('things');
      const listed = (await c.listIndexes().toArray())[1];
      const found = sortedIds(await c.find({ a: { $gte: 2, $lt: 4 } }).toArray());
      const used = access((await c.find({ a: 2 }).explain('queryPlanner')).queryPlanner.winningPlan as Document).indexName;
      const excluded = access((await c.find({ 'b.c': 2 }).explain('queryPlanner')).queryPlanner.winningPlan as Document).stage;
      return { listed, found, used, excluded };
    });
    expect(after).toEqual({ listed: { v: 2, key: { '$**': 1 }, name: '$**_1', wildcardProjection: { b: 0 } }, found: [2, 3], used: '$**_1', excluded: 'COLLSCAN' });
  });
});
