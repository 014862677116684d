import type { Db, Document } from 'mongodb';
import { Decimal128, Long } from 'mongodb';
import { describeCompat, type CompatCase, type LooseCollection } from './compat-cases.js';

/**
 * Aggregation stages and accumulators as a standalone mongod 7.0 answers
 * them: one case per stage option, refusals by their codes. Where mongod's
 * order is unspecified ($graphLookup's `as`, $sample, ties of $sortByCount)
 * the case sorts or compares sets.
 */

const employees = [
  { _id: 1, name: 'Dev', reportsTo: null },
  { _id: 2, name: 'Eliot', reportsTo: 'Dev' },
  { _id: 3, name: 'Ron', reportsTo: 'Eliot' },
  { _id: 4, name: 'Andrew', reportsTo: 'Eliot' },
  { _id: 5, name: 'Asya', reportsTo: 'Ron' },
  { _id: 6, name: 'Dan', reportsTo: 'Andrew' },
];

const scores = [
  { _id: 1, player: 'a', game: 'g1', score: 10, price: 5 },
  { _id: 2, player: 'b', game: 'g1', score: 30, price: 12 },
  { _id: 3, player: 'c', game: 'g1', score: 20, price: 25 },
  { _id: 4, player: 'd', game: 'g2', score: 5, price: 40 },
  { _id: 5, player: 'e', game: 'g2', score: 50, price: 63 },
  { _id: 6, player: 'f', game: 'g2', price: 100 },
];

/** A sibling collection of the case's collection, seeded. */
async function sibling(c: LooseCollection, db: Db, suffix: string, docs: Document[]): Promise<LooseCollection> {
  const other = db.collection<any>(`${c.collectionName}_${suffix}`);
  if (docs.length) await other.insertMany(docs);
  return other;
}

/** The graph of reports under each employee, names sorted, with depths. */
const reportsGraph = (extra: Document = {}) => [
  { $match: { name: 'Eliot' } },
  { $graphLookup: { from: '', startWith: '$name', connectFromField: 'name', connectToField: 'reportsTo', as: 'chain', ...extra } },
];

async function graph(c: LooseCollection, db: Db, extra: Document = {}): Promise<unknown> {
  const people = await sibling(c, db, 'people', employees);
  const pipeline = reportsGraph(extra);
  (pipeline[1]!.$graphLookup as Document).from = people.collectionName;
  const [doc] = await c.aggregate(pipeline).toArray();
  return (doc!.chain as Document[]).map((d) => [d.name, d.depth]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));
}

const graphLookupCases: CompatCase[] = [
  {
    name: '$graphLookup follows connectFromField to connectToField at every depth',
    seed: employees,
    run: (c, db) => graph(c, db, { depthField: 'depth' }),
    expected: [
      ['Andrew', 0],
      ['Asya', 1],
      ['Dan', 1],
      ['Ron', 0],
    ],
  },
  {
    name: '$graphLookup maxDepth 0 keeps the direct matches only',
    seed: employees,
    run: (c, db) => graph(c, db, { depthField: 'depth', maxDepth: 0 }),
    expected: [
      ['Andrew', 0],
      ['Ron', 0],
    ],
  },
  {
    name: '$graphLookup without depthField adds no depth',
    seed: employees,
    run: (c, db) => graph(c, db, { maxDepth: 0 }),
    expected: [
      ['Andrew', undefined],
      ['Ron', undefined],
    ],
  },
  {
    name: '$graphLookup restrictSearchWithMatch filters the searched documents (and stops the walk there)',
    seed: employees,
    run: (c, db) => graph(c, db, { depthField: 'depth', restrictSearchWithMatch: { name: { $ne: 'Ron' } } }),
    expected: [
      ['Andrew', 0],
      ['Dan', 1],
    ],
  },
  {
    name: '$graphLookup follows each element of an array connectFromField, each document once',
    seed: [{ _id: 0, start: 'a' }],
    run: async (c, db) => {
      const airports = await sibling(c, db, 'air', [
        { _id: 'a', to: ['b', 'c'] },
        { _id: 'b', to: ['c', 'a'] },
        { _id: 'c', to: ['d'] },
        { _id: 'd', to: [] },
      ]);
      const [doc] = await c
        .aggregate([
          {
            $graphLookup: { from: airports.collectionName, startWith: '$start', connectFromField: 'to', connectToField: '_id', as: 'trip', depthField: 'hops' },
          },
        ])
        .toArray();
      return (doc!.trip as Document[]).map((d) => [d._id, d.hops]).sort();
    },
    expected: [
      ['a', 0],
      ['b', 1],
      ['c', 1],
      ['d', 2],
    ],
  },
  {
    name: '$graphLookup depthField is a long',
    seed: [{ _id: 0, start: 'a' }],
    run: async (c, db) => {
      const nodes = await sibling(c, db, 'nodes', [{ _id: 'a' }]);
      const [doc] = await c
        .aggregate(
          [{ $graphLookup: { from: nodes.collectionName, startWith: '$start', connectFromField: 'x', connectToField: '_id', as: 'n', depthField: 'd' } }],
          { promoteLongs: false },
        )
        .toArray();
      return (doc!.n as Document[])[0]!.d instanceof Long;
    },
    expected: true,
  },
  {
    name: '$graphLookup startWith an array starts from each element',
    seed: [{ _id: 0, starts: ['Ron', 'Andrew'] }],
    run: async (c, db) => {
      const people = await sibling(c, db, 'people', employees);
      const [doc] = await c
        .aggregate([
          { $graphLookup: { from: people.collectionName, startWith: '$starts', connectFromField: 'name', connectToField: 'reportsTo', as: 'r', maxDepth: 0 } },
        ])
        .toArray();
      return (doc!.r as Document[]).map((d) => d.name).sort();
    },
    expected: ['Asya', 'Dan'],
  },
  {
    name: '$graphLookup over a missing collection gives empty arrays',
    seed: [{ _id: 1, x: 1 }],
    run: (c) => c.aggregate([{ $graphLookup: { from: 'nope', startWith: '$x', connectFromField: 'a', connectToField: 'b', as: 'r' } }]).toArray(),
    expected: [{ _id: 1, x: 1, r: [] }],
  },
  {
    name: '$graphLookup without connectToField is 40105',
    seed: [{ _id: 1 }],
    run: (c) => c.aggregate([{ $graphLookup: { from: 'x', startWith: '$a', connectFromField: 'a', as: 'r' } }]).toArray(),
    code: 40105,
  },
  {
    name: '$graphLookup with a negative maxDepth is 40101',
    seed: [{ _id: 1 }],
    run: (c) => c.aggregate([{ $graphLookup: { from: 'x', startWith: '$a', connectFromField: 'a', connectToField: 'b', as: 'r', maxDepth: -1 } }]).toArray(),
    code: 40101,
  },
  {
    name: '$graphLookup with a non-numeric maxDepth is 40100',
    seed: [{ _id: 1 }],
    run: (c) => c.aggregate([{ $graphLookup: { from: 'x', startWith: '$a', connectFromField: 'a', connectToField: 'b', as: 'r', maxDepth: 'x' } }]).toArray(),
    code: 40100,
  },
  {
    name: '$graphLookup with a fractional maxDepth is 40102',
    seed: [{ _id: 1 }],
    run: (c) => c.aggregate([{ $graphLookup: { from: 'x', startWith: '$a', connectFromField: 'a', connectToField: 'b', as: 'r', maxDepth: 1.5 } }]).toArray(),
    code: 40102,
  },
  {
    name: '$graphLookup with a non-string connectFromField is 40103',
    seed: [{ _id: 1 }],
    run: (c) => c.aggregate([{ $graphLookup: { from: 'x', startWith: '$a', connectFromField: 1, connectToField: 'b', as: 'r' } }]).toArray(),
    code: 40103,
  },
  {
    name: '$graphLookup with an unknown option is 40104',
    seed: [{ _id: 1 }],
    run: (c) => c.aggregate([{ $graphLookup: { from: 'x', startWith: '$a', connectFromField: 'a', connectToField: 'b', as: 'r', bogus: 1 } }]).toArray(),
    code: 40104,
  },
  {
    name: '$graphLookup with a non-object restrictSearchWithMatch is 40185',
    seed: [{ _id: 1 }],
    run: (c) =>
      c.aggregate([{ $graphLookup: { from: 'x', startWith: '$a', connectFromField: 'a', connectToField: 'b', as: 'r', restrictSearchWithMatch: 1 } }]).toArray(),
    code: 40185,
  },
];

