import { ObjectId, type Db, type Document } from 'mongodb';
import { describeCompat, type CompatCase, type LooseCollection } from './compat-cases.js';

/** The raw reply of an insert command, with ok. */
function insertRaw(db: Db, c: LooseCollection, documents: object[], ordered = true) {
  return db.command({ insert: c.collectionName, documents, ordered });
}

/** A sub-document `levels` objects deep. */
function nested(levels: number): Document {
  let doc: Document = { x: 1 };
  for (let i = 1; i < levels; i++) doc = { a: doc };
  return doc;
}

const cases: CompatCase[] = [
  {
    name: 'insertOne generates an ObjectId _id',
    run: async (c) => {
      const res = await c.insertOne({ a: 1 });
      const stored = await c.findOne({});
      return res.insertedId instanceof ObjectId && stored?._id instanceof ObjectId;
    },
    expected: true,
  },
  {
    name: 'a generated _id is the first field',
    run: async (c, db) => {
      await db.command({ insert: c.collectionName, documents: [{ a: 1, b: 2 }] });
      return Object.keys((await c.findOne({}))!);
    },
    expected: ['_id', 'a', 'b'],
  },
  {
    name: 'a given _id is moved to the front',
    run: async (c) => {
      await c.insertOne({ a: 1, _id: 7 });
      return Object.keys((await c.findOne({}))!);
    },
    expected: ['_id', 'a'],
  },
  {
    name: 'types survive a round trip',
    run: async (c) => {
      const doc = { _id: 1, s: 's', n: 1.5, i: 3, d: new Date(0), arr: [1, [2]], sub: { x: null } };
      await c.insertOne(doc);
      return c.findOne({ _id: 1 });
    },
    expected: { _id: 1, s: 's', n: 1.5, i: 3, d: new Date(0), arr: [1, [2]], sub: { x: null } },
  },
  {
    name: 'insertMany reports the count',
    run: async (c) => (await c.insertMany([{ _id: 1 }, { _id: 2 }, { _id: 3 }])).insertedCount,
    expected: 3,
  },
  {
    // The driver replaces a null _id by an ObjectId, so these cases send raw commands.
    name: 'a null _id is a valid _id',
    run: async (c, db) => {
      await insertRaw(db, c, [{ _id: null, a: 1 }]);
      return c.findOne({ _id: null });
    },
    expected: { _id: null, a: 1 },
  },
  {
    name: 'a duplicate _id is DuplicateKey',
    seed: [{ _id: 1 }],
    run: (c) => c.insertOne({ _id: 1 } as never),
    code: 11000,
  },
  {
    name: 'a duplicate null _id is DuplicateKey',
    run: async (c, db) => (await insertRaw(db, c, [{ _id: null }, { _id: null }])).writeErrors.map((e: { code: number }) => e.code),
    expected: [11000],
  },
  {
    name: 'the duplicate key write error carries keyPattern and keyValue',
    seed: [{ _id: 1, email: 'x' }],
    indexes: [{ key: { email: 1 }, options: { unique: true } }],
    run: async (c, db) => {
      const reply = await insertRaw(db, c, [{ _id: 2, email: 'x' }]);
      const [e] = reply.writeErrors;
      return { n: reply.n, index: e.index, code: e.code, keyPattern: e.keyPattern, keyValue: e.keyValue };
    },
    expected: { n: 0, index: 0, code: 11000, keyPattern: { email: 1 }, keyValue: { email: 'x' } },
  },
  {
    name: 'an ordered insert stops at the first error',
    seed: [{ _id: 2 }],
    run: async (c, db) => {
      const reply = await insertRaw(db, c, [{ _id: 1 }, { _id: 2 }, { _id: 3 }]);
      return { n: reply.n, errors: reply.writeErrors.map((e: { index: number }) => e.index), count: await c.countDocuments() };
    },
    expected: { n: 1, errors: [1], count: 2 },
  },
  {
    name: 'an unordered insert goes on after an error',
    seed: [{ _id: 2 }],
    run: async (c, db) => {
      const reply = await insertRaw(db, c, [{ _id: 1 }, { _id: 2 }, { _id: 3 }, { _id: 2 }], false);
      return { n: reply.n, errors: reply.writeErrors.map((e: { index: number }) => e.index), count: await c.countDocuments() };
    },
    expected: { n: 2, errors: [1, 3], count: 3 },
  },
  {
    name: 'a top-level $-prefixed field is stored as given (5.0+)',
    run: async (c) => {
      await c.insertOne({ _id: 1, $a: 1 } as never);
      return c.findOne({ _id: 1 });
    },
    expected: { _id: 1, $a: 1 },
  },
  {
    name: 'an insertMany with a top-level $-prefixed field inserts every document',
    run: async (c) => {
      await c.insertMany([{ _id: 1, $a: 1 }, { _id: 2, b: { $c: 2 } }] as never);
      return c.countDocuments();
    },
    expected: 2,
  },
  {
    name: 'an array _id is BadValue',
    run: (c) => c.insertOne({ _id: [1, 2] } as never),
    code: 2,
  },
  {
    name: 'a regex _id is BadValue',
    run: (c) => c.insertOne({ _id: /x/ } as never),
    code: 2,
  },
  {
    name: 'an _id sub-document with $-prefixed fields is DollarPrefixedFieldName',
    run: (c, db) => insertRaw(db, c, [{ _id: { $x: 1 } }]).then((r) => r.writeErrors.map((e: { code: number }) => e.code)),
    expected: [52],
  },
  {
    name: 'an _id sub-document is a valid _id and keeps its field order',
    run: async (c) => {
      await c.insertOne({ _id: { b: 1, a: 2 } });
      return [await c.countDocuments({ _id: { b: 1, a: 2 } }), await c.countDocuments({ _id: { a: 2, b: 1 } })];
    },
    expected: [1, 0],
  },
  {
    name: 'an insert creates the collection',
    run: async (c, db) => {
      await c.insertOne({ a: 1 });
      return (await db.listCollections({ name: c.collectionName }).toArray()).length;
    },
    expected: 1,
  },
  {
    name: 'a unique index rejects the second document with the same key',
    indexes: [{ key: { email: 1 }, options: { unique: true } }],
    run: (c) => c.insertMany([{ email: 'a' }, { email: 'a' }]),
    code: 11000,
  },
  {
    name: 'a document 180 levels deep is stored',
    run: async (c) => {
      await c.insertOne({ _id: 1, a: nested(179) });
      return c.countDocuments();
    },
    expected: 1,
  },
  {
    name: 'a document more than 180 levels deep is Overflow',
    run: (c) => c.insertOne({ _id: 1, a: nested(180) }),
    code: 15,
  },
  {
    name: 'an update that nests a document more than 180 levels deep is Overflow and changes nothing',
    seed: [{ _id: 1, b: 1 }],
    run: async (c) => {
      const err = await c.updateOne({ _id: 1 }, { $set: { b: 2, a: nested(180) } }).catch((e: { code: number }) => e.code);
      return [err, await c.findOne({ _id: 1 })];
    },
    expected: [15, { _id: 1, b: 1 }],
  },
  {
    name: 'a compound index refuses a document whose key fields are two different arrays',
    indexes: [{ key: { a: 1, b: 1 } }],
    run: (c) => c.insertOne({ a: [1, 2], b: [1, 2] }),
    code: 171,
  },
  {
    name: 'a unique compound index over parallel arrays refuses them without building their cross product',
    indexes: [{ key: { a: 1, b: 1 }, options: { unique: true } }],
    run: (c) => c.insertOne({ a: Array.from({ length: 5000 }, (_, i) => i), b: Array.from({ length: 5000 }, (_, i) => i) }),
    code: 171,
  },
  {
    name: 'a unique compound index over fields of one array pairs them element by element',
    indexes: [{ key: { 'a.x': 1, 'a.y': 1 }, options: { unique: true } }],
    seed: [{ _id: 1, a: [{ x: 1, y: 2 }, { x: 2, y: 1 }] }],
    run: async (c) => {
      await c.insertOne({ _id: 2, a: [{ x: 1, y: 1 }] });
      return c.countDocuments();
    },
    expected: 2,
  },
  {
    name: 'a unique compound index over fields of one array still refuses an element pair another document holds',
    indexes: [{ key: { 'a.x': 1, 'a.y': 1 }, options: { unique: true } }],
    seed: [{ _id: 1, a: [{ x: 1, y: 2 }, { x: 2, y: 1 }] }],
    run: (c) => c.insertOne({ _id: 2, a: [{ x: 2, y: 1 }] }),
    code: 11000,
  },
  {
    name: 'an update that makes parallel arrays under a compound index fails and leaves the document unchanged',
    indexes: [{ key: { a: 1, b: 1 } }],
    seed: [{ _id: 1, a: [1, 2], b: 1 }],
    run: async (c) => {
      const err = await c.updateOne({ _id: 1 }, { $set: { b: [3, 4] } }).catch((e: { code: number }) => e.code);
      return [err, await c.findOne({ _id: 1 })];
    },
    expected: [171, { _id: 1, a: [1, 2], b: 1 }],
  },
];

describeCompat('insert', cases);
