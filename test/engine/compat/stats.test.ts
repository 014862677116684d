import { expect } from 'vitest';
import { describeCompat, type CompatCase } from './compat-cases.js';

/** dbStats, $collStats, collStats, $indexStats and validate: what mongosh's db.stats() and db.coll.stats() read. */
const seed = [
  { _id: 1, a: 1, text: 'one' },
  { _id: 2, a: 2, text: 'two' },
  { _id: 3, a: 3, text: 'three' },
];
const indexes = [{ key: { a: 1 } }];
const positive = expect.any(Number);

const cases: CompatCase[] = [
  {
    name: 'dbStats counts the collections, objects and indexes of the database',
    seed,
    indexes,
    run: async (c, db) => {
      const stats = await db.command({ dbStats: 1 });
      return { db: stats.db === db.databaseName, objects: stats.objects >= 3, indexes: stats.indexes >= 2, collections: stats.collections >= 1 };
    },
    expected: { db: true, objects: true, indexes: true, collections: true },
  },
  {
    name: 'dbStats reports sizes as numbers, totalSize = storageSize + indexSize',
    seed,
    run: async (_c, db) => {
      const s = await db.command({ dbStats: 1 });
      return { sizes: [s.dataSize, s.storageSize, s.indexSize, s.totalSize].every((n) => typeof n === 'number' && n > 0), total: s.totalSize === s.storageSize + s.indexSize, scaleFactor: s.scaleFactor };
    },
    expected: { sizes: true, total: true, scaleFactor: 1 },
  },
  {
    name: 'dbStats with scale divides the byte counts',
    seed,
    run: async (_c, db) => {
      const [one, kb] = [await db.command({ dbStats: 1 }), await db.command({ dbStats: 1, scale: 1024 })];
      return { scaleFactor: kb.scaleFactor, objects: kb.objects === one.objects, smaller: kb.storageSize < one.storageSize };
    },
    expected: { scaleFactor: 1024, objects: true, smaller: true },
  },
  { name: 'dbStats with a scale of 0 is BadValue', run: (_c, db) => db.command({ dbStats: 1, scale: 0 }), code: 2 },
  {
    name: '$collStats storageStats and count describe the collection',
    seed,
    indexes,
    run: async (c) => {
      const [doc] = await c.aggregate([{ $collStats: { storageStats: {}, count: {} } }]).toArray();
      const s = doc!.storageStats;
      return {
        ns: doc!.ns === c.namespace,
        count: doc!.count,
        storage: { count: s.count, nindexes: s.nindexes, indexes: Object.keys(s.indexSizes).sort(), capped: s.capped },
        sizes: s.size > 0 && s.totalSize === s.storageSize + s.totalIndexSize && s.avgObjSize > 0,
      };
    },
    expected: { ns: true, count: 3, storage: { count: 3, nindexes: 2, indexes: ['_id_', 'a_1'], capped: false }, sizes: true },
  },
  {
    name: '$collStats storageStats.scale divides sizes',
    seed,
    run: async (c) => {
      const [doc] = await c.aggregate([{ $collStats: { storageStats: { scale: 1024 } } }]).toArray();
      return { scaleFactor: doc!.storageStats.scaleFactor, count: doc!.storageStats.count };
    },
    expected: { scaleFactor: 1024, count: 3 },
  },
  {
    name: '$collStats latencyStats counts operations on the collection',
    seed,
    run: async (c) => {
      await c.find({}).toArray();
      const [doc] = await c.aggregate([{ $collStats: { latencyStats: {} } }]).toArray();
      const l = doc!.latencyStats;
      return { reads: l.reads.ops > 0, writes: l.writes.ops > 0, keys: Object.keys(l).sort() };
    },
    expected: { reads: true, writes: true, keys: ['commands', 'reads', 'transactions', 'writes'] },
  },
  {
    name: '$collStats storageStats on a missing collection is NamespaceNotFound',
    run: (c) => c.aggregate([{ $collStats: { storageStats: {} } }]).toArray(),
    code: 26,
  },
  {
    name: '$collStats is followed by the rest of the pipeline',
    seed,
    run: (c) => c.aggregate([{ $collStats: { storageStats: {} } }, { $group: { _id: null, n: { $sum: '$storageStats.count' } } }]).toArray(),
    expected: [{ _id: null, n: 3 }],
  },
  {
    name: 'the collStats command answers the same counts',
    seed,
    indexes,
    run: async (c, db) => {
      const s = await db.command({ collStats: c.collectionName });
      return { count: s.count, nindexes: s.nindexes, size: s.size > 0 };
    },
    expected: { count: 3, nindexes: 2, size: true },
  },
  {
    name: '$indexStats lists every index with its key and spec',
    seed,
    indexes,
    run: async (c) =>
      (await c.aggregate([{ $indexStats: {} }, { $project: { _id: 0, name: 1, key: 1, 'spec.name': 1 } }, { $sort: { name: 1 } }]).toArray()),
    expected: [
      { name: '_id_', key: { _id: 1 }, spec: { name: '_id_' } },
      { name: 'a_1', key: { a: 1 }, spec: { name: 'a_1' } },
    ],
  },
  {
    name: 'validate finds the collection and its indexes valid',
    seed,
    indexes,
    run: async (c, db) => {
      const r = await db.command({ validate: c.collectionName });
      return { valid: r.valid, nrecords: r.nrecords, nIndexes: r.nIndexes, keysPerIndex: r.keysPerIndex, errors: r.errors };
    },
    expected: { valid: true, nrecords: 3, nIndexes: 2, keysPerIndex: { _id_: 3, a_1: 3 }, errors: [] },
  },
  {
    name: 'validate counts documents that fail a validator added later',
    run: async (c, db) => {
      await db.createCollection(c.collectionName);
      await c.insertMany([{ _id: 1, n: 1 }, { _id: 2, n: 'x' }]);
      await db.command({ collMod: c.collectionName, validator: { n: { $type: 'number' } } });
      const r = await db.command({ validate: c.collectionName });
      return { valid: r.valid, nNonCompliantDocuments: r.nNonCompliantDocuments };
    },
    expected: { valid: true, nNonCompliantDocuments: 1 },
  },
  { name: 'validate of a missing collection is NamespaceNotFound', run: (c, db) => db.command({ validate: c.collectionName }), code: 26 },
  {
    name: 'listDatabases reports a size for a database with data',
    seed,
    run: async (_c, db) => {
      const { databases } = await db.admin().command({ listDatabases: 1 });
      const mine = databases.find((d: { name: string }) => d.name === db.databaseName);
      return { sizeOnDisk: mine.sizeOnDisk, empty: mine.empty };
    },
    expected: { sizeOnDisk: positive, empty: false },
  },
];

describeCompat('stats', cases);