const bucketCases: CompatCase[] = [
  {
    name: '$bucket counts per boundary range by default, sorted by _id',
    seed: scores,
    run: (c) => c.aggregate([{ $bucket: { groupBy: '$price', boundaries: [0, 20, 50], default: 'Other' } }]).toArray(),
    expected: [
      { _id: 0, count: 2 },
      { _id: 20, count: 2 },
      { _id: 'Other', count: 2 },
    ],
  },
  {
    name: '$bucket output accumulators replace the default count',
    seed: scores,
    run: (c) =>
      c
        .aggregate([{ $bucket: { groupBy: '$price', boundaries: [0, 50, 200], output: { players: { $push: '$player' }, total: { $sum: '$price' } } } }])
        .toArray(),
    expected: [
      { _id: 0, players: ['a', 'b', 'c', 'd'], total: 82 },
      { _id: 50, players: ['e', 'f'], total: 163 },
    ],
  },
  {
    name: '$bucket sends missing and non-matching values to a numeric default below the boundaries',
    seed: [{ _id: 1, v: 5 }, { _id: 2 }, { _id: 3, v: 'x' }],
    run: (c) => c.aggregate([{ $bucket: { groupBy: '$v', boundaries: [0, 10], default: -1 } }]).toArray(),
    expected: [
      { _id: -1, count: 2 },
      { _id: 0, count: 1 },
    ],
  },
  {
    name: '$bucket with a value outside the boundaries and no default is 40066',
    seed: scores,
    run: (c) => c.aggregate([{ $bucket: { groupBy: '$price', boundaries: [0, 20] } }]).toArray(),
    code: 40066,
  },
  {
    name: '$bucket with a single boundary is 40192',
    seed: scores,
    run: (c) => c.aggregate([{ $bucket: { groupBy: '$price', boundaries: [0] } }]).toArray(),
    code: 40192,
  },
  {
    name: '$bucket with unsorted boundaries is 40194',
    seed: scores,
    run: (c) => c.aggregate([{ $bucket: { groupBy: '$price', boundaries: [10, 0] } }]).toArray(),
    code: 40194,
  },
  {
    name: '$bucket with boundaries of mixed types is 40193',
    seed: scores,
    run: (c) => c.aggregate([{ $bucket: { groupBy: '$price', boundaries: [0, 'a'] } }]).toArray(),
    code: 40193,
  },
  {
    name: '$bucket boundaries may mix numeric types',
    seed: scores,
    run: (c) => c.aggregate([{ $bucket: { groupBy: '$price', boundaries: [0, Long.fromNumber(50), 200.5] } }]).toArray(),
    expected: [
      { _id: 0, count: 4 },
      { _id: 50, count: 2 },
    ],
  },
  {
    name: '$bucket with a default inside the boundaries is 40199',
    seed: scores,
    run: (c) => c.aggregate([{ $bucket: { groupBy: '$price', boundaries: [0, 100], default: 50 } }]).toArray(),
    code: 40199,
  },
  {
    name: '$bucket without boundaries is 40198',
    seed: scores,
    run: (c) => c.aggregate([{ $bucket: { groupBy: '$price' } }]).toArray(),
    code: 40198,
  },
  {
    name: '$bucket with a groupBy that is no path or expression is 40202',
    seed: scores,
    run: (c) => c.aggregate([{ $bucket: { groupBy: 'price', boundaries: [0, 1] } }]).toArray(),
    code: 40202,
  },
  {
    name: '$bucket with boundaries that are not an array is 40200',
    seed: scores,
    run: (c) => c.aggregate([{ $bucket: { groupBy: '$price', boundaries: 1 } }]).toArray(),
    code: 40200,
  },
  {
    name: '$bucket with a non-object output is 40196',
    seed: scores,
    run: (c) => c.aggregate([{ $bucket: { groupBy: '$price', boundaries: [0, 1], output: 1 } }]).toArray(),
    code: 40196,
  },
  {
    name: '$bucket with an unknown option is 40197',
    seed: scores,
    run: (c) => c.aggregate([{ $bucket: { groupBy: '$price', boundaries: [0, 1], bogus: 1 } }]).toArray(),
    code: 40197,
  },
  {
    name: '$bucket that is not an object is 40201',
    seed: scores,
    run: (c) => c.aggregate([{ $bucket: 1 }]).toArray(),
    code: 40201,
  },
];

