import { type Db, type Document } from 'mongodb';
import { describeCompat, type CompatCase, type LooseCollection } from './compat-cases.js';

/**
 * Clustered collections (`create` with `clusteredIndex`) as mongod 7.0
 * checks, stores and lists them (jstests/core/clustered/clustered_collection_creation.js
 * for the codes): the spec completed with `v: 2` and the name `_id_`, no
 * `idIndex` in listCollections, the `clustered: true` index in listIndexes.
 */

async function createClustered(c: LooseCollection, db: Db, options: Document): Promise<unknown> {
  await c.drop().catch(() => undefined);
  return db.command({ create: c.collectionName, ...options });
}

const listed = async (c: LooseCollection, db: Db): Promise<Document> => (await db.listCollections({ name: c.collectionName }).toArray())[0]!;

const refuse = (name: string, options: Document, code: number): CompatCase => ({
  name,
  run: (c, db) => createClustered(c, db, options),
  code,
});

const cases: CompatCase[] = [
  {
    name: 'listCollections echoes the clustered index with v 2 and the default name, and no idIndex',
    run: async (c, db) => {
      await createClustered(c, db, { clusteredIndex: { key: { _id: 1 }, unique: true } });
      const { options, idIndex, type } = await listed(c, db);
      return { type, options, idIndex };
    },
    expected: { type: 'collection', options: { clusteredIndex: { v: 2, key: { _id: 1 }, name: '_id_', unique: true } }, idIndex: undefined },
  },
  {
    name: 'listIndexes shows the clustered index with clustered: true',
    run: async (c, db) => {
      await createClustered(c, db, { clusteredIndex: { key: { _id: 1 }, unique: true, name: 'by_id' } });
      await c.createIndex({ a: 1 });
      return c.listIndexes().toArray();
    },
    expected: [
      { v: 2, key: { _id: 1 }, name: 'by_id', unique: true, clustered: true },
      { v: 2, key: { a: 1 }, name: 'a_1' },
    ],
  },
  {
    name: 'the driver createCollection with clusteredIndex and expireAfterSeconds',
    run: async (c, db) => {
      await c.drop().catch(() => undefined);
      await db.createCollection(c.collectionName, { clusteredIndex: { key: { _id: 1 }, unique: true }, expireAfterSeconds: 60 });
      return (await listed(c, db)).options;
    },
    expected: { clusteredIndex: { v: 2, key: { _id: 1 }, name: '_id_', unique: true }, expireAfterSeconds: 60 },
  },
  {
    name: 'a clustered collection refuses a duplicate _id and reads by _id',
    run: async (c, db) => {
      await createClustered(c, db, { clusteredIndex: { key: { _id: 1 }, unique: true } });
      await c.insertMany([{ _id: 2, a: 1 }, { _id: 1, a: 2 }]);
      const dup = await c.insertOne({ _id: 1 }).then(() => 0, (e: { code: number }) => e.code);
      return [dup, await c.findOne({ _id: 1 })];
    },
    expected: [11000, { _id: 1, a: 2 }],
  },
  {
    name: 'clusteredIndex: false creates an ordinary collection',
    run: async (c, db) => {
      await createClustered(c, db, { clusteredIndex: false });
      const entry = await listed(c, db);
      return [entry.options, entry.idIndex];
    },
    expected: [{}, { v: 2, key: { _id: 1 }, name: '_id_' }],
  },
  {
    name: 'the clustered index cannot be dropped by name',
    run: async (c, db) => {
      await createClustered(c, db, { clusteredIndex: { key: { _id: 1 }, unique: true } });
      return c.dropIndex('_id_');
    },
    code: 5979800,
  },
  {
    name: 'the clustered index cannot be dropped by key',
    run: async (c, db) => {
      await createClustered(c, db, { clusteredIndex: { key: { _id: 1 }, unique: true, name: 'by_id' } });
      return db.command({ dropIndexes: c.collectionName, index: { _id: 1 } });
    },
    code: 5979800,
  },
  refuse('unique false is 5979700', { clusteredIndex: { key: { _id: 1 }, unique: false } }, 5979700),
  refuse('a key other than _id is InvalidIndexSpecificationOption', { clusteredIndex: { key: { ts: 1 }, unique: true } }, 197),
  refuse('an unknown field is 40415', { clusteredIndex: { key: { _id: 1 }, unique: true, randField: 1 } }, 40415),
  refuse('a version other than 2 is 5979704', { clusteredIndex: { key: { _id: 1 }, unique: true, v: 12345 } }, 5979704),
  refuse('the legacy clusteredIndex: true is 5979703', { clusteredIndex: true }, 5979703),
  refuse('with viewOn is 6026500', { clusteredIndex: { key: { _id: 1 }, unique: true }, viewOn: 'src' }, 6026500),
  refuse('with autoIndexId false is 6026501', { clusteredIndex: { key: { _id: 1 }, unique: true }, autoIndexId: false }, 6026501),
  refuse('clusteredIndex false with expireAfterSeconds is InvalidOptions', { clusteredIndex: false, expireAfterSeconds: 5 }, 72),
];


describeCompat('clustered', cases);
