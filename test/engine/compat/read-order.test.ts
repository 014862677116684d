import { ObjectId } from 'mongodb';
import type { Document } from 'mongodb';
import { describeCompat, type CompatCase } from './compat-cases.js';

/**
 * The order reads answer in: a collection scan gives natural (insertion)
 * order, an index scan that index's order, a hint names the index to scan,
 * `$natural` asks for a collection scan either way. Then the blocking sort's
 * bounds: top-k with a limit, and mongod's 100 MiB limit without allowDiskUse.
 */

const shuffled = [
  { _id: 3, n: 30, k: 'a' },
  { _id: 1, n: 10, k: 'b' },
  { _id: 4, n: 40, k: 'a' },
  { _id: 2, n: 20, k: 'b' },
];
const ids = (docs: Document[]) => docs.map((d) => d._id);

/** 26 documents of 4 MiB: 104 MiB to sort on `r` (unindexed), past mongod's 100 MiB blocking-sort limit. */
async function seedLarge(c: Parameters<CompatCase['run']>[0]): Promise<void> {
  const big = 'x'.repeat(4 * 1024 * 1024);
  for (let i = 0; i < 26; i += 2) await c.insertMany([{ _id: i, r: i, big }, { _id: i + 1, r: i + 1, big }]);
}

async function codeOf(p: Promise<unknown>): Promise<number | string> {
  return p.then(
    () => 'ok',
    (e: { code?: number }) => e.code ?? 'no code',
  );
}