const bucketAutoCases: CompatCase[] = [
  {
    name: '$bucketAuto splits sorted values into even buckets; a max is the next min, the last inclusive',
    seed: scores,
    run: (c) => c.aggregate([{ $bucketAuto: { groupBy: '$price', buckets: 3 } }]).toArray(),
    expected: [
      { _id: { min: 5, max: 25 }, count: 2 },
      { _id: { min: 25, max: 63 }, count: 2 },
      { _id: { min: 63, max: 100 }, count: 2 },
    ],
  },
  {
    name: '$bucketAuto keeps equal values in one bucket',
    seed: [1, 1, 1, 1, 2, 3].map((v, i) => ({ _id: i, v })),
    run: (c) => c.aggregate([{ $bucketAuto: { groupBy: '$v', buckets: 3 } }]).toArray(),
    expected: [
      { _id: { min: 1, max: 2 }, count: 4 },
      { _id: { min: 2, max: 3 }, count: 2 },
    ],
  },
  {
    name: '$bucketAuto makes fewer buckets when there are fewer documents',
    seed: [{ _id: 1, v: 1 }, { _id: 2, v: 2 }],
    run: (c) => c.aggregate([{ $bucketAuto: { groupBy: '$v', buckets: 5 } }]).toArray(),
    expected: [
      { _id: { min: 1, max: 2 }, count: 1 },
      { _id: { min: 2, max: 2 }, count: 1 },
    ],
  },
  {
    name: '$bucketAuto output accumulators',
    seed: scores,
    run: (c) => c.aggregate([{ $bucketAuto: { groupBy: '$price', buckets: 2, output: { players: { $push: '$player' }, top: { $max: '$score' } } } }]).toArray(),
    expected: [
      { _id: { min: 5, max: 40 }, players: ['a', 'b', 'c'], top: 30 },
      { _id: { min: 40, max: 100 }, players: ['d', 'e', 'f'], top: 50 },
    ],
  },
  {
    name: '$bucketAuto granularity R5 rounds the edges to the Renard series',
    seed: scores,
    run: (c) => c.aggregate([{ $bucketAuto: { groupBy: '$price', buckets: 3, granularity: 'R5' } }]).toArray(),
    expected: [
      { _id: { min: 4, max: 16 }, count: 2 },
      { _id: { min: 16, max: 63 }, count: 2 },
      { _id: { min: 63, max: 160 }, count: 2 },
    ],
  },
  {
    name: '$bucketAuto granularity POWERSOF2',
    seed: scores,
    run: (c) => c.aggregate([{ $bucketAuto: { groupBy: '$price', buckets: 2, granularity: 'POWERSOF2' } }]).toArray(),
    expected: [
      { _id: { min: 4, max: 32 }, count: 3 },
      { _id: { min: 32, max: 128 }, count: 3 },
    ],
  },
  {
    name: '$bucketAuto granularity 1-2-5',
    seed: scores,
    run: (c) => c.aggregate([{ $bucketAuto: { groupBy: '$price', buckets: 2, granularity: '1-2-5' } }]).toArray(),
    expected: [
      { _id: { min: 2, max: 50 }, count: 4 },
      { _id: { min: 50, max: 200 }, count: 2 },
    ],
  },
  {
    name: '$bucketAuto granularity E6',
    seed: scores,
    run: (c) => c.aggregate([{ $bucketAuto: { groupBy: '$price', buckets: 2, granularity: 'E6' } }]).toArray(),
    expected: [
      { _id: { min: 4.7, max: 33 }, count: 3 },
      { _id: { min: 33, max: 150 }, count: 3 },
    ],
  },
  {
    name: '$bucketAuto with an unknown granularity is 40257',
    seed: scores,
    run: (c) => c.aggregate([{ $bucketAuto: { groupBy: '$price', buckets: 2, granularity: 'R7' } }]).toArray(),
    code: 40257,
  },
  {
    name: '$bucketAuto granularity over a non-numeric value is 40258',
    seed: [{ _id: 1, v: 'x' }],
    run: (c) => c.aggregate([{ $bucketAuto: { groupBy: '$v', buckets: 2, granularity: 'R5' } }]).toArray(),
    code: 40258,
  },
  {
    name: '$bucketAuto granularity over a negative value is 40260',
    seed: [{ _id: 1, v: -1 }],
    run: (c) => c.aggregate([{ $bucketAuto: { groupBy: '$v', buckets: 2, granularity: 'R5' } }]).toArray(),
    code: 40260,
  },
  {
    name: '$bucketAuto with zero buckets is 40243',
    seed: scores,
    run: (c) => c.aggregate([{ $bucketAuto: { groupBy: '$price', buckets: 0 } }]).toArray(),
    code: 40243,
  },
  {
    name: '$bucketAuto with fractional buckets is 40242',
    seed: scores,
    run: (c) => c.aggregate([{ $bucketAuto: { groupBy: '$price', buckets: 1.5 } }]).toArray(),
    code: 40242,
  },
  {
    name: '$bucketAuto with non-numeric buckets is 40241',
    seed: scores,
    run: (c) => c.aggregate([{ $bucketAuto: { groupBy: '$price', buckets: 'x' } }]).toArray(),
    code: 40241,
  },
  {
    name: '$bucketAuto without buckets is 40246',
    seed: scores,
    run: (c) => c.aggregate([{ $bucketAuto: { groupBy: '$price' } }]).toArray(),
    code: 40246,
  },
  {
    name: '$bucketAuto with an unknown option is 40245',
    seed: scores,
    run: (c) => c.aggregate([{ $bucketAuto: { groupBy: '$price', buckets: 2, bogus: 1 } }]).toArray(),
    code: 40245,
  },
  {
    name: '$bucketAuto with a groupBy that is no path is 40239',
    seed: scores,
    run: (c) => c.aggregate([{ $bucketAuto: { groupBy: 'price', buckets: 2 } }]).toArray(),
    code: 40239,
  },
];

