import { Long } from 'mongodb';
import { describeCompat, withoutIds, type CompatCase } from './compat-cases.js';

const sales = [
  { _id: 1, item: 'a', qty: 2, price: 10 },
  { _id: 2, item: 'b', qty: 1, price: 20 },
  { _id: 3, item: 'a', qty: 5, price: 10 },
  { _id: 4, item: 'c', qty: 1, price: 5 },
];

const cases: CompatCase[] = [
  {
    name: 'let values are expressions evaluated once ($literal keeps a $-string)',
    seed: sales,
    run: (c) =>
      c.aggregate([{ $match: { _id: 1 } }, { $project: { _id: 0, x: '$$x', y: '$$y' } }], { let: { x: { $add: [1, 2] }, y: { $literal: '$bar' } } }).toArray(),
    expected: [{ x: 3, y: '$bar' }],
  },
  {
    name: '$match then $group sums per key',
    seed: sales,
    run: (c) =>
      c.aggregate([{ $match: { qty: { $gte: 1 } } }, { $group: { _id: '$item', total: { $sum: '$qty' } } }, { $sort: { _id: 1 } }]).toArray(),
    expected: [
      { _id: 'a', total: 7 },
      { _id: 'b', total: 1 },
      { _id: 'c', total: 1 },
    ],
  },
  {
    name: '$project computes fields',
    seed: sales,
    run: (c) => c.aggregate([{ $match: { _id: 2 } }, { $project: { _id: 0, amount: { $multiply: ['$qty', '$price'] } } }]).toArray(),
    expected: [{ amount: 20 }],
  },
  {
    name: '$sort, $skip and $limit',
    seed: sales,
    run: (c) => c.aggregate([{ $sort: { qty: -1, _id: 1 } }, { $skip: 1 }, { $limit: 2 }, { $project: { _id: 1 } }]).toArray(),
    expected: [{ _id: 1 }, { _id: 2 }],
  },
  {
    name: 'countDocuments runs as an aggregate',
    seed: sales,
    run: (c) => c.countDocuments({ item: 'a' }),
    expected: 2,
  },
  {
    name: '$lookup joins another collection of the database',
    seed: sales,
    run: async (c, db) => {
      const items = db.collection<any>(`${c.collectionName}_items`);
      await items.insertMany([{ _id: 'a', label: 'Apple' }, { _id: 'b', label: 'Banana' }]);
      return c
        .aggregate([
          { $match: { _id: { $in: [1, 2] } } },
          { $lookup: { from: items.collectionName, localField: 'item', foreignField: '_id', as: 'info' } },
          { $project: { _id: 1, info: 1 } },
        ])
        .toArray();
    },
    expected: [
      { _id: 1, info: [{ _id: 'a', label: 'Apple' }] },
      { _id: 2, info: [{ _id: 'b', label: 'Banana' }] },
    ],
  },
  {
    name: '$out replaces the target collection',
    seed: sales,
    run: async (c, db) => {
      const target = db.collection<any>(`${c.collectionName}_out`);
      await target.insertOne({ _id: 'old' });
      await c.aggregate([{ $group: { _id: '$item', n: { $sum: 1 } } }, { $out: target.collectionName }]).toArray();
      return target.find().sort({ _id: 1 }).toArray();
    },
    expected: [
      { _id: 'a', n: 2 },
      { _id: 'b', n: 1 },
      { _id: 'c', n: 1 },
    ],
  },
  {
    name: '$out keeps the indexes of the target collection',
    seed: sales,
    run: async (c, db) => {
      const target = db.collection<any>(`${c.collectionName}_out`);
      await target.createIndex({ n: 1 });
      await c.aggregate([{ $project: { n: '$qty' } }, { $out: target.collectionName }]).toArray();
      return (await target.listIndexes().toArray()).map((ix) => ix.name);
    },
    expected: ['_id_', 'n_1'],
  },
  {
    name: '$merge merges into matching documents and inserts the others',
    seed: sales,
    run: async (c, db) => {
      const target = db.collection<any>(`${c.collectionName}_merge`);
      await target.insertMany([{ _id: 'a', keep: true, n: 0 }]);
      await c.aggregate([{ $group: { _id: '$item', n: { $sum: 1 } } }, { $merge: { into: target.collectionName } }]).toArray();
      return target.find().sort({ _id: 1 }).toArray();
    },
    expected: [
      { _id: 'a', keep: true, n: 2 },
      { _id: 'b', n: 1 },
      { _id: 'c', n: 1 },
    ],
  },
  {
    name: '$merge whenMatched keepExisting and whenNotMatched discard',
    seed: sales,
    run: async (c, db) => {
      const target = db.collection<any>(`${c.collectionName}_merge`);
      await target.insertMany([{ _id: 'a', n: 0 }]);
      await c
        .aggregate([
          { $group: { _id: '$item', n: { $sum: 1 } } },
          { $merge: { into: target.collectionName, whenMatched: 'keepExisting', whenNotMatched: 'discard' } },
        ])
        .toArray();
      return target.find().toArray();
    },
    expected: [{ _id: 'a', n: 0 }],
  },
  {
    name: '$merge whenMatched fail is DuplicateKey',
    seed: sales,
    run: async (c, db) => {
      const target = db.collection<any>(`${c.collectionName}_merge`);
      await target.insertOne({ _id: 'a' });
      return c.aggregate([{ $group: { _id: '$item' } }, { $merge: { into: target.collectionName, whenMatched: 'fail' } }]).toArray();
    },
    code: 11000,
  },
  {
    name: '$out before the last stage is an error',
    seed: sales,
    run: (c) => c.aggregate([{ $out: 'x' }, { $match: {} }]).toArray(),
    code: 40601,
  },
  {
    name: 'an unknown stage is an error',
    seed: sales,
    run: (c) => c.aggregate([{ $bogus: {} }]).toArray(),
    code: 40324,
  },
  {
    name: 'aggregate without a cursor option is FailedToParse',
    seed: sales,
    run: (c, db) => db.command({ aggregate: c.collectionName, pipeline: [] }),
    code: 9,
  },
  {
    name: '$unwind then $group counts array elements',
    seed: [{ _id: 1, t: ['x', 'y'] }, { _id: 2, t: ['x'] }],
    run: (c) => c.aggregate([{ $unwind: '$t' }, { $group: { _id: '$t', n: { $sum: 1 } } }, { $sort: { _id: 1 } }]).toArray(),
    expected: [
      { _id: 'x', n: 2 },
      { _id: 'y', n: 1 },
    ],
  },
  {
    name: 'aggregate over a missing collection returns nothing',
    run: (c) => c.aggregate([{ $match: {} }]).toArray(),
    expected: [],
  },
  {
    name: '{aggregate: 1} with $documents needs no collection',
    run: async (_c, db) => db.aggregate([{ $documents: [{ a: 1 }, { a: 2 }] }, { $match: { a: 2 } }]).toArray(),
    expected: [{ a: 2 }],
  },
  {
    name: '{aggregate: 1} without a collection-less first stage is InvalidNamespace',
    run: async (_c, db) => db.aggregate([{ $match: {} }]).toArray(),
    code: 73,
  },
  {
    name: '{aggregate: 1} with an unknown first stage is that stage\'s error (40324), not InvalidNamespace',
    run: async (_c, db) => db.aggregate([{ $noSuchStage: {} }]).toArray(),
    code: 40324,
  },
  {
    name: '$addFields keeps the other fields',
    seed: [{ _id: 1, a: 1 }],
    run: async (c) => withoutIds(await c.aggregate([{ $addFields: { b: 2 } }]).toArray()),
    expected: [{ a: 1, b: 2 }],
  },
  {
    name: 'a $range too large for memory is ExceededMemoryLimit, even nested in another expression',
    seed: [{ _id: 1 }],
    run: (c) => c.aggregate([{ $project: { n: { $size: { $range: [0, 1e9] } } } }]).toArray(),
    code: 146,
  },
  {
    name: 'a $range within the memory limit is built',
    seed: [{ _id: 1 }],
    run: (c) => c.aggregate([{ $project: { n: { $size: { $range: [0, 100000] } } } }]).toArray(),
    expected: [{ _id: 1, n: 100000 }],
  },
  {
    name: 'comparison expressions compare in BSON order: an array as one value, across types, a missing value below null',
    seed: [
      { _id: 1, a: [5] },
      { _id: 2 },
      { _id: 3, a: null },
      { _id: 4, a: 5 },
      { _id: 5, a: 'x' },
      { _id: 6, a: Long.fromString('9007199254740993') },
    ],
    run: (c) =>
      c
        .aggregate([
          { $sort: { _id: 1 } },
          {
            $project: {
              eq: { $eq: ['$a', 5] },
              ne: { $ne: ['$a', 5] },
              lt: { $lt: ['$a', 5] },
              gt: { $gt: ['$a', 5] },
              lte: { $lte: ['$a', 5] },
              gte: { $gte: ['$a', 5] },
              cmp: { $cmp: ['$a', 5] },
              isNull: { $eq: ['$a', null] },
              // Nested in another operator (mingo evaluates it there), and on a Long past 2^53.
              nested: { $cond: [{ $lt: ['$a', 5] }, 'below', 'not below'] },
              aboveLong: { $gt: ['$a', Long.fromString('9007199254740992')] },
            },
          },
        ])
        .toArray(),
    expected: [
      { _id: 1, eq: false, ne: true, lt: false, gt: true, lte: false, gte: true, cmp: 1, isNull: false, nested: 'not below', aboveLong: true },
      { _id: 2, eq: false, ne: true, lt: true, gt: false, lte: true, gte: false, cmp: -1, isNull: false, nested: 'below', aboveLong: false },
      { _id: 3, eq: false, ne: true, lt: true, gt: false, lte: true, gte: false, cmp: -1, isNull: true, nested: 'below', aboveLong: false },
      { _id: 4, eq: true, ne: false, lt: false, gt: false, lte: true, gte: true, cmp: 0, isNull: false, nested: 'not below', aboveLong: false },
      { _id: 5, eq: false, ne: true, lt: false, gt: true, lte: false, gte: true, cmp: 1, isNull: false, nested: 'not below', aboveLong: true },
      { _id: 6, eq: false, ne: true, lt: false, gt: true, lte: false, gte: true, cmp: 1, isNull: false, nested: 'not below', aboveLong: true },
    ],
  },
  {
    name: '$expr with a comparison matches as the expression compares (an array holding the value is not equal to it)',
    seed: [{ _id: 1, a: [5] }, { _id: 2, a: 5 }, { _id: 3 }, { _id: 4, a: null }],
    run: async (c) => [
      (await c.find({ $expr: { $eq: ['$a', 5] } }).toArray()).map((d) => d._id),
      (await c.find({ $expr: { $lt: ['$a', 5] } }).sort({ _id: 1 }).toArray()).map((d) => d._id),
    ],
    expected: [[2], [3, 4]],
  },
  {
    name: 'a comparison expression takes exactly 2 arguments',
    seed: [{ _id: 1 }],
    run: (c) => c.aggregate([{ $project: { x: { $eq: [1, 2, 3] } } }]).toArray(),
    code: 16020,
  },
];

describeCompat('aggregate', cases);
