import { describeCompat, type CompatCase } from './compat-cases.js';

/**
 * A read hinted onto an index scans that index, so it finds only the
 * documents the index holds (mongod: SERVER-26413, by design): a sparse
 * index leaves out documents with none of its fields, a partial index those
 * its partialFilterExpression rejects, a 2dsphere index (always sparse)
 * those without a location. Without the hint every match is found.
 */

const sparseSeed = [{ _id: 1, a: 1 }, { _id: 2 }, { _id: 3, a: null }, { _id: 4, a: 2 }];
const sparse = [{ key: { a: 1 }, options: { sparse: true } }];
const partialSeed = [{ _id: 1, a: 1 }, { _id: 2, a: 6 }, { _id: 3, a: 10 }, { _id: 4 }];
const partial = [{ key: { a: 1 }, options: { partialFilterExpression: { a: { $gt: 5 } } } }];
const places = [
  { _id: 1, loc: { type: 'Point', coordinates: [0, 0] }, kind: 'cafe' },
  { _id: 2, kind: 'cafe' },
  { _id: 3, loc: { type: 'Point', coordinates: [1, 1] }, kind: 'bar' },
];
const ids = (docs: { _id: unknown }[]) => docs.map((d) => d._id);

const cases: CompatCase[] = [
  { name: 'sparse: hinted, an empty filter finds the indexed documents in key order', seed: sparseSeed, indexes: sparse, run: async (c) => ids(await c.find({}).hint('a_1').toArray()), expected: [3, 1, 4] },
  { name: 'sparse: hinted, {a: null} finds only the explicit null', seed: sparseSeed, indexes: sparse, run: async (c) => ids(await c.find({ a: null }).hint('a_1').toArray()), expected: [3] },
  { name: 'sparse: not hinted, {a: null} finds the missing field too', seed: sparseSeed, indexes: sparse, run: async (c) => ids(await c.find({ a: null }).sort({ _id: 1 }).toArray()), expected: [2, 3] },
  {
    name: 'sparse: count and countDocuments with the hint count the indexed documents',
    seed: sparseSeed,
    indexes: sparse,
    run: async (c, db) => [(await db.command({ count: c.collectionName, query: {}, hint: 'a_1' })).n, await c.countDocuments({}, { hint: 'a_1' })],
    expected: [3, 3],
  },
  {
    name: 'sparse: a hinted delete removes only indexed documents',
    seed: sparseSeed,
    indexes: sparse,
    run: async (c) => [(await c.deleteMany({ a: null }, { hint: 'a_1' })).deletedCount, ids(await c.find({}).sort({ _id: 1 }).toArray())],
    expected: [1, [1, 2, 4]],
  },
  { name: 'partial: hinted, an empty filter finds the documents the filter expression admits', seed: partialSeed, indexes: partial, run: async (c) => ids(await c.find({}).hint({ a: 1 }).toArray()), expected: [2, 3] },
  { name: 'partial: hinted, a filter outside the expression finds nothing', seed: partialSeed, indexes: partial, run: async (c) => ids(await c.find({ a: 1 }).hint({ a: 1 }).toArray()), expected: [] },
  { name: 'partial: not hinted, every match is found', seed: partialSeed, indexes: partial, run: async (c) => ids(await c.find({ a: { $lt: 7 } }).sort({ _id: 1 }).toArray()), expected: [1, 2] },
  {
    name: '2dsphere: hinted, only documents with a location are found',
    seed: places,
    indexes: [{ key: { loc: '2dsphere' } }],
    run: async (c) => ids(await c.find({ kind: 'cafe' }).hint('loc_2dsphere').toArray()),
    expected: [1],
  },
  {
    name: '2dsphere, declared sparse: the same',
    seed: places,
    indexes: [{ key: { loc: '2dsphere' }, options: { sparse: true } }],
    run: async (c) => ids(await c.find({}).hint('loc_2dsphere').sort({ _id: 1 }).toArray()),
    expected: [1, 3],
  },
  { name: 'a hinted ordinary index finds every match', seed: sparseSeed, indexes: [{ key: { a: 1 } }], run: async (c) => ids(await c.find({}).hint('a_1').toArray()).sort(), expected: [1, 2, 3, 4] },
];

describeCompat('hinted index', cases);