const simpleStageCases: CompatCase[] = [
  {
    name: '$sortByCount groups by the expression and sorts by count descending',
    seed: [{ _id: 1, t: 'x' }, { _id: 2, t: 'y' }, { _id: 3, t: 'x' }, { _id: 4, t: 'x' }, { _id: 5, t: 'z' }, { _id: 6, t: 'z' }],
    run: (c) => c.aggregate([{ $sortByCount: '$t' }]).toArray(),
    expected: [
      { _id: 'x', count: 3 },
      { _id: 'z', count: 2 },
      { _id: 'y', count: 1 },
    ],
  },
  {
    name: '$sortByCount takes an expression object',
    seed: [{ _id: 1, n: 1 }, { _id: 2, n: 2 }, { _id: 3, n: 3 }],
    run: (c) => c.aggregate([{ $sortByCount: { $mod: ['$n', 2] } }]).toArray(),
    expected: [
      { _id: 1, count: 2 },
      { _id: 0, count: 1 },
    ],
  },
  {
    name: '$sortByCount with a plain string is 40148',
    seed: [{ _id: 1 }],
    run: (c) => c.aggregate([{ $sortByCount: 't' }]).toArray(),
    code: 40148,
  },
  {
    name: '$sortByCount with a non-expression object is 40147',
    seed: [{ _id: 1 }],
    run: (c) => c.aggregate([{ $sortByCount: { a: 1 } }]).toArray(),
    code: 40147,
  },
  {
    name: '$sortByCount with a number is 40149',
    seed: [{ _id: 1 }],
    run: (c) => c.aggregate([{ $sortByCount: 1 }]).toArray(),
    code: 40149,
  },
  {
    name: '$replaceWith promotes a sub-document',
    seed: [{ _id: 1, inner: { a: 1, b: 2 } }],
    run: (c) => c.aggregate([{ $replaceWith: '$inner' }]).toArray(),
    expected: [{ a: 1, b: 2 }],
  },
  {
    name: '$replaceWith takes an expression',
    seed: [{ _id: 1, a: 1, b: { c: 2 } }],
    run: (c) => c.aggregate([{ $replaceWith: { $mergeObjects: [{ a: '$a' }, '$b'] } }]).toArray(),
    expected: [{ a: 1, c: 2 }],
  },
  {
    name: '$replaceWith of a non-document is 40228',
    seed: [{ _id: 1, a: 1 }],
    run: (c) => c.aggregate([{ $replaceWith: '$a' }]).toArray(),
    code: 40228,
  },
  {
    name: '$sample returns size distinct documents of the collection',
    seed: Array.from({ length: 20 }, (_, i) => ({ _id: i })),
    run: async (c) => {
      const docs = await c.aggregate([{ $sample: { size: 5 } }]).toArray();
      const ids = docs.map((d) => d._id as number);
      return { n: ids.length, distinct: new Set(ids).size, valid: ids.every((id) => id >= 0 && id < 20) };
    },
    expected: { n: 5, distinct: 5, valid: true },
  },
  {
    name: '$sample larger than the collection returns every document once',
    seed: Array.from({ length: 4 }, (_, i) => ({ _id: i })),
    run: async (c) => (await c.aggregate([{ $sample: { size: 10 } }]).toArray()).map((d) => d._id).sort(),
    expected: [0, 1, 2, 3],
  },
  {
    name: '$sample size 0 is 28747',
    seed: [{ _id: 1 }],
    run: (c) => c.aggregate([{ $sample: { size: 0 } }]).toArray(),
    code: 28747,
  },
  {
    name: '$sample with a negative size is 28747',
    seed: [{ _id: 1 }],
    run: (c) => c.aggregate([{ $sample: { size: -1 } }]).toArray(),
    code: 28747,
  },
  {
    name: '$sample without size is 28749',
    seed: [{ _id: 1 }],
    run: (c) => c.aggregate([{ $sample: {} }]).toArray(),
    code: 28749,
  },
  {
    name: '$sample with a non-numeric size is 28746',
    seed: [{ _id: 1 }],
    run: (c) => c.aggregate([{ $sample: { size: 'x' } }]).toArray(),
    code: 28746,
  },
  {
    name: '$sample with an unknown option is 28748',
    seed: [{ _id: 1 }],
    run: (c) => c.aggregate([{ $sample: { size: 1, x: 1 } }]).toArray(),
    code: 28748,
  },
  {
    name: '$sample that is not an object is 28745',
    seed: [{ _id: 1 }],
    run: (c) => c.aggregate([{ $sample: 1 }]).toArray(),
    code: 28745,
  },
  {
    name: '$redact descends, prunes and keeps by level',
    seed: [{ _id: 1, level: 1, a: { level: 2, x: 1 }, b: [{ level: 1, y: 1 }, { level: 3 }], c: 5 }],
    run: (c) =>
      c.aggregate([{ $redact: { $cond: { if: { $lte: ['$level', 1] }, then: '$$DESCEND', else: '$$PRUNE' } } }]).toArray(),
    expected: [{ _id: 1, level: 1, b: [{ level: 1, y: 1 }], c: 5 }],
  },
  {
    name: '$redact $$KEEP keeps the whole document',
    seed: [{ _id: 1, a: { level: 9 } }],
    run: (c) => c.aggregate([{ $redact: '$$KEEP' }]).toArray(),
    expected: [{ _id: 1, a: { level: 9 } }],
  },
  {
    name: '$redact returning another value is 17053',
    seed: [{ _id: 1 }],
    run: (c) => c.aggregate([{ $redact: 'x' }]).toArray(),
    code: 17053,
  },
];

