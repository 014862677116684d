import { Long, type Db, type Document } from 'mongodb';
import { describeCompat, type CompatCase, type LooseCollection } from './compat-cases.js';

const many = Array.from({ length: 250 }, (_, i) => ({ _id: i, v: i % 7 }));
const fiveDocs = [1, 2, 3, 4, 5].map((i) => ({ _id: i, v: i }));

/** The first batch's and the next batch's _ids and the cursor id after the getMore, with `change` made between the two. */
async function afterFirstBatch(c: LooseCollection, db: Db, find: Document, change: () => Promise<unknown>): Promise<unknown[]> {
  const first = await db.command({ find: c.collectionName, ...find });
  await change();
  const next = await db.command({ getMore: first.cursor.id, collection: c.collectionName });
  const ids = (docs: Document[]) => docs.map((d) => d._id);
  return [ids(first.cursor.firstBatch), ids(next.cursor.nextBatch), Number(next.cursor.id)];
}

const cases: CompatCase[] = [
  {
    name: 'a getMore whose query fails kills its cursor',
    seed: [1, 1, 1, 0].map((v, i) => ({ _id: i, v })),
    run: async (c, db) => {
      const filter = { $expr: { $eq: [{ $divide: [1, '$v'] }, 1] } };
      const first = await db.command({ find: c.collectionName, filter, batchSize: 1 });
      const failed = await db.command({ getMore: first.cursor.id, collection: c.collectionName }).catch((e: { code: number }) => e.code);
      const again = await db.command({ getMore: first.cursor.id, collection: c.collectionName }).catch((e: { code: number }) => e.code);
      return [first.cursor.firstBatch.length, failed, again];
    },
    expected: [1, 2, 43],
  },
  {
    name: 'getMore skips a document deleted after the first batch and returns the current version of a changed one',
    seed: [1, 2, 3, 4, 5].map((i) => ({ _id: i, v: i })),
    run: async (c, db) => {
      const first = await db.command({ find: c.collectionName, batchSize: 2 });
      await c.deleteOne({ _id: 5 });
      await c.updateOne({ _id: 4 }, { $set: { v: 40 } });
      const next = await db.command({ getMore: first.cursor.id, collection: c.collectionName });
      return next.cursor.nextBatch;
    },
    expected: [
      { _id: 3, v: 3 },
      { _id: 4, v: 40 },
    ],
  },
  // A cursor's next document is read when the getMore runs (mongod reads nothing ahead), except what a blocking sort buffered.
  {
    name: 'getMore does not return the next document when it was deleted after the first batch',
    seed: fiveDocs,
    run: (c, db) => afterFirstBatch(c, db, { batchSize: 2 }, () => c.deleteOne({ _id: 3 })),
    expected: [[1, 2], [4, 5], 0],
  },
  {
    name: 'getMore returns the current version of the next document when it changed after the first batch',
    seed: fiveDocs,
    run: async (c, db) => {
      const first = await db.command({ find: c.collectionName, batchSize: 2 });
      await c.updateOne({ _id: 3 }, { $set: { v: 30 } });
      return (await db.command({ getMore: first.cursor.id, collection: c.collectionName })).cursor.nextBatch;
    },
    expected: [
      { _id: 3, v: 30 },
      { _id: 4, v: 4 },
      { _id: 5, v: 5 },
    ],
  },
  {
    name: 'getMore skips the next document when a change made it no longer match',
    seed: fiveDocs,
    run: (c, db) => afterFirstBatch(c, db, { filter: { v: { $lt: 10 } }, batchSize: 2 }, () => c.updateOne({ _id: 3 }, { $set: { v: 30 } })),
    expected: [[1, 2], [4, 5], 0],
  },
  {
    name: 'a limit counts the returned documents only when the next one was deleted',
    seed: fiveDocs,
    run: (c, db) => afterFirstBatch(c, db, { limit: 3, batchSize: 2 }, () => c.deleteOne({ _id: 3 })),
    expected: [[1, 2], [4], 0],
  },
  {
    name: 'a projected find does not return the next document when it was deleted',
    seed: fiveDocs,
    run: (c, db) => afterFirstBatch(c, db, { projection: { v: 1 }, batchSize: 2 }, () => c.deleteOne({ _id: 3 })),
    expected: [[1, 2], [4, 5], 0],
  },
  {
    name: 'a find in an index order does not return the next document when it was deleted',
    seed: fiveDocs,
    indexes: [{ key: { v: -1 } }],
    run: (c, db) => afterFirstBatch(c, db, { sort: { v: -1 }, batchSize: 2 }, () => c.deleteOne({ _id: 3 })),
    expected: [[5, 4], [2, 1], 0],
  },
  {
    // mongod's index scan has passed the changed document's new key: the order holds.
    name: 'a find in an index order does not return the next document when its sort key moved behind the scan',
    seed: fiveDocs,
    indexes: [{ key: { v: -1 } }],
    run: (c, db) => afterFirstBatch(c, db, { sort: { v: -1 }, batchSize: 2 }, () => c.updateOne({ _id: 3 }, { $set: { v: 30 } })),
    expected: [[5, 4], [2, 1], 0],
  },
  {
    name: 'a find in an index order returns the current version of the next document when its sort key stayed',
    seed: fiveDocs,
    indexes: [{ key: { v: -1 } }],
    run: async (c, db) => {
      const first = await db.command({ find: c.collectionName, sort: { v: -1 }, batchSize: 2 });
      await c.updateOne({ _id: 3 }, { $set: { note: 'changed' } });
      return (await db.command({ getMore: first.cursor.id, collection: c.collectionName })).cursor.nextBatch;
    },
    expected: [{ _id: 3, v: 3, note: 'changed' }, { _id: 2, v: 2 }, { _id: 1, v: 1 }],
  },
  {
    name: 'when the deleted next document was the last, getMore answers an empty batch and closes the cursor',
    seed: fiveDocs.slice(0, 3),
    run: (c, db) => afterFirstBatch(c, db, { batchSize: 2 }, () => c.deleteOne({ _id: 3 })),
    expected: [[1, 2], [], 0],
  },
  {
    name: 'a blocking sort returns what it buffered, a document deleted after the first batch included',
    seed: fiveDocs,
    run: (c, db) => afterFirstBatch(c, db, { sort: { v: -1 }, batchSize: 2 }, () => c.deleteOne({ _id: 3 })),
    expected: [[5, 4], [3, 2, 1], 0],
  },
  {
    name: 'a cursor iterates past the first batch of 101',
    seed: many,
    run: async (c) => (await c.find({}).toArray()).length,
    expected: 250,
  },
  {
    name: 'the first batch holds 101 documents and an int64 cursor id',
    seed: many,
    run: async (c, db) => {
      const r = await db.command({ find: c.collectionName, filter: {} });
      return [r.cursor.firstBatch.length, r.cursor.id instanceof Long, r.cursor.ns.endsWith(`.${c.collectionName}`)];
    },
    expected: [101, true, true],
  },
  {
    name: 'getMore returns the rest and closes the cursor',
    seed: many,
    run: async (c, db) => {
      const first = await db.command({ find: c.collectionName, batchSize: 10 });
      const next = await db.command({ getMore: first.cursor.id, collection: c.collectionName });
      return [first.cursor.firstBatch.length, next.cursor.nextBatch.length, Number(next.cursor.id)];
    },
    expected: [10, 240, 0],
  },
  {
    name: 'getMore batchSize limits the batch',
    seed: many,
    run: async (c, db) => {
      const first = await db.command({ find: c.collectionName, batchSize: 10 });
      const next = await db.command({ getMore: first.cursor.id, collection: c.collectionName, batchSize: 5 });
      return next.cursor.nextBatch.map((d: { _id: number }) => d._id);
    },
    expected: [10, 11, 12, 13, 14],
  },
  {
    name: 'a limit smaller than the batch closes the cursor',
    seed: many,
    run: async (c, db) => {
      const r = await db.command({ find: c.collectionName, limit: 5 });
      return [r.cursor.firstBatch.length, Number(r.cursor.id)];
    },
    expected: [5, 0],
  },
  {
    name: 'a limit spanning batches stops at the limit',
    seed: many,
    run: async (c) => (await c.find({}).limit(150).batchSize(40).toArray()).length,
    expected: 150,
  },
  {
    name: 'singleBatch closes the cursor after the first batch',
    seed: many,
    run: async (c, db) => {
      const r = await db.command({ find: c.collectionName, batchSize: 3, singleBatch: true });
      return [r.cursor.firstBatch.length, Number(r.cursor.id)];
    },
    expected: [3, 0],
  },
  {
    name: 'an exhausted cursor has id 0',
    seed: many.slice(0, 3),
    run: async (c, db) => Number((await db.command({ find: c.collectionName })).cursor.id),
    expected: 0,
  },
  {
    name: 'getMore on an unknown cursor is CursorNotFound',
    run: (c, db) => db.command({ getMore: Long.fromNumber(123456789), collection: c.collectionName }),
    code: 43,
  },
  {
    name: 'getMore with a non-int64 id is TypeMismatch',
    run: (c, db) => db.command({ getMore: 12, collection: c.collectionName }),
    code: 14,
  },
  {
    name: 'killCursors reports killed and unknown ids',
    seed: many,
    run: async (c, db) => {
      const first = await db.command({ find: c.collectionName, batchSize: 2 });
      const unknown = Long.fromNumber(987654321);
      const r = await db.command({ killCursors: c.collectionName, cursors: [first.cursor.id, unknown] });
      return [r.cursorsKilled.map(Number), r.cursorsNotFound.map(Number), r.cursorsAlive, r.cursorsUnknown].map((x, i) =>
        i === 0 ? x.length : x,
      );
    },
    expected: [1, [987654321], [], []],
  },
  {
    name: 'a killed cursor is CursorNotFound',
    seed: many,
    run: async (c, db) => {
      const first = await db.command({ find: c.collectionName, batchSize: 2 });
      await db.command({ killCursors: c.collectionName, cursors: [first.cursor.id] });
      return db.command({ getMore: first.cursor.id, collection: c.collectionName });
    },
    code: 43,
  },
  {
    name: 'getMore from another collection is Unauthorized',
    seed: many,
    run: async (c, db) => {
      const first = await db.command({ find: c.collectionName, batchSize: 2 });
      return db.command({ getMore: first.cursor.id, collection: 'other' });
    },
    code: 13,
  },
  {
    name: 'an aggregate cursor also spans batches',
    seed: many,
    run: async (c) => (await c.aggregate([{ $match: { v: { $gte: 0 } } }], { batchSize: 20 }).toArray()).length,
    expected: 250,
  },
  {
    name: 'a listIndexes cursor with a small batch still lists every index',
    seed: many.slice(0, 1),
    run: async (c) => {
      await c.createIndex({ a: 1 });
      await c.createIndex({ b: 1 });
      return (await c.listIndexes({ batchSize: 1 }).toArray()).length;
    },
    expected: 3,
  },
  {
    name: 'a tailable cursor on a non-capped collection is BadValue',
    seed: many.slice(0, 5),
    run: (c, db) => db.command({ find: c.collectionName, tailable: true }),
    code: 2,
  },
  {
    name: 'batchSize 0 gives an empty first batch and an open cursor',
    seed: many.slice(0, 5),
    run: async (c, db) => {
      const r = await db.command({ find: c.collectionName, batchSize: 0 });
      const next = await db.command({ getMore: r.cursor.id, collection: c.collectionName });
      return [r.cursor.firstBatch.length, next.cursor.nextBatch.length];
    },
    expected: [0, 5],
  },
];

describeCompat('cursors', cases);
