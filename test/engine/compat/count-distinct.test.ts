import { describeCompat, type CompatCase } from './compat-cases.js';

const seed = [
  { _id: 1, k: 'a', tags: ['x', 'y'], n: 1 },
  { _id: 2, k: 'b', tags: ['y'], n: 2 },
  { _id: 3, k: 'a', tags: 'z', n: 1.0 },
  { _id: 4, k: 'A' },
];

const cases: CompatCase[] = [
  {
    name: 'estimatedDocumentCount counts the collection',
    seed,
    run: (c) => c.estimatedDocumentCount(),
    expected: 4,
  },
  {
    name: 'count with a query, skip and limit',
    seed,
    run: async (c, db) => (await db.command({ count: c.collectionName, query: { k: { $exists: true } }, skip: 1, limit: 2 })).n,
    expected: 2,
  },
  {
    name: 'count of a missing collection is 0',
    run: async (c, db) => (await db.command({ count: c.collectionName })).n,
    expected: 0,
  },
  {
    name: 'countDocuments with skip',
    seed,
    run: (c) => c.countDocuments({}, { skip: 3 }),
    expected: 1,
  },
  {
    name: 'distinct returns each value once',
    seed,
    run: async (c) => (await c.distinct('k')).sort(),
    expected: ['A', 'a', 'b'],
  },
  {
    name: 'distinct unwinds arrays',
    seed,
    run: async (c) => (await c.distinct('tags')).sort(),
    expected: ['x', 'y', 'z'],
  },
  {
    name: 'distinct treats numerically equal values as one',
    seed,
    run: (c) => c.distinct('n'),
    expected: [1, 2],
  },
  {
    name: 'distinct applies the query',
    seed,
    run: (c) => c.distinct('k', { n: 2 }),
    expected: ['b'],
  },
  {
    name: 'distinct with case-insensitive collation',
    seed,
    run: async (c) => (await c.distinct('k', {}, { collation: { locale: 'en', strength: 2 } })).length,
    expected: 2,
  },
  {
    name: 'distinct on a missing collection is empty',
    run: (c) => c.distinct('k'),
    expected: [],
  },
  {
    name: 'distinct without a key is an error',
    run: (c, db) => db.command({ distinct: c.collectionName }),
    code: 40414,
  },
];

describeCompat('count-distinct', cases);