const unionWithCases: CompatCase[] = [
  {
    name: '$unionWith a collection name appends its documents',
    seed: [{ _id: 1, s: 'a' }],
    run: async (c, db) => {
      const other = await sibling(c, db, 'u', [{ _id: 2, s: 'b' }]);
      return c.aggregate([{ $unionWith: other.collectionName }]).toArray();
    },
    expected: [
      { _id: 1, s: 'a' },
      { _id: 2, s: 'b' },
    ],
  },
  {
    name: '$unionWith {coll, pipeline} runs the pipeline over the other collection',
    seed: [{ _id: 1, s: 'a' }],
    run: async (c, db) => {
      const other = await sibling(c, db, 'u', [{ _id: 2, s: 'b' }, { _id: 3, s: 'c' }]);
      return c.aggregate([{ $unionWith: { coll: other.collectionName, pipeline: [{ $match: { s: 'c' } }, { $project: { _id: 0 } }] } }]).toArray();
    },
    expected: [{ _id: 1, s: 'a' }, { s: 'c' }],
  },
  {
    name: '$unionWith reads a view through its pipeline',
    seed: [{ _id: 1, s: 'a' }],
    run: async (c, db) => {
      const base = await sibling(c, db, 'base', [{ _id: 2, s: 'b', hidden: true }, { _id: 3, s: 'c' }]);
      await db.createCollection(`${c.collectionName}_view`, { viewOn: base.collectionName, pipeline: [{ $match: { hidden: { $ne: true } } }] });
      return c.aggregate([{ $unionWith: `${c.collectionName}_view` }]).toArray();
    },
    expected: [
      { _id: 1, s: 'a' },
      { _id: 3, s: 'c' },
    ],
  },
  {
    name: '$unionWith with only a $documents pipeline',
    seed: [{ _id: 1 }],
    run: (c) => c.aggregate([{ $unionWith: { pipeline: [{ $documents: [{ x: 1 }] }] } }]).toArray(),
    expected: [{ _id: 1 }, { x: 1 }],
  },
  {
    name: '$unionWith of a missing collection adds nothing',
    seed: [{ _id: 1 }],
    run: (c) => c.aggregate([{ $unionWith: 'missing_coll' }]).toArray(),
    expected: [{ _id: 1 }],
  },
  {
    name: '$unionWith without coll and $documents is 40414',
    seed: [{ _id: 1 }],
    run: (c) => c.aggregate([{ $unionWith: { pipeline: [] } }]).toArray(),
    code: 40414,
  },
  {
    name: '$unionWith with an unknown field is 40415',
    seed: [{ _id: 1 }],
    run: (c) => c.aggregate([{ $unionWith: { coll: 'x', bogus: 1 } }]).toArray(),
    code: 40415,
  },
  {
    name: '$unionWith that is a number is FailedToParse',
    seed: [{ _id: 1 }],
    run: (c) => c.aggregate([{ $unionWith: 1 }]).toArray(),
    code: 9,
  },
  {
    name: '$unionWith with $out in its pipeline is 31441',
    seed: [{ _id: 1 }],
    run: (c) => c.aggregate([{ $unionWith: { coll: 'x', pipeline: [{ $out: 'y' }] } }]).toArray(),
    code: 31441,
  },
];

