import type { Db } from 'mongodb';
import { describeCompat, type CompatCase, type LooseCollection } from './compat-cases.js';

/** Seeds the case's collection (via `seed`) and creates `<coll>_v` on it. */
async function viewOf(c: LooseCollection, db: Db, pipeline: object[] = [{ $match: { _id: { $gt: 1 } } }]): Promise<LooseCollection> {
  const name = `${c.collectionName}_v`;
  await db.createCollection(name, { viewOn: c.collectionName, pipeline });
  return db.collection(name);
}

const seed = [
  { _id: 1, a: 'x', n: 1 },
  { _id: 2, a: 'y', n: 2 },
  { _id: 3, a: 'y', n: 3 },
];

/** Read-only views: `create {viewOn, pipeline}` and reads through the view's pipeline. */
const cases: CompatCase[] = [
  {
    name: 'listCollections shows a view with its definition and no idIndex',
    seed,
    run: async (c, db) => {
      const v = await viewOf(c, db);
      return db.listCollections({ name: v.collectionName }).toArray();
    },
    expected: [{ name: 'c0_v', type: 'view', options: { viewOn: 'c0', pipeline: [{ $match: { _id: { $gt: 1 } } }] }, info: { readOnly: true } }],
  },
  {
    name: 'find on a view runs the view pipeline, then the query, sort and limit',
    seed,
    run: async (c, db) => (await viewOf(c, db)).find({ a: 'y' }).sort({ n: -1 }).limit(1).toArray(),
    expected: [{ _id: 3, a: 'y', n: 3 }],
  },
  {
    name: 'findOne by _id on a view reads through the view',
    seed,
    run: async (c, db) => {
      const v = await viewOf(c, db);
      return [await v.findOne({ _id: 1 }), await v.findOne({ _id: 2 })];
    },
    expected: [null, { _id: 2, a: 'y', n: 2 }],
  },
  {
    name: 'estimatedDocumentCount on a view counts the view result',
    seed,
    run: async (c, db) => (await viewOf(c, db)).estimatedDocumentCount(),
    expected: 2,
  },
  {
    name: 'countDocuments on a view applies the query to the view result',
    seed,
    run: async (c, db) => (await viewOf(c, db)).countDocuments({ n: { $gte: 3 } }),
    expected: 1,
  },
  {
    name: 'distinct on a view',
    seed,
    run: async (c, db) => (await viewOf(c, db)).distinct('a'),
    expected: ['y'],
  },
  {
    name: 'aggregate on a view: a leading $match applies after the view pipeline',
    seed,
    run: async (c, db) => {
      const v = await viewOf(c, db, [{ $project: { n: 1, big: { $gt: ['$n', 1] } } }]);
      return v.aggregate([{ $match: { big: true } }, { $group: { _id: null, s: { $sum: '$n' } } }]).toArray();
    },
    expected: [{ _id: null, s: 5 }],
  },
  {
    name: 'a view on a view chains both pipelines',
    seed,
    run: async (c, db) => {
      const v = await viewOf(c, db);
      await db.createCollection(`${c.collectionName}_w`, { viewOn: v.collectionName, pipeline: [{ $project: { _id: 0, n: 1 } }] });
      return db.collection(`${c.collectionName}_w`).find().toArray();
    },
    expected: [{ n: 2 }, { n: 3 }],
  },
  {
    name: 'a view on a missing collection is empty',
    run: async (c, db) => (await viewOf(c, db)).find().toArray(),
    expected: [],
  },
  {
    name: 'a view sees later writes to its source',
    seed,
    run: async (c, db) => {
      const v = await viewOf(c, db);
      await c.insertOne({ _id: 4, a: 'z', n: 4 });
      return v.countDocuments();
    },
    expected: 3,
  },
  {
    name: 'insert into a view is CommandNotSupportedOnView',
    seed,
    run: async (c, db) => (await viewOf(c, db)).insertOne({ _id: 9 }),
    code: 166,
  },
  {
    name: 'update on a view is CommandNotSupportedOnView',
    seed,
    run: async (c, db) => (await viewOf(c, db)).updateOne({ _id: 2 }, { $set: { n: 0 } }),
    code: 166,
  },
  {
    name: 'delete on a view is CommandNotSupportedOnView',
    seed,
    run: async (c, db) => (await viewOf(c, db)).deleteMany({}),
    code: 166,
  },
  {
    name: 'findOneAndUpdate on a view is CommandNotSupportedOnView',
    seed,
    run: async (c, db) => (await viewOf(c, db)).findOneAndUpdate({ _id: 2 }, { $set: { n: 0 } }),
    code: 166,
  },
  {
    name: 'createIndexes on a view is CommandNotSupportedOnView',
    seed,
    run: async (c, db) => (await viewOf(c, db)).createIndex({ a: 1 }),
    code: 166,
  },
  {
    name: '$out into a view is CommandNotSupportedOnView',
    seed,
    run: async (c, db) => {
      const v = await viewOf(c, db);
      return c.aggregate([{ $out: v.collectionName }]).toArray();
    },
    code: 166,
  },
  {
    name: 'a rejected write leaves the source unchanged',
    seed,
    run: async (c, db) => {
      const v = await viewOf(c, db);
      await v.deleteMany({}).catch(() => undefined);
      return c.countDocuments();
    },
    expected: 3,
  },
  {
    name: 'drop removes a view and leaves its source',
    seed,
    run: async (c, db) => {
      const v = await viewOf(c, db);
      await v.drop();
      return (await db.listCollections({}, { nameOnly: true }).toArray()).map((e) => e.name).filter((n) => n.startsWith(c.collectionName)).sort();
    },
    expected: ['c17'],
  },
  {
    name: 'a view whose chain leads back to itself is GraphContainsCycle',
    run: async (c, db) => {
      await db.createCollection(`${c.collectionName}_a`, { viewOn: `${c.collectionName}_b`, pipeline: [] });
      return db.createCollection(`${c.collectionName}_b`, { viewOn: `${c.collectionName}_a`, pipeline: [] });
    },
    code: 93,
  },
  {
    name: 'a view pipeline must be an array',
    run: (c, db) => db.command({ create: `${c.collectionName}_v`, viewOn: c.collectionName, pipeline: { $match: {} } }),
    code: 14,
  },
  {
    name: 'a view pipeline may not write ($out) - OptionNotSupportedOnView',
    run: (c, db) => db.createCollection(`${c.collectionName}_v`, { viewOn: c.collectionName, pipeline: [{ $out: 'x' }] }),
    code: 167,
  },
];

describeCompat('views', cases);
