import { Binary, Double } from 'mongodb';
import { describeCompat, type CompatCase } from './compat-cases.js';

/**
 * Documents at mongod's user limit of 16 MiB (maxBsonObjectSize): exactly 16
 * MiB is stored, one byte more is refused, worded for the write that made it:
 * an insert is a write error (BadValue 2), an update's result 17419, an
 * upsert's document 17420; nothing is changed.
 */
const MIB16 = 16 * 1024 * 1024;
/** { _id: <int32>, s: <string> } takes 22 bytes besides the string's characters. */
const sized = (_id: number, bytes: number) => ({ _id, s: 'x'.repeat(bytes - 22) });
const codeOf = (e: { code?: number }) => e.code;

const cases: CompatCase[] = [
  {
    name: 'a document of exactly 16 MiB is stored',
    run: async (c) => {
      await c.insertOne(sized(1, MIB16));
      return (await c.aggregate([{ $project: { size: { $bsonSize: '$$ROOT' } } }]).toArray())[0];
    },
    expected: { _id: 1, size: MIB16 },
  },
  {
    name: 'an insert of 16 MiB and one byte is a BadValue write error and stores nothing',
    run: async (c) => [await c.insertOne(sized(1, MIB16 + 1)).catch(codeOf), await c.countDocuments()],
    expected: [2, 0],
  },
  {
    // A raw command: the driver's bulk insertMany refuses a document over maxBsonObjectSize itself.
    name: 'an unordered insert stores the others and reports the large one at its index',
    run: async (c, db) => {
      const reply = await db.command({ insert: c.collectionName, documents: [{ _id: 1 }, sized(2, MIB16 + 1), { _id: 3 }], ordered: false });
      return [reply.n, (reply.writeErrors as { index: number; code: number }[]).map((w) => [w.index, w.code]), await c.find({}, { projection: { _id: 1 } }).toArray()];
    },
    expected: [2, [[1, 2]], [{ _id: 1 }, { _id: 3 }]],
  },
  {
    name: 'an update whose result is 16 MiB and one byte is 17419 and changes nothing',
    seed: [{ _id: 1, s: 'small' }],
    run: async (c) => [await c.updateOne({ _id: 1 }, { $set: { s: 'x'.repeat(MIB16 + 1 - 22) } }).catch(codeOf), await c.findOne({ _id: 1 })],
    expected: [17419, { _id: 1, s: 'small' }],
  },
  {
    name: 'an update whose result is exactly 16 MiB is applied',
    seed: [{ _id: 1, s: 'small' }],
    run: async (c) => {
      await c.updateOne({ _id: 1 }, { $set: { s: 'x'.repeat(MIB16 - 22) } });
      return (await c.aggregate([{ $project: { size: { $bsonSize: '$$ROOT' } } }]).toArray())[0];
    },
    expected: { _id: 1, size: MIB16 },
  },
  {
    name: 'an upsert whose document is 16 MiB and one byte is 17420 and inserts nothing',
    run: async (c) => [await c.updateOne({ _id: 1 }, { $set: { s: 'x'.repeat(MIB16 + 1 - 22) } }, { upsert: true }).catch(codeOf), await c.countDocuments()],
    expected: [17420, 0],
  },
  {
    name: 'findAndModify whose result is 16 MiB and one byte is 17419',
    seed: [{ _id: 1, s: 'small' }],
    run: (c) => c.findOneAndUpdate({ _id: 1 }, { $set: { s: 'x'.repeat(MIB16 + 1 - 22) } }),
    code: 17419,
  },
  {
    name: '$bsonSize of a missing field or null is null, of a non-document 31393',
    seed: [{ _id: 1, a: null, s: 'x' }],
    run: async (c) => [await c.aggregate([{ $project: { _id: 0, missing: { $bsonSize: '$nope' }, none: { $bsonSize: ['$a'] } } }]).toArray(), await c.aggregate([{ $project: { n: { $bsonSize: '$s' } } }]).toArray().catch(codeOf)],
    expected: [[{ missing: null, none: null }], 31393],
  },
  {
    // The document's length, then _id (int) 9 bytes, d (double) 11, i (int) 7, and the terminator.
    name: '$bsonSize counts an integral double as 8 bytes and an int as 4',
    run: async (c, db) => {
      await db.command({ insert: c.collectionName, documents: [{ _id: 1, d: new Double(2), i: 2 }] });
      return c.aggregate([{ $project: { size: { $bsonSize: '$$ROOT' } } }]).toArray();
    },
    expected: [{ _id: 1, size: 4 + 9 + 11 + 7 + 1 }],
  },
  {
    name: '$binarySize is UTF-8 bytes of a string, the length of BinData, null for null, 51276 otherwise; also nested',
    run: async (c) => {
      await c.insertOne({ _id: 1, s: 'héllo', b: new Binary(Buffer.from([1, 2, 3])), n: null, k: 5 });
      const sizes = await c.aggregate([{ $project: { _id: 0, s: { $binarySize: '$s' }, b: { $binarySize: '$b' }, n: { $binarySize: '$n' }, plusOne: { $add: [{ $binarySize: '$s' }, 1] } } }]).toArray();
      return [sizes, await c.aggregate([{ $project: { k: { $binarySize: '$k' } } }]).toArray().catch(codeOf)];
    },
    expected: [[{ s: 6, b: 3, n: null, plusOne: 7 }], 51276],
  },
];

describeCompat('document-size', cases);