const outMergeCases: CompatCase[] = [
  {
    name: '$out to another database',
    seed: [{ _id: 1, a: 1 }],
    run: async (c, db) => {
      const otherDb = db.client.db(`${db.databaseName}_out`);
      try {
        await c.aggregate([{ $out: { db: otherDb.databaseName, coll: 'copy' } }]).toArray();
        return await otherDb.collection('copy').find().toArray();
      } finally {
        await otherDb.dropDatabase();
      }
    },
    expected: [{ _id: 1, a: 1 }],
  },
  {
    name: '$out that fails on a unique index leaves the target as it was',
    seed: [{ _id: 1, k: 1 }, { _id: 2, k: 1 }],
    run: async (c, db) => {
      const target = await sibling(c, db, 'out', [{ _id: 'old', k: 9 }]);
      await target.createIndex({ k: 1 }, { unique: true });
      const err = await c.aggregate([{ $out: target.collectionName }]).toArray().then(
        () => undefined,
        (e: { code?: number }) => e.code,
      );
      return { err, docs: await target.find().toArray() };
    },
    expected: { err: 11000, docs: [{ _id: 'old', k: 9 }] },
  },
  {
    name: '$out into a view is 166',
    seed: [{ _id: 1 }],
    run: async (c, db) => {
      await db.createCollection(`${c.collectionName}_v`, { viewOn: c.collectionName, pipeline: [] });
      return c.aggregate([{ $out: `${c.collectionName}_v` }]).toArray();
    },
    code: 166,
  },
  {
    name: '$merge on a field with a unique index matches by that field',
    seed: [{ _id: 1, sku: 'a', qty: 5 }, { _id: 2, sku: 'b', qty: 1 }],
    run: async (c, db) => {
      const target = await sibling(c, db, 'm', [{ _id: 'x', sku: 'a', qty: 0, note: 'kept' }]);
      await target.createIndex({ sku: 1 }, { unique: true });
      await c.aggregate([{ $project: { _id: 0, sku: 1, qty: 1 } }, { $merge: { into: target.collectionName, on: 'sku' } }]).toArray();
      return (await target.find({}, { projection: { _id: 0 } }).sort({ sku: 1 }).toArray());
    },
    expected: [
      { sku: 'a', qty: 5, note: 'kept' },
      { sku: 'b', qty: 1 },
    ],
  },
  {
    name: '$merge on a field without a unique index is 51183',
    seed: [{ _id: 1, sku: 'a' }],
    run: async (c, db) => {
      const target = await sibling(c, db, 'm', [{ _id: 'x', sku: 'a' }]);
      await target.createIndex({ sku: 1 });
      return c.aggregate([{ $project: { _id: 0, sku: 1 } }, { $merge: { into: target.collectionName, on: 'sku' } }]).toArray();
    },
    code: 51183,
  },
  {
    name: '$merge on a field into a missing collection is 51183',
    seed: [{ _id: 1, sku: 'a' }],
    run: (c) => c.aggregate([{ $merge: { into: `${c.collectionName}_none`, on: 'sku' } }]).toArray(),
    code: 51183,
  },
  {
    name: '$merge with a result missing the on field is 51132',
    seed: [{ _id: 1 }],
    run: async (c, db) => {
      const target = await sibling(c, db, 'm', []);
      await target.createIndex({ sku: 1 }, { unique: true });
      return c.aggregate([{ $merge: { into: target.collectionName, on: 'sku' } }]).toArray();
    },
    code: 51132,
  },
  {
    name: '$merge whenMatched replace replaces the matched document',
    seed: [{ _id: 1, a: 2 }],
    run: async (c, db) => {
      const target = await sibling(c, db, 'm', [{ _id: 1, a: 1, b: 1 }]);
      await c.aggregate([{ $merge: { into: target.collectionName, whenMatched: 'replace' } }]).toArray();
      return target.find().toArray();
    },
    expected: [{ _id: 1, a: 2 }],
  },
  {
    name: '$merge whenMatched with a pipeline updates using $$new',
    seed: [{ _id: 1, n: 5 }],
    run: async (c, db) => {
      const target = await sibling(c, db, 'm', [{ _id: 1, n: 1 }]);
      await c.aggregate([{ $merge: { into: target.collectionName, whenMatched: [{ $set: { n: { $add: ['$n', '$$new.n'] } } }] } }]).toArray();
      return target.find().toArray();
    },
    expected: [{ _id: 1, n: 6 }],
  },
  {
    name: '$merge whenMatched pipeline with let variables',
    seed: [{ _id: 1, n: 5 }],
    run: async (c, db) => {
      const target = await sibling(c, db, 'm', [{ _id: 1, n: 1 }]);
      await c
        .aggregate([{ $merge: { into: target.collectionName, let: { add: '$n' }, whenMatched: [{ $set: { n: { $add: ['$n', '$$add'] } } }] } }])
        .toArray();
      return target.find().toArray();
    },
    expected: [{ _id: 1, n: 6 }],
  },
  {
    name: '$merge whenNotMatched fail is 13113',
    seed: [{ _id: 1 }],
    run: async (c, db) => {
      const target = await sibling(c, db, 'm', []);
      return c.aggregate([{ $merge: { into: target.collectionName, whenMatched: 'merge', whenNotMatched: 'fail' } }]).toArray();
    },
    code: 13113,
  },
  {
    name: '$merge whenNotMatched insert into another database',
    seed: [{ _id: 1, a: 1 }],
    run: async (c, db) => {
      const otherDb = db.client.db(`${db.databaseName}_merge`);
      try {
        await c.aggregate([{ $merge: { into: { db: otherDb.databaseName, coll: 'm' } } }]).toArray();
        return await otherDb.collection('m').find().toArray();
      } finally {
        await otherDb.dropDatabase();
      }
    },
    expected: [{ _id: 1, a: 1 }],
  },
  {
    name: '$merge replacing a matched document with another _id is 66',
    seed: [{ _id: 1, sku: 'a' }],
    run: async (c, db) => {
      const target = await sibling(c, db, 'm', [{ _id: 'x', sku: 'a' }]);
      await target.createIndex({ sku: 1 }, { unique: true });
      return c.aggregate([{ $merge: { into: target.collectionName, on: 'sku', whenMatched: 'replace' } }]).toArray();
    },
    code: 66,
  },
  {
    name: '$merge with an unknown whenNotMatched is BadValue',
    seed: [{ _id: 1 }],
    run: (c) => c.aggregate([{ $merge: { into: 'x', whenNotMatched: 'bogus' } }]).toArray(),
    code: 2,
  },
];

