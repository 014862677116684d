import { describeCompat, type CompatCase } from './compat-cases.js';

const cases: CompatCase[] = [
  {
    name: 'create makes an empty collection that listCollections shows',
    run: async (c, db) => {
      await db.createCollection(c.collectionName);
      const [entry] = await db.listCollections({ name: c.collectionName }).toArray();
      return { name: entry!.name, type: entry!.type, idIndex: (entry as { idIndex?: unknown }).idIndex };
    },
    expected: { type: 'collection', idIndex: { v: 2, key: { _id: 1 }, name: '_id_' }, name: 'c0' },
  },
  {
    name: 'create on an existing collection is NamespaceExists',
    seed: [{ _id: 1 }],
    run: (c, db) => db.command({ create: c.collectionName }),
    code: 48,
  },
  {
    name: 'listCollections nameOnly gives name and type',
    seed: [{ _id: 1 }],
    run: (c, db) => db.listCollections({ name: c.collectionName }, { nameOnly: true }).toArray(),
    expected: [{ name: 'c2', type: 'collection' }],
  },
  {
    name: 'listCollections keeps create options',
    run: async (c, db) => {
      await db.createCollection(c.collectionName, { validator: { a: { $exists: true } } });
      const [entry] = await db.listCollections({ name: c.collectionName }).toArray();
      return (entry as { options: unknown }).options;
    },
    expected: { validator: { a: { $exists: true } } },
  },
  {
    name: "the collection's default collation applies to queries without one",
    run: async (c, db) => {
      await db.createCollection(c.collectionName, { collation: { locale: 'en', strength: 2 } });
      await c.insertMany([{ _id: 1, k: 'Ab' }, { _id: 2, k: 'aB' }, { _id: 3, k: 'x' }]);
      return [await c.countDocuments({ k: 'ab' }), await c.countDocuments({ k: 'ab' }, { collation: { locale: 'simple' } })];
    },
    expected: [2, 0],
  },
  {
    name: "an index inherits the collection's default collation",
    run: async (c, db) => {
      await db.createCollection(c.collectionName, { collation: { locale: 'en', strength: 2 } });
      await c.createIndex({ k: 1 }, { unique: true });
      await c.insertOne({ k: 'Ab' });
      return c.insertOne({ k: 'aB' });
    },
    code: 11000,
  },
  {
    name: 'drop removes the collection',
    seed: [{ _id: 1 }],
    run: async (c, db) => {
      await c.drop();
      return db.listCollections({ name: c.collectionName }).toArray();
    },
    expected: [],
  },
  {
    name: 'createIndex returns the index name and listIndexes shows it',
    seed: [{ _id: 1, a: 1 }],
    run: async (c) => [await c.createIndex({ a: 1, b: -1 }, { unique: true }), await c.listIndexes().toArray()],
    expected: [
      'a_1_b_-1',
      [
        { v: 2, key: { _id: 1 }, name: '_id_' },
        { v: 2, key: { a: 1, b: -1 }, name: 'a_1_b_-1', unique: true },
      ],
    ],
  },
  {
    name: 'createIndexes reports counts and creates the collection',
    run: async (c, db) => {
      const r = await db.command({ createIndexes: c.collectionName, indexes: [{ key: { a: 1 }, name: 'a_1' }] });
      return [r.numIndexesBefore, r.numIndexesAfter, r.createdCollectionAutomatically];
    },
    expected: [1, 2, true],
  },
  {
    name: 'creating the same index twice is a no-op',
    seed: [{ _id: 1 }],
    run: async (c, db) => {
      await c.createIndex({ a: 1 });
      const r = await db.command({ createIndexes: c.collectionName, indexes: [{ key: { a: 1 }, name: 'a_1' }] });
      return [r.numIndexesBefore, r.numIndexesAfter];
    },
    expected: [2, 2],
  },
  {
    name: 'the same name with another key is IndexKeySpecsConflict',
    seed: [{ _id: 1 }],
    run: async (c) => {
      await c.createIndex({ a: 1 }, { name: 'ix' });
      return c.createIndex({ b: 1 }, { name: 'ix' });
    },
    code: 86,
  },
  {
    name: 'the same key with other options is IndexOptionsConflict',
    seed: [{ _id: 1 }],
    run: async (c) => {
      await c.createIndex({ a: 1 }, { name: 'ix' });
      return c.createIndex({ a: 1 }, { name: 'other' });
    },
    code: 85,
  },
  {
    name: 'a unique index over duplicate data is DuplicateKey',
    seed: [{ _id: 1, a: 1 }, { _id: 2, a: 1 }],
    run: (c) => c.createIndex({ a: 1 }, { unique: true }),
    code: 11000,
  },
  {
    name: 'an index spec without a key is FailedToParse',
    run: (c, db) => db.command({ createIndexes: c.collectionName, indexes: [{ name: 'x' }] }),
    code: 9,
  },
  {
    name: 'an index spec without a name is FailedToParse',
    run: (c, db) => db.command({ createIndexes: c.collectionName, indexes: [{ key: { a: 1 } }] }),
    code: 9,
  },
  {
    name: 'an invalid key value is CannotCreateIndex',
    run: (c, db) => db.command({ createIndexes: c.collectionName, indexes: [{ key: { a: 'nope' }, name: 'a' }] }),
    code: 67,
  },
  {
    name: 'an empty index name is CannotCreateIndex',
    run: (c, db) => db.command({ createIndexes: c.collectionName, indexes: [{ key: { a: 1 }, name: '' }] }),
    code: 67,
  },
  {
    name: 'an empty index list is BadValue',
    run: (c, db) => db.command({ createIndexes: c.collectionName, indexes: [] }),
    code: 2,
  },
  {
    name: 'a unique _id index spec is InvalidIndexSpecificationOption',
    run: (c, db) => db.command({ createIndexes: c.collectionName, indexes: [{ key: { _id: 1 }, name: '_id_', unique: true }] }),
    code: 197,
  },
  {
    name: 'an unknown index option is InvalidIndexSpecificationOption',
    run: (c, db) => db.command({ createIndexes: c.collectionName, indexes: [{ key: { a: 1 }, name: 'a_1', bogus: true }] }),
    code: 197,
  },
  {
    name: 'a non-boolean unique is TypeMismatch',
    run: (c, db) => db.command({ createIndexes: c.collectionName, indexes: [{ key: { a: 1 }, name: 'a_1', unique: {} }] }),
    code: 14,
  },
  {
    name: 'a collection name that is not a string is BadValue',
    run: (_c, db) => db.command({ createIndexes: 42, indexes: [{ key: { a: 1 }, name: 'a_1' }] }),
    code: 2,
  },
  {
    name: 'dropIndexes with an index of the wrong type is TypeMismatch',
    seed: [{ _id: 1 }],
    run: (c, db) => db.command({ dropIndexes: c.collectionName, index: true }),
    code: 14,
  },
  {
    name: 'dropIndexes with a list naming a missing index drops nothing',
    seed: [{ _id: 1 }],
    run: async (c, db) => {
      await c.createIndex({ a: 1 });
      const err = await db.command({ dropIndexes: c.collectionName, index: ['a_1', 'nope'] }).catch((e: { code: number }) => e.code);
      return [err, (await c.listIndexes().toArray()).length];
    },
    expected: [27, 2],
  },
  {
    name: 'listIndexes of a missing collection is NamespaceNotFound',
    run: (c) => c.listIndexes().toArray(),
    code: 26,
  },
  {
    name: 'dropIndex by name',
    seed: [{ _id: 1 }],
    run: async (c) => {
      await c.createIndex({ a: 1 });
      await c.dropIndex('a_1');
      return (await c.listIndexes().toArray()).map((ix) => ix.name);
    },
    expected: ['_id_'],
  },
  {
    name: 'dropIndex by key pattern',
    seed: [{ _id: 1 }],
    run: async (c, db) => {
      await c.createIndex({ a: 1 });
      await db.command({ dropIndexes: c.collectionName, index: { a: 1 } });
      return (await c.listIndexes().toArray()).map((ix) => ix.name);
    },
    expected: ['_id_'],
  },
  {
    name: "dropIndexes '*' keeps only _id_",
    seed: [{ _id: 1 }],
    run: async (c) => {
      await c.createIndex({ a: 1 });
      await c.createIndex({ b: 1 });
      await c.dropIndexes();
      return (await c.listIndexes().toArray()).map((ix) => ix.name);
    },
    expected: ['_id_'],
  },
  {
    name: 'dropping a missing index is IndexNotFound',
    seed: [{ _id: 1 }],
    run: (c) => c.dropIndex('nope_1'),
    code: 27,
  },
  {
    name: 'dropping the _id index is InvalidOptions',
    seed: [{ _id: 1 }],
    run: (c) => c.dropIndex('_id_'),
    code: 72,
  },
  {
    name: 'dropIndexes on a missing collection is NamespaceNotFound',
    run: (c) => c.dropIndex('a_1'),
    code: 26,
  },
  {
    name: 'dropDatabase removes every collection',
    seed: [{ _id: 1 }],
    run: async (c, db) => {
      const other = db.client.db(`${db.databaseName}_x`);
      await other.collection('t').insertOne({ a: 1 });
      await other.dropDatabase();
      return other.listCollections().toArray();
    },
    expected: [],
  },
];

describeCompat('catalog', cases);
