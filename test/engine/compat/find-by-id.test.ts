import { Double, Int32, Long, ObjectId } from 'mongodb';
import { describeCompat, type CompatCase, type LooseCollection } from './compat-cases.js';

/**
 * The point read the driver's findOne({_id}) sends. The engine answers the
 * plain shape without the query machinery, so this table pins that it gives
 * exactly what the general find gives.
 */
const oid = new ObjectId('65a1b2c3d4e5f60718293a4b');
const docs = [
  { _id: 1, name: 'int one' },
  { _id: 2.5, name: 'double' },
  { _id: new Long(7), name: 'long seven' },
  { _id: 'abc', name: 'string' },
  { _id: oid, name: 'object id' },
];

const cases: CompatCase[] = [
  {
    name: 'an int _id finds its document',
    seed: docs,
    run: (c) => c.findOne({ _id: 1 }),
    expected: { _id: 1, name: 'int one' },
  },
  {
    name: 'a double _id 1.0 finds the int 1',
    seed: docs,
    run: (c) => c.findOne({ _id: new Double(1) }),
    expected: { _id: 1, name: 'int one' },
  },
  {
    name: 'a Long(1) _id finds the int 1',
    seed: docs,
    run: (c) => c.findOne({ _id: new Long(1) }),
    expected: { _id: 1, name: 'int one' },
  },
  {
    name: 'an int _id finds a Long stored _id of the same value',
    seed: docs,
    run: (c) => c.findOne({ _id: 7 }, { promoteLongs: false }),
    expected: { _id: new Long(7), name: 'long seven' },
  },
  {
    name: 'a fractional double _id finds its document',
    seed: docs,
    run: (c) => c.findOne({ _id: 2.5 }),
    expected: { _id: 2.5, name: 'double' },
  },
  {
    name: 'a string _id finds its document',
    seed: docs,
    run: (c) => c.findOne({ _id: 'abc' }),
    expected: { _id: 'abc', name: 'string' },
  },
  {
    name: 'an ObjectId _id finds its document',
    seed: docs,
    run: (c) => c.findOne({ _id: oid }),
    expected: { _id: oid, name: 'object id' },
  },
  {
    name: 'a string _id does not match another case without a collation',
    seed: docs,
    run: (c) => c.findOne({ _id: 'ABC' }),
    expected: null,
  },
  {
    name: 'an _id that is not stored finds nothing',
    seed: docs,
    run: (c) => c.findOne({ _id: 99 }),
    expected: null,
  },
  {
    name: 'an _id in a collection that does not exist finds nothing',
    run: (c) => c.findOne({ _id: 1 }),
    expected: null,
  },
  {
    name: 'the stored value types come back unchanged',
    seed: [{ _id: 1, i: new Int32(1), d: new Double(1), l: new Long(1), nested: { d: new Double(2) } }],
    run: async (c) => {
      const doc = await c.findOne({ _id: 1 }, { promoteValues: false });
      return [doc?._id._bsontype, doc?.i._bsontype, doc?.d._bsontype, doc?.l._bsontype, doc?.nested.d._bsontype];
    },
    expected: ['Int32', 'Int32', 'Double', 'Long', 'Double'],
  },
  {
    name: 'a projection applies to an _id lookup',
    seed: docs,
    run: (c) => c.findOne({ _id: 1 }, { projection: { _id: 0, name: 1 } }),
    expected: { name: 'int one' },
  },
  {
    name: 'another field in the filter must match too',
    seed: docs,
    run: (c) => c.findOne({ _id: 1, name: 'other' }),
    expected: null,
  },
  {
    name: 'the reply is an exhausted cursor in the collection namespace',
    seed: docs,
    run: async (c, db) => {
      const r = await db.command({ find: c.collectionName, filter: { _id: 1 } }, { promoteLongs: false });
      return [r.cursor.firstBatch, r.cursor.id instanceof Long && r.cursor.id.isZero(), r.cursor.ns === `${db.databaseName}.${c.collectionName}`];
    },
    expected: [[{ _id: 1, name: 'int one' }], true, true],
  },
  {
    name: 'batchSize 0 returns no document and a cursor for it',
    seed: docs,
    run: async (c, db) => {
      const r = await db.command({ find: c.collectionName, filter: { _id: 1 }, batchSize: 0 });
      const more = await db.command({ getMore: r.cursor.id, collection: c.collectionName });
      return [r.cursor.firstBatch.length, more.cursor.nextBatch];
    },
    expected: [0, [{ _id: 1, name: 'int one' }]],
  },
  {
    name: 'skip 1 skips the one match',
    seed: docs,
    run: (c) => c.find({ _id: 1 }).skip(1).toArray(),
    expected: [],
  },
  {
    name: 'a string _id follows the collection default collation',
    run: async (c, db) => {
      const coll = await db.createCollection(c.collectionName, { collation: { locale: 'en', strength: 2 } });
      await coll.insertOne({ _id: 'abc' as never });
      return coll.findOne({ _id: 'ABC' as never });
    },
    expected: { _id: 'abc' },
  },
  {
    name: 'an _id lookup on a view reads through its pipeline',
    seed: docs,
    run: async (c, db) => {
      const view = `${c.collectionName}_view`;
      await db.createCollection(view, { viewOn: c.collectionName, pipeline: [{ $set: { seen: true } }] });
      return (db.collection(view) as LooseCollection).findOne({ _id: 1 });
    },
    expected: { _id: 1, name: 'int one', seen: true },
  },
];

describeCompat('find by _id', cases);
