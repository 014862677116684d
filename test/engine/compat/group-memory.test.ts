import { describeCompat, type CompatCase, type LooseCollection } from './compat-cases.js';

/**
 * Memory bounds past the blocking sort: $group holds its groups and what
 * their accumulators keep, $bucketAuto sorts its input; past mongod's
 * 100 MiB without allowDiskUse both fail with
 * QueryExceededMemoryLimitNoDiskUseAllowed (292), with allowDiskUse they
 * answer, and a $group that keeps little answers either way. The seed is
 * 26 documents of 4 MiB each (104 MiB); every pipeline reads the big field,
 * so mongod cannot narrow the documents away.
 */

async function seedLarge(c: LooseCollection): Promise<void> {
  const big = 'x'.repeat(4 * 1024 * 1024);
  for (let i = 0; i < 26; i += 2) await c.insertMany([{ _id: i, r: i, big }, { _id: i + 1, r: i + 1, big }]);
}

const codeOf = (p: Promise<unknown>) => p.then(() => 'ok', (e: { code?: number }) => e.code ?? 'no code');

const cases: CompatCase[] = [
  {
    name: '$group and $bucketAuto past 100 MiB: 292 without allowDiskUse, answers with it; a small $group answers',
    run: async (c) => {
      await seedLarge(c);
      const noDisk = { allowDiskUse: false };
      return {
        groupFirst: await codeOf(c.aggregate([{ $group: { _id: '$r', big: { $first: '$big' } } }], noDisk).toArray()),
        groupPush: await codeOf(c.aggregate([{ $group: { _id: null, all: { $push: '$big' } } }, { $project: { n: { $size: '$all' } } }], noDisk).toArray()),
        groupFirstN: await codeOf(c.aggregate([{ $group: { _id: null, some: { $firstN: { input: '$big', n: 30 } } } }, { $project: { _id: 1 } }], noDisk).toArray()),
        bucketAuto: await codeOf(c.aggregate([{ $bucketAuto: { groupBy: '$r', buckets: 2, output: { big: { $first: '$big' } } } }, { $project: { big: 0 } }], noDisk).toArray()),
        small: await c.aggregate([{ $group: { _id: null, n: { $sum: 1 }, len: { $max: { $strLenCP: '$big' } } } }], noDisk).toArray(),
        withDisk: (await c.aggregate([{ $group: { _id: '$r', big: { $first: '$big' } } }, { $project: { _id: 1 } }], { allowDiskUse: true }).toArray()).length,
        bucketWithDisk: await c
          .aggregate([{ $bucketAuto: { groupBy: '$r', buckets: 2, output: { big: { $first: '$big' } } } }, { $project: { big: 0 } }], { allowDiskUse: true })
          .toArray(),
      };
    },
    expected: {
      groupFirst: 292,
      groupPush: 292,
      groupFirstN: 292,
      bucketAuto: 292,
      small: [{ _id: null, n: 26, len: 4 * 1024 * 1024 }],
      withDisk: 26,
      bucketWithDisk: [
        { _id: { min: 0, max: 13 } },
        { _id: { min: 13, max: 25 } },
      ],
    },
  },
];

describeCompat('group memory', cases);
