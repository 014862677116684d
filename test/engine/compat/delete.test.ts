import { describeCompat, type CompatCase } from './compat-cases.js';

const seed = [
  { _id: 1, k: 'a' },
  { _id: 2, k: 'b' },
  { _id: 3, k: 'a' },
];

const cases: CompatCase[] = [
  {
    name: 'deleteOne removes the first match only',
    seed,
    run: async (c) => [(await c.deleteOne({ k: 'a' })).deletedCount, await c.find().project({ _id: 1 }).toArray()],
    expected: [1, [{ _id: 2 }, { _id: 3 }]],
  },
  {
    name: 'deleteMany removes every match',
    seed,
    run: async (c) => [(await c.deleteMany({ k: 'a' })).deletedCount, await c.countDocuments()],
    expected: [2, 1],
  },
  {
    name: 'an empty filter removes everything',
    seed,
    run: async (c) => (await c.deleteMany({})).deletedCount,
    expected: 3,
  },
  {
    name: 'no match deletes nothing',
    seed,
    run: async (c) => (await c.deleteMany({ k: 'z' })).deletedCount,
    expected: 0,
  },
  {
    name: 'deleting from a missing collection deletes nothing',
    run: async (c) => (await c.deleteOne({})).deletedCount,
    expected: 0,
  },
  {
    name: 'let values are evaluated before they reach the delete filter',
    seed,
    run: async (c) => (await c.deleteMany({ $expr: { $eq: ['$k', '$$k'] } }, { let: { k: { $concat: ['', 'a'] } } })).deletedCount,
    expected: 2,
  },
  {
    name: 'an unknown field in a delete statement is IDLUnknownField',
    seed,
    run: (c, db) => db.command({ delete: c.collectionName, deletes: [{ q: {}, limit: 0, sort: { _id: 1 } }] }),
    code: 40415,
  },
  {
    name: 'let variables reach the delete filter',
    seed,
    run: async (c) => (await c.deleteMany({ $expr: { $eq: ['$k', '$$k'] } }, { let: { k: 'a' } })).deletedCount,
    expected: 2,
  },
  {
    name: 'a hint naming no index is a BadValue write error',
    seed,
    run: (c) => c.deleteOne({ k: 'a' }, { hint: 'nope_1' }),
    code: 2,
  },
  {
    name: 'a limit other than 0 or 1 is FailedToParse',
    seed,
    run: (c, db) => db.command({ delete: c.collectionName, deletes: [{ q: {}, limit: 2 }] }),
    code: 9,
  },
  {
    name: 'collation applies to the delete filter',
    seed: [{ _id: 1, k: 'A' }, { _id: 2, k: 'a' }, { _id: 3, k: 'b' }],
    run: async (c) => (await c.deleteMany({ k: 'a' }, { collation: { locale: 'en', strength: 2 } })).deletedCount,
    expected: 2,
  },
];

describeCompat('delete', cases);