const mingoStageCases: CompatCase[] = [
  {
    name: '$densify fills numeric gaps by step over the full range',
    seed: [{ _id: 1, v: 1 }, { _id: 2, v: 4 }],
    run: async (c) => (await c.aggregate([{ $densify: { field: 'v', range: { step: 1, bounds: 'full' } } }, { $project: { _id: 0, v: 1 } }]).toArray()),
    expected: [{ v: 1 }, { v: 2 }, { v: 3 }, { v: 4 }],
  },
  {
    name: '$fill with a value and locf',
    seed: [{ _id: 1, t: 1, a: 1, b: 'x' }, { _id: 2, t: 2 }, { _id: 3, t: 3, a: 3 }],
    run: (c) => c.aggregate([{ $fill: { sortBy: { t: 1 }, output: { a: { method: 'locf' }, b: { value: 'none' } } } }, { $project: { _id: 0, t: 0 } }]).toArray(),
    expected: [
      { a: 1, b: 'x' },
      { a: 1, b: 'none' },
      { a: 3, b: 'none' },
    ],
  },
  {
    name: '$setWindowFields running sum per partition',
    seed: scores,
    run: (c) =>
      c
        .aggregate([
          { $match: { score: { $exists: true } } },
          {
            $setWindowFields: {
              partitionBy: '$game',
              sortBy: { score: 1 },
              output: { running: { $sum: '$score', window: { documents: ['unbounded', 'current'] } }, rank: { $rank: {} } },
            },
          },
          { $project: { _id: 0, player: 1, running: 1, rank: 1 } },
          { $sort: { player: 1 } },
        ])
        .toArray(),
    expected: [
      { player: 'a', running: 10, rank: 1 },
      { player: 'b', running: 60, rank: 3 },
      { player: 'c', running: 30, rank: 2 },
      { player: 'd', running: 5, rank: 1 },
      { player: 'e', running: 55, rank: 2 },
    ],
  },
  {
    name: '$documents in a {aggregate: 1} pipeline feeds later stages',
    run: (_c, db) => db.aggregate([{ $documents: [{ a: 3 }, { a: 1 }] }, { $sort: { a: 1 } }]).toArray(),
    expected: [{ a: 1 }, { a: 3 }],
  },
];

