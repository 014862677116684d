import { Double, Int32, Long, ObjectId } from 'mongodb';
import { describeCompat, type CompatCase } from './compat-cases.js';

/** The driver's bulkWrite (insert/update/delete commands), unacknowledged writes and BSON types. */
const cases: CompatCase[] = [
  {
    name: 'bulkWrite mixes every kind of write and reports each count',
    seed: [{ _id: 1, n: 1 }, { _id: 2, n: 2 }, { _id: 3, n: 3 }],
    run: async (c) => {
      const r = await c.bulkWrite([
        { insertOne: { document: { _id: 4, n: 4 } } },
        { updateOne: { filter: { _id: 1 }, update: { $set: { n: 10 } } } },
        { updateMany: { filter: { n: { $lte: 3 } }, update: { $inc: { n: 100 } } } },
        { replaceOne: { filter: { _id: 9 }, replacement: { n: 9 }, upsert: true } },
        { deleteOne: { filter: { _id: 4 } } },
        { deleteMany: { filter: { n: { $gt: 1000 } } } },
      ]);
      return [r.insertedCount, r.matchedCount, r.modifiedCount, r.upsertedCount, r.deletedCount, r.upsertedIds];
    },
    expected: [1, 3, 3, 1, 1, { 3: 9 }],
  },
  {
    name: 'an ordered bulkWrite stops at a duplicate key',
    seed: [{ _id: 1 }],
    run: async (c) => {
      await c.bulkWrite([{ insertOne: { document: { _id: 2 } } }, { insertOne: { document: { _id: 1 } } }, { insertOne: { document: { _id: 3 } } }]).catch(() => undefined);
      return c.find().project({ _id: 1 }).toArray();
    },
    expected: [{ _id: 1 }, { _id: 2 }],
  },
  {
    name: 'an unordered bulkWrite goes on after a duplicate key',
    seed: [{ _id: 1 }],
    run: async (c) => {
      await c
        .bulkWrite([{ insertOne: { document: { _id: 1 } } }, { insertOne: { document: { _id: 3 } } }], { ordered: false })
        .catch(() => undefined);
      return c.find().project({ _id: 1 }).toArray();
    },
    expected: [{ _id: 1 }, { _id: 3 }],
  },
  {
    name: 'the bulk error carries the duplicate key code',
    seed: [{ _id: 1 }],
    run: (c) => c.bulkWrite([{ insertOne: { document: { _id: 1 } } }]),
    code: 11000,
  },
  {
    name: 'a w:0 insert is applied',
    run: async (c) => {
      await c.insertOne({ _id: 1, a: 1 }, { writeConcern: { w: 0 } });
      // A following acknowledged command on the same pool sees it.
      await c.insertOne({ _id: 2 });
      return c.countDocuments();
    },
    expected: 2,
  },
  {
    name: 'int32, double, int64 and ObjectId keep their BSON types',
    run: async (c) => {
      await c.insertMany([
        { _id: 1, x: new Int32(1) },
        { _id: 2, x: new Double(1) },
        { _id: 3, x: Long.fromNumber(1) },
        { _id: 4, x: new ObjectId('00000000000000000000000a') },
      ]);
      const ids = async (type: string) => (await c.find({ x: { $type: type } }).toArray()).map((d) => d._id);
      return [await ids('int'), await ids('double'), await ids('long'), await ids('objectId'), await ids('number')];
    },
    expected: [[1], [2], [3], [4], [1, 2, 3]],
  },
  {
    name: 'numbers of different types are equal in queries',
    seed: [{ _id: 1, x: 1 }, { _id: 2, x: 1.5 }],
    run: async (c) => (await c.find({ x: Long.fromNumber(1) }).toArray()).map((d) => d._id),
    expected: [1],
  },
  {
    name: 'an update keeps the other fields in place',
    seed: [{ _id: 1, a: 1, b: 2, c: 3 }],
    run: async (c) => {
      await c.updateOne({ _id: 1 }, { $set: { b: 20, d: 4 } });
      return Object.entries((await c.findOne({ _id: 1 }))!);
    },
    expected: [
      ['_id', 1],
      ['a', 1],
      ['b', 20],
      ['c', 3],
      ['d', 4],
    ],
  },
];

describeCompat('bulk-write', cases);
