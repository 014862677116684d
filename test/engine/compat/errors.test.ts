import { Long } from 'mongodb';
import { describeCompat, type CompatCase } from './compat-cases.js';

/** Malformed commands: each must fail with mongod's code. */
const cases: CompatCase[] = [
  { name: 'an unknown command is CommandNotFound', run: (_c, db) => db.command({ noSuchCommand: 1 }), code: 59 },
  { name: 'insert without documents is a missing-field error', run: (c, db) => db.command({ insert: c.collectionName }), code: 40414 },
  {
    name: 'insert documents of the wrong type is TypeMismatch',
    run: (c, db) => db.command({ insert: c.collectionName, documents: 1 }),
    code: 14,
  },
  {
    name: 'insert documents that are not all objects is TypeMismatch',
    run: (c, db) => db.command({ insert: c.collectionName, documents: [{ a: 1 }, 5] }),
    code: 14,
  },
  { name: 'a collection name with $ is InvalidNamespace', run: (_c, db) => db.command({ insert: 'a$b', documents: [{}] }), code: 73 },
  { name: 'an empty collection name is InvalidNamespace', run: (_c, db) => db.command({ find: '' }), code: 73 },
  { name: 'a sort that is not a document is TypeMismatch', run: (c, db) => db.command({ find: c.collectionName, sort: 1 }), code: 14 },
  { name: 'a negative limit on find is an error', run: (c, db) => db.command({ find: c.collectionName, limit: -1 }), code: 51024 },
  {
    name: 'update without updates is a missing-field error',
    run: (c, db) => db.command({ update: c.collectionName }),
    code: 40414,
  },
  {
    name: 'an update statement without q is a missing-field error',
    run: (c, db) => db.command({ update: c.collectionName, updates: [{ u: { $set: { a: 1 } } }] }),
    code: 40414,
  },
  {
    name: 'an unknown update operator is FailedToParse',
    seed: [{ _id: 1 }],
    run: (c) => c.updateOne({ _id: 1 }, { $bogus: { a: 1 } } as never),
    code: 9,
  },
  {
    name: 'an empty update document in updateOne via raw command is accepted as a replacement',
    seed: [{ _id: 1, a: 1 }],
    run: async (c, db) => {
      await db.command({ update: c.collectionName, updates: [{ q: { _id: 1 }, u: {} }] });
      return c.findOne({ _id: 1 });
    },
    expected: { _id: 1 },
  },
  {
    name: 'a projection mixing inclusion and exclusion is an error',
    seed: [{ _id: 1, a: 1, b: 1 }],
    run: (c) => c.find({}).project({ a: 1, b: 0 }).toArray(),
    code: 31254,
  },
  {
    name: 'a sort direction other than 1 or -1 is an error',
    seed: [{ _id: 1 }],
    run: (c, db) => db.command({ find: c.collectionName, sort: { a: 2 } }),
    code: 15975,
  },
  {
    name: 'a getMore on a collection-less namespace is CursorNotFound',
    run: (_c, db) => db.command({ getMore: Long.fromBigInt(5n << 60n), collection: '$cmd.listCollections' }),
    code: 43,
  },
  {
    name: 'a pipeline that is not an array is TypeMismatch',
    run: (c, db) => db.command({ aggregate: c.collectionName, pipeline: {}, cursor: {} }),
    code: 14,
  },
];

describeCompat('errors', cases);