const accumulatorCases: CompatCase[] = [
  {
    name: '$max and $min of a list of expressions: null and missing left out, an array compared as a value',
    seed: [{ _id: 1, n: 3, arr: [1, 9] }],
    run: (c) =>
      c
        .aggregate([
          {
            $project: {
              _id: 0,
              maxMissing: { $max: ['$nope', 5] },
              minMissing: { $min: ['$nope', 5, '$n'] },
              maxNull: { $max: [null, '$nope'] },
              maxArray: { $max: ['$arr', 100] },
              minString: { $min: ['b', 'a', '$n'] },
            },
          },
        ])
        .toArray(),
    expected: [{ maxMissing: 5, minMissing: 3, maxNull: null, maxArray: [1, 9], minString: 3 }],
  },
  {
    name: 'an upsert by pipeline update takes $max of a missing field and a value as the value',
    run: async (c) => {
      await c.updateOne({ _id: 'w' }, [{ $set: { at: { $max: ['$at', 7] } } }], { upsert: true });
      return c.find({}).toArray();
    },
    expected: [{ _id: 'w', at: 7 }],
  },
  {
    name: '$group $first $last $min $max $avg $push $addToSet $count',
    seed: scores,
    run: (c) =>
      c
        .aggregate([
          { $sort: { _id: 1 } },
          {
            $group: {
              _id: '$game',
              first: { $first: '$player' },
              last: { $last: '$player' },
              min: { $min: '$score' },
              max: { $max: '$score' },
              avg: { $avg: '$score' },
              scores: { $push: '$score' },
              games: { $addToSet: '$game' },
              n: { $count: {} },
            },
          },
          { $sort: { _id: 1 } },
        ])
        .toArray(),
    expected: [
      { _id: 'g1', first: 'a', last: 'c', min: 10, max: 30, avg: 20, scores: [10, 30, 20], games: ['g1'], n: 3 },
      { _id: 'g2', first: 'd', last: 'f', min: 5, max: 50, avg: 27.5, scores: [5, 50], games: ['g2'], n: 3 },
    ],
  },
  {
    name: '$group $mergeObjects',
    seed: [{ _id: 1, g: 1, o: { a: 1 } }, { _id: 2, g: 1, o: { b: 2, a: 3 } }],
    run: (c) => c.aggregate([{ $sort: { _id: 1 } }, { $group: { _id: '$g', o: { $mergeObjects: '$o' } } }]).toArray(),
    expected: [{ _id: 1, o: { a: 3, b: 2 } }],
  },
  {
    name: '$group $stdDevPop and $stdDevSamp (non-numbers ignored)',
    seed: [{ _id: 1, v: 2 }, { _id: 2, v: 4 }, { _id: 3, v: 4 }, { _id: 4, v: 4 }, { _id: 5, v: 5 }, { _id: 6, v: 5 }, { _id: 7, v: 7 }, { _id: 8, v: 9 }, { _id: 9, v: 'x' }],
    run: async (c) => {
      const [r] = await c.aggregate([{ $group: { _id: null, pop: { $stdDevPop: '$v' }, samp: { $stdDevSamp: '$v' } } }]).toArray();
      return { pop: r!.pop, samp: Math.round((r!.samp as number) * 1e6) / 1e6 };
    },
    expected: { pop: 2, samp: 2.13809 },
  },
  {
    name: '$stdDevSamp of a single value is null',
    seed: [{ _id: 1, v: 2 }],
    run: (c) => c.aggregate([{ $group: { _id: null, s: { $stdDevSamp: '$v' } } }]).toArray(),
    expected: [{ _id: null, s: null }],
  },
  {
    name: '$group $top and $bottom by sortBy',
    seed: scores,
    run: (c) =>
      c
        .aggregate([
          { $group: { _id: '$game', top: { $top: { sortBy: { score: -1 }, output: '$player' } }, bottom: { $bottom: { sortBy: { score: -1 }, output: ['$player', '$score'] } } } },
          { $sort: { _id: 1 } },
        ])
        .toArray(),
    expected: [
      { _id: 'g1', top: 'b', bottom: ['a', 10] },
      { _id: 'g2', top: 'e', bottom: ['f', null] },
    ],
  },
  {
    name: '$group $topN and $bottomN',
    seed: scores,
    run: (c) =>
      c
        .aggregate([
          { $group: { _id: '$game', topN: { $topN: { n: 2, sortBy: { score: -1 }, output: '$player' } }, bottomN: { $bottomN: { n: 2, sortBy: { score: -1 }, output: '$player' } } } },
          { $sort: { _id: 1 } },
        ])
        .toArray(),
    expected: [
      { _id: 'g1', topN: ['b', 'c'], bottomN: ['c', 'a'] },
      { _id: 'g2', topN: ['e', 'd'], bottomN: ['d', 'f'] },
    ],
  },
  {
    name: '$group $firstN and $lastN keep nulls for missing values',
    seed: scores,
    run: (c) =>
      c
        .aggregate([
          { $sort: { _id: 1 } },
          { $group: { _id: '$game', firstN: { $firstN: { input: '$score', n: 2 } }, lastN: { $lastN: { input: '$score', n: 2 } } } },
          { $sort: { _id: 1 } },
        ])
        .toArray(),
    expected: [
      { _id: 'g1', firstN: [10, 30], lastN: [30, 20] },
      { _id: 'g2', firstN: [5, 50], lastN: [50, null] },
    ],
  },
  {
    name: '$group $maxN and $minN skip nulls, ordered',
    seed: scores,
    run: (c) =>
      c
        .aggregate([
          { $group: { _id: '$game', maxN: { $maxN: { input: '$score', n: 2 } }, minN: { $minN: { input: '$score', n: 5 } } } },
          { $sort: { _id: 1 } },
        ])
        .toArray(),
    expected: [
      { _id: 'g1', maxN: [30, 20], minN: [10, 20, 30] },
      { _id: 'g2', maxN: [50, 5], minN: [5, 50] },
    ],
  },
  {
    name: '$firstN with n 0 is 5787908',
    seed: scores,
    run: (c) => c.aggregate([{ $group: { _id: null, x: { $firstN: { input: '$score', n: 0 } } } }]).toArray(),
    code: 5787908,
  },
  {
    name: '$maxN with a fractional n is 5787903',
    seed: scores,
    run: (c) => c.aggregate([{ $group: { _id: null, x: { $maxN: { input: '$score', n: 1.5 } } } }]).toArray(),
    code: 5787903,
  },
  {
    name: '$minN without input is 5787907',
    seed: scores,
    run: (c) => c.aggregate([{ $group: { _id: null, x: { $minN: { n: 1 } } } }]).toArray(),
    code: 5787907,
  },
  {
    name: '$lastN with an unknown argument is 5787901',
    seed: scores,
    run: (c) => c.aggregate([{ $group: { _id: null, x: { $lastN: { n: 1, input: '$a', x: 1 } } } }]).toArray(),
    code: 5787901,
  },
  {
    name: '$topN without sortBy is 5788005',
    seed: scores,
    run: (c) => c.aggregate([{ $group: { _id: null, x: { $topN: { n: 1, output: '$a' } } } }]).toArray(),
    code: 5788005,
  },
  {
    name: '$top without output is 5788004',
    seed: scores,
    run: (c) => c.aggregate([{ $group: { _id: null, x: { $top: { sortBy: { a: 1 } } } } }]).toArray(),
    code: 5788004,
  },
  {
    name: '$top with n is 5788002',
    seed: scores,
    run: (c) => c.aggregate([{ $group: { _id: null, x: { $top: { n: 1, sortBy: { a: 1 }, output: '$a' } } } }]).toArray(),
    code: 5788002,
  },
  {
    name: '$bottomN without n is 5788003',
    seed: scores,
    run: (c) => c.aggregate([{ $group: { _id: null, x: { $bottomN: { sortBy: { a: 1 }, output: '$a' } } } }]).toArray(),
    code: 5788003,
  },
  {
    name: '$sum keeps a Long total and $avg of decimals is a Decimal128',
    seed: [{ _id: 1, l: Long.fromNumber(2 ** 40), d: Decimal128.fromString('1.1') }, { _id: 2, l: Long.fromNumber(1), d: Decimal128.fromString('2.2') }],
    run: async (c) => {
      const [r] = await c.aggregate([{ $group: { _id: null, l: { $sum: '$l' }, d: { $avg: '$d' } } }], { promoteLongs: false }).toArray();
      return { long: r!.l instanceof Long, l: String(r!.l), dec: r!.d instanceof Decimal128, d: String(r!.d) };
    },
    expected: { long: true, l: String(2 ** 40 + 1), dec: true, d: '1.65' },
  },
  {
    name: '$project expression operators keep Long and Decimal types',
    seed: [{ _id: 1, l: Long.fromNumber(7), d: Decimal128.fromString('10.5') }],
    run: async (c) => {
      const [r] = await c
        .aggregate([{ $project: { sub: { $subtract: ['$l', 2] }, mod: { $mod: ['$l', 4] }, div: { $divide: ['$d', 2] }, abs: { $abs: '$l' } } }], { promoteLongs: false })
        .toArray();
      return { sub: r!.sub instanceof Long, mod: r!.mod instanceof Long, abs: r!.abs instanceof Long, div: String(r!.div) };
    },
    expected: { sub: true, mod: true, abs: true, div: '5.25' },
  },
];

describeCompat('aggregation stages', [
  ...graphLookupCases,
  ...bucketCases,
  ...bucketAutoCases,
  ...simpleStageCases,
  ...unionWithCases,
  ...outMergeCases,
  ...mingoStageCases,
  ...accumulatorCases,
]);