const cases: CompatCase[] = [
  {
    name: 'an unfiltered find without sort answers in insertion order',
    seed: shuffled,
    run: async (c) => ids(await c.find().toArray()),
    expected: [3, 1, 4, 2],
  },
  {
    name: 'a filter on an unindexed field scans in insertion order',
    seed: shuffled,
    run: async (c) => ids(await c.find({ k: 'a' }).toArray()),
    expected: [3, 4],
  },
  {
    name: 'an updated document keeps its place, a re-inserted one goes last',
    seed: shuffled,
    run: async (c) => {
      await c.updateOne({ _id: 3 }, { $set: { grown: 'y'.repeat(1000) } });
      await c.deleteOne({ _id: 1 });
      await c.insertOne({ _id: 1, n: 10 });
      return ids(await c.find().toArray());
    },
    expected: [3, 4, 2, 1],
  },
  {
    name: 'an unfiltered aggregate answers in insertion order',
    seed: shuffled,
    run: async (c) => ids(await c.aggregate([{ $project: { n: 1 } }]).toArray()),
    expected: [3, 1, 4, 2],
  },
  {
    name: 'a range on _id scans the _id index in _id order',
    seed: shuffled,
    run: async (c) => ids(await c.find({ _id: { $gte: 2 } }).toArray()),
    expected: [2, 3, 4],
  },
  {
    name: 'a sort on ObjectId _id answers in byte order',
    seed: [
      { _id: new ObjectId('ff0000000000000000000000') },
      { _id: new ObjectId('000000000000000000000002') },
      { _id: new ObjectId('00000000000000ff00000000') },
      { _id: new ObjectId('000000000000000000000001') },
      { _id: new ObjectId('7fffffffffffffffffffffff') },
    ],
    run: async (c) => (await c.find().sort({ _id: -1 }).toArray()).map((d) => (d._id as ObjectId).toHexString()),
    expected: ['ff0000000000000000000000', '7fffffffffffffffffffffff', '00000000000000ff00000000', '000000000000000000000002', '000000000000000000000001'],
  },
  {
    name: 'hint {n: -1} answers in that index order',
    indexes: [{ key: { n: -1 } }],
    seed: shuffled,
    run: async (c) => ids(await c.find().hint({ n: -1 }).toArray()),
    expected: [4, 3, 2, 1],
  },
  {
    name: 'a hint by index name with a filter answers in index order',
    indexes: [{ key: { n: 1 } }],
    seed: shuffled,
    run: async (c) => ids(await c.find({ k: { $in: ['a', 'b'] } }).hint('n_1').toArray()),
    expected: [1, 2, 3, 4],
  },
  {
    name: 'a hinted find with skip and limit pages through index order',
    indexes: [{ key: { n: -1 } }],
    seed: shuffled,
    run: async (c) => ids(await c.find().hint({ n: -1 }).skip(1).limit(2).toArray()),
    expected: [3, 2],
  },
  {
    name: 'a compound hint orders by every key',
    indexes: [{ key: { k: 1, n: -1 } }],
    seed: shuffled,
    run: async (c) => ids(await c.find().hint({ k: 1, n: -1 }).toArray()),
    expected: [4, 3, 2, 1],
  },
  {
    name: 'an explicit sort wins over the hinted index order',
    indexes: [{ key: { n: -1 } }],
    seed: shuffled,
    run: async (c) => ids(await c.find().hint({ n: -1 }).sort({ _id: 1 }).toArray()),
    expected: [1, 2, 3, 4],
  },
  {
    name: 'an aggregate hint answers in index order',
    indexes: [{ key: { n: -1 } }],
    seed: shuffled,
    run: async (c) => ids(await c.aggregate([{ $match: { n: { $gt: 0 } } }], { hint: { n: -1 } }).toArray()),
    expected: [4, 3, 2, 1],
  },
  {
    name: 'hint {$natural: -1} scans backwards through insertion order',
    indexes: [{ key: { n: 1 } }],
    seed: shuffled,
    run: async (c) => ids(await c.find({ n: { $gt: 0 } }).hint({ $natural: -1 }).toArray()),
    expected: [2, 4, 1, 3],
  },
  {
    name: 'sort {$natural: 1} is insertion order',
    seed: shuffled,
    run: async (c) => ids(await c.find().sort({ $natural: 1 }).toArray()),
    expected: [3, 1, 4, 2],
  },
  {
    name: 'sort {$natural: -1} with a limit takes the newest',
    seed: shuffled,
    run: async (c) => ids(await c.find().sort({ $natural: -1 }).limit(2).toArray()),
    expected: [2, 4],
  },
  {
    name: 'a hint naming no index is BadValue',
    seed: shuffled,
    run: (c) => c.find().hint({ nope: 1 }).toArray(),
    code: 2,
  },
  {
    name: 'sort with limit gives the first documents of the order (ties in scan order)',
    seed: [...shuffled, { _id: 5, n: 20, k: 'c' }],
    run: async (c) => ids(await c.find().sort({ n: -1 }).skip(1).limit(3).toArray()),
    expected: [3, 2, 5],
  },
  {
    name: 'aggregate $sort then $limit gives the first documents of the order',
    seed: shuffled,
    run: async (c) => ids(await c.aggregate([{ $sort: { n: 1 } }, { $limit: 2 }, { $project: { _id: 1 } }]).toArray()),
    expected: [1, 2],
  },
  {
    name: 'aggregate $sort then $limit after another stage',
    seed: shuffled,
    run: async (c) => ids(await c.aggregate([{ $set: { m: { $multiply: ['$n', -1] } } }, { $sort: { m: 1 } }, { $limit: 3 }]).toArray()),
    expected: [4, 3, 2],
  },
  {
    name: 'a blocking sort past 100 MiB without allowDiskUse is 292, with a limit or allowDiskUse it answers',
    run: async (c) => {
      await seedLarge(c);
      return [
        // No projection: mongod would narrow the documents to the fields a pipeline needs before sorting.
        await codeOf(c.find({}, { allowDiskUse: false }).sort({ r: -1 }).toArray()),
        await codeOf(c.aggregate([{ $sort: { r: -1 } }], { allowDiskUse: false }).toArray()),
        await codeOf(c.aggregate([{ $set: { s: '$r' } }, { $sort: { s: -1 } }], { allowDiskUse: false }).toArray()),
        ids(await c.find({}, { allowDiskUse: false }).sort({ r: -1 }).limit(2).project({ _id: 1 }).toArray()),
        ids(await c.aggregate([{ $sort: { r: -1 } }, { $limit: 1 }, { $project: { _id: 1 } }], { allowDiskUse: false }).toArray()),
        // Sorting on _id walks the _id index: no blocking sort, no limit.
        ids(await c.find({}, { allowDiskUse: false }).sort({ _id: -1 }).project({ _id: 1 }).toArray()).length,
        (await c.find({}, { allowDiskUse: true }).sort({ r: -1 }).project({ _id: 1 }).toArray()).length,
      ];
    },
    expected: [292, 292, 292, [25, 24], [25], 26, 26],
  },
];

describeCompat('read order', cases);
