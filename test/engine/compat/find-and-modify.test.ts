import { describeCompat, type CompatCase } from './compat-cases.js';

const seed = [
  { _id: 1, n: 3, k: 'a' },
  { _id: 2, n: 1, k: 'a' },
  { _id: 3, n: 2, k: 'b' },
];

const cases: CompatCase[] = [
  {
    name: 'findOneAndUpdate returns the document before by default',
    seed,
    run: (c) => c.findOneAndUpdate({ _id: 1 }, { $inc: { n: 1 } }),
    expected: { _id: 1, n: 3, k: 'a' },
  },
  {
    name: "returnDocument 'after' returns the updated document",
    seed,
    run: (c) => c.findOneAndUpdate({ _id: 1 }, { $inc: { n: 1 } }, { returnDocument: 'after' }),
    expected: { _id: 1, n: 4, k: 'a' },
  },
  {
    name: 'the sort picks which document is modified',
    seed,
    run: (c) => c.findOneAndUpdate({ k: 'a' }, { $set: { hit: true } }, { sort: { n: 1 }, returnDocument: 'after' }),
    expected: { _id: 2, n: 1, k: 'a', hit: true },
  },
  {
    name: 'the projection shapes the returned document',
    seed,
    run: (c) => c.findOneAndUpdate({ _id: 3 }, { $set: { x: 1 } }, { projection: { n: 1 }, returnDocument: 'after' }),
    expected: { _id: 3, n: 2 },
  },
  {
    name: 'no match returns null',
    seed,
    run: (c) => c.findOneAndUpdate({ _id: 9 }, { $set: { x: 1 } }),
    expected: null,
  },
  {
    name: 'an upsert with returnDocument after returns the inserted document',
    run: (c) => c.findOneAndUpdate({ _id: 7 }, { $set: { x: 1 } }, { upsert: true, returnDocument: 'after' }),
    expected: { _id: 7, x: 1 },
  },
  {
    name: 'the raw reply reports an upsert in lastErrorObject',
    run: async (c, db) => {
      const r = await db.command({ findAndModify: c.collectionName, query: { _id: 7 }, update: { $set: { x: 1 } }, upsert: true });
      return [r.lastErrorObject, r.value];
    },
    expected: [{ n: 1, updatedExisting: false, upserted: 7 }, null],
  },
  {
    name: 'the raw reply reports an update in lastErrorObject',
    seed,
    run: async (c, db) => {
      const r = await db.command({ findAndModify: c.collectionName, query: { _id: 1 }, update: { $set: { x: 1 } } });
      return r.lastErrorObject;
    },
    expected: { n: 1, updatedExisting: true },
  },
  {
    name: 'the raw reply with new: true carries the updated document and ok 1',
    seed,
    run: async (c, db) => {
      const r = await db.command({ findAndModify: c.collectionName, query: { _id: 1 }, update: { $set: { x: 1 } }, new: true });
      return [r.lastErrorObject, r.value, r.ok, Object.keys(r).filter((k) => !k.startsWith('$') && k !== 'operationTime')];
    },
    expected: [{ n: 1, updatedExisting: true }, { _id: 1, n: 3, k: 'a', x: 1 }, 1, ['lastErrorObject', 'value', 'ok']],
  },
  {
    name: "returnDocument 'after' answers the document as it is then stored (nested values, dates)",
    seed,
    run: async (c) => {
      const after = await c.findOneAndUpdate(
        { _id: 2 },
        { $set: { 'm.at': new Date(86_400_000), 'm.tags': ['x', 'y'], f: 1.5 }, $inc: { n: 2 } },
        { returnDocument: 'after' },
      );
      return [after, await c.findOne({ _id: 2 })];
    },
    expected: [
      { _id: 2, n: 3, k: 'a', m: { at: new Date(86_400_000), tags: ['x', 'y'] }, f: 1.5 },
      { _id: 2, n: 3, k: 'a', m: { at: new Date(86_400_000), tags: ['x', 'y'] }, f: 1.5 },
    ],
  },
  {
    name: "an update that changes nothing still answers the document with returnDocument 'after'",
    seed,
    run: (c) => c.findOneAndUpdate({ _id: 3 }, { $set: { n: 2 } }, { returnDocument: 'after' }),
    expected: { _id: 3, n: 2, k: 'b' },
  },
  {
    name: 'findOneAndReplace replaces the whole document',
    seed,
    run: (c) => c.findOneAndReplace({ _id: 1 }, { only: true }, { returnDocument: 'after' }),
    expected: { _id: 1, only: true },
  },
  {
    name: 'findOneAndDelete removes and returns the document',
    seed,
    run: async (c) => [await c.findOneAndDelete({ k: 'b' }), await c.countDocuments()],
    expected: [{ _id: 3, n: 2, k: 'b' }, 2],
  },
  {
    name: 'a pipeline update is applied',
    seed,
    run: (c) => c.findOneAndUpdate({ _id: 2 }, [{ $set: { m: { $multiply: ['$n', 10] } } }], { returnDocument: 'after' }),
    expected: { _id: 2, n: 1, k: 'a', m: 10 },
  },
  {
    name: 'let values are evaluated before they reach the query',
    seed,
    run: (c) => c.findOneAndDelete({ $expr: { $eq: ['$n', '$$n'] } }, { let: { n: { $subtract: [3, 1] } } }),
    expected: { _id: 3, n: 2, k: 'b' },
  },
  {
    name: 'let variables reach the query',
    seed,
    run: (c) => c.findOneAndDelete({ $expr: { $eq: ['$n', '$$n'] } }, { let: { n: 2 } }),
    expected: { _id: 3, n: 2, k: 'b' },
  },
  {
    name: 'remove together with update is FailedToParse',
    seed,
    run: (c, db) => db.command({ findAndModify: c.collectionName, query: {}, remove: true, update: { $set: { a: 1 } } }),
    code: 9,
  },
  {
    name: 'neither remove nor update is FailedToParse',
    seed,
    run: (c, db) => db.command({ findAndModify: c.collectionName, query: {} }),
    code: 9,
  },
  {
    name: 'a duplicate key is a command error with keyValue',
    seed: [{ _id: 1, e: 'a' }, { _id: 2, e: 'b' }],
    indexes: [{ key: { e: 1 }, options: { unique: true } }],
    run: async (c) => {
      try {
        await c.findOneAndUpdate({ _id: 2 }, { $set: { e: 'a' } });
        return 'no error';
      } catch (err) {
        const e = err as { code: number; keyValue: unknown; keyPattern: unknown };
        return { code: e.code, keyValue: e.keyValue, keyPattern: e.keyPattern };
      }
    },
    expected: { code: 11000, keyValue: { e: 'a' }, keyPattern: { e: 1 } },
  },
  {
    name: 'changing _id is ImmutableField',
    seed,
    run: (c) => c.findOneAndUpdate({ _id: 1 }, { $set: { _id: 5 } }),
    code: 66,
  },
];

describeCompat('findAndModify', cases);
