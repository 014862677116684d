import { type Document } from 'mongodb';
import { describeCompat, type CompatCase } from './compat-cases.js';

/**
 * find's `returnKey` (each document becomes its key in the index the plan
 * scans, `{}` for a collection scan) and `showRecordId` (`$recordId`, a
 * long, stable for a document; none with returnKey), as mongod 7.0 answers them.
 */

const seed = [
  { _id: 1, a: 5, b: 1, x: { y: 'p' } },
  { _id: 2, a: 7, b: 2 },
  { _id: 3, a: 9, b: 3, x: { y: 'q' } },
];

const keysAndType = (docs: Document[]) => docs.map((d) => [Object.keys(d), typeof d.$recordId]);

const cases: CompatCase[] = [
  {
    name: 'returnKey answers the scanned index key of each document',
    seed,
    indexes: [{ key: { a: 1 } }],
    run: (c) => c.find({ a: { $gte: 6 } }, { returnKey: true }).toArray(),
    expected: [{ a: 7 }, { a: 9 }],
  },
  {
    name: 'returnKey without an index scan answers empty documents',
    seed,
    run: (c) => c.find({ b: { $lte: 2 } }, { returnKey: true }).toArray(),
    expected: [{}, {}],
  },
  {
    name: 'returnKey on an _id lookup answers the _id key',
    seed,
    run: (c) => c.find({ _id: 2 }, { returnKey: true }).toArray(),
    expected: [{ _id: 2 }],
  },
  {
    name: 'returnKey keeps dotted key names whole and a missing key field as null',
    seed,
    indexes: [{ key: { b: 1, 'x.y': -1 } }],
    run: (c) => c.find({ b: { $in: [1, 2] } }, { returnKey: true }).toArray(),
    expected: [{ b: 1, 'x.y': 'p' }, { b: 2, 'x.y': null }],
  },
  {
    name: 'returnKey ignores the projection',
    seed,
    indexes: [{ key: { a: 1 } }],
    run: (c) => c.find({ a: 5 }, { returnKey: true, projection: { b: 1 } }).toArray(),
    expected: [{ a: 5 }],
  },
  {
    name: 'showRecordId adds $recordId last to each document',
    seed,
    run: async (c) => keysAndType(await c.find({}).showRecordId(true).toArray()),
    expected: [
      [['_id', 'a', 'b', 'x', '$recordId'], 'number'],
      [['_id', 'a', 'b', '$recordId'], 'number'],
      [['_id', 'a', 'b', 'x', '$recordId'], 'number'],
    ],
  },
  {
    name: 'showRecordId comes as a BSON long',
    seed,
    run: async (c) => (await c.find({ _id: 1 }, { showRecordId: true, promoteLongs: false }).toArray())[0]!.$recordId._bsontype,
    expected: 'Long',
  },
  {
    name: 'showRecordId is distinct per document and stable across updates',
    seed,
    run: async (c) => {
      const ids = async () => (await c.find({}).sort({ _id: 1 }).showRecordId(true).toArray()).map((d) => d.$recordId as number);
      const before = await ids();
      await c.updateOne({ _id: 2 }, { $set: { b: 20, grown: 'x'.repeat(1000) } });
      const after = await ids();
      return [new Set(before).size, after.every((r, i) => r === before[i])];
    },
    expected: [3, true],
  },
  {
    name: 'showRecordId with a projection adds $recordId after the projected fields',
    seed,
    run: async (c) => keysAndType(await c.find({ _id: 1 }, { projection: { a: 1, _id: 0 }, showRecordId: true }).toArray()),
    expected: [[['a', '$recordId'], 'number']],
  },
  {
    name: 'returnKey with showRecordId answers the key alone (the key stage drops the record id)',
    seed,
    indexes: [{ key: { a: 1 } }],
    run: (c) => c.find({ a: 9 }, { returnKey: true, showRecordId: true }).toArray(),
    expected: [{ a: 9 }],
  },
  {
    name: 'returnKey with showRecordId on a sorted collection read answers the _id keys alone',
    seed,
    run: (c) => c.find({}, { sort: { _id: 1 }, returnKey: true, showRecordId: true }).toArray(),
    expected: [{ _id: 1 }, { _id: 2 }, { _id: 3 }],
  },
];

describeCompat('find-key-options', cases);
