import { describeCompat, type CompatCase } from './compat-cases.js';

/** The commands behind mongosh's other helpers: renameCollection, reIndex, fsync, currentOp, listCommands, commandHelp. */
const seed = [
  { _id: 1, a: 1 },
  { _id: 2, a: 2 },
];

const cases: CompatCase[] = [
  {
    name: 'renameCollection moves the documents and indexes',
    seed,
    indexes: [{ key: { a: 1 }, options: { unique: true } }],
    run: async (c, db) => {
      const to = `${c.collectionName}_renamed`;
      await c.rename(to);
      const renamed = db.collection(to);
      const names = (await db.listCollections({}, { nameOnly: true }).toArray()).map((x) => x.name);
      return {
        docs: await renamed.find().sort({ _id: 1 }).toArray(),
        indexes: (await renamed.indexes()).map((ix) => [ix.name, ix.unique ?? false]),
        sourceGone: !names.includes(c.collectionName),
      };
    },
    expected: { docs: seed, indexes: [['_id_', false], ['a_1', true]], sourceGone: true },
  },
  {
    name: 'renameCollection onto an existing collection without dropTarget is NamespaceExists',
    seed,
    run: async (c, db) => {
      await db.collection<{ _id: number }>(`${c.collectionName}_other`).insertOne({ _id: 1 });
      return db.admin().command({ renameCollection: c.namespace, to: `${c.namespace}_other` });
    },
    code: 48,
  },
  {
    name: 'renameCollection with dropTarget replaces the target',
    seed,
    run: async (c, db) => {
      const other = db.collection<{ _id: number | string }>(`${c.collectionName}_other`);
      await other.insertOne({ _id: 'old' });
      await db.admin().command({ renameCollection: c.namespace, to: other.namespace, dropTarget: true });
      return other.countDocuments();
    },
    expected: 2,
  },
  {
    name: 'renameCollection of a missing collection is NamespaceNotFound',
    run: (c, db) => db.admin().command({ renameCollection: c.namespace, to: `${c.namespace}_x` }),
    code: 26,
  },
  {
    name: 'renameCollection outside admin is Unauthorized',
    seed,
    run: (c, db) => db.command({ renameCollection: c.namespace, to: `${c.namespace}_x` }),
    code: 13,
  },
  {
    name: 'reIndex rebuilds the indexes',
    seed,
    indexes: [{ key: { a: 1 } }],
    run: async (c, db) => {
      const r = await db.command({ reIndex: c.collectionName });
      return { nIndexesWas: r.nIndexesWas, nIndexes: r.nIndexes, usable: (await c.find({ a: 2 }).hint('a_1').toArray()).length };
    },
    expected: { nIndexesWas: 2, nIndexes: 2, usable: 1 },
  },
  {
    name: 'fsync flushes',
    run: async (_c, db) => (await db.admin().command({ fsync: 1 })).ok,
    expected: 1,
  },
  {
    name: 'currentOp on admin lists the operations in progress, itself included',
    run: async (_c, db) => {
      const { inprog } = await db.admin().command({ currentOp: 1 });
      return inprog.some((op: { command?: Record<string, unknown> }) => op.command?.currentOp === 1);
    },
    expected: true,
  },
  {
    name: '$currentOp outside admin is InvalidNamespace',
    run: (c) => c.aggregate([{ $currentOp: {} }]).toArray(),
    code: 73,
  },
  {
    name: 'listCommands includes the inspection commands',
    run: async (_c, db) => {
      const { commands } = await db.command({ listCommands: 1 });
      return ['dbStats', 'explain', 'collMod', 'validate', 'find'].every((name) => typeof commands[name]?.help === 'string');
    },
    expected: true,
  },
  {
    name: 'a command with help: true describes itself (db.commandHelp)',
    run: async (_c, db) => typeof (await db.command({ find: 1, help: true })).help,
    expected: 'string',
  },
  {
    name: 'dataSize counts the bytes and documents of a collection',
    seed,
    run: async (c, db) => {
      const r = await db.command({ dataSize: c.namespace });
      return { numObjects: r.numObjects, size: r.size > 0 };
    },
    expected: { numObjects: 2, size: true },
  },
  {
    name: 'compact answers bytesFreed',
    seed,
    run: async (c, db) => typeof (await db.command({ compact: c.collectionName })).bytesFreed,
    expected: 'number',
  },
  {
    name: '$planCacheStats answers no cached plans, planCacheClear succeeds',
    seed,
    run: async (c, db) => {
      await c.find({ a: 1 }).toArray();
      await db.command({ planCacheClear: c.collectionName });
      return (await c.aggregate([{ $planCacheStats: {} }, { $match: { planCacheKey: 'none' } }]).toArray()).length;
    },
    expected: 0,
  },
  {
    name: 'replSetGetStatus on a standalone is NoReplicationEnabled',
    run: (_c, db) => db.admin().command({ replSetGetStatus: 1 }),
    code: 76,
  },
  {
    name: 'serverStatus counts operations in opcounters',
    seed,
    run: async (c, db) => {
      const before = (await db.admin().command({ serverStatus: 1 })).opcounters;
      await c.find({}).toArray();
      await c.insertOne({ _id: 9 });
      const after = (await db.admin().command({ serverStatus: 1 })).opcounters;
      return { query: after.query > before.query, insert: after.insert > before.insert };
    },
    expected: { query: true, insert: true },
  },
];

describeCompat('shell helpers', cases);
