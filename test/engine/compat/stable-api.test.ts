import { describeCompat, type CompatCase } from './compat-cases.js';

/**
 * The Stable API parameters (apiVersion, apiStrict, apiDeprecationErrors) as
 * mongod judges them before running a command: their types, "1" as the only
 * version, strict and deprecation options only with a version, and apiStrict
 * refusing commands outside version 1, and aggregation stages outside it.
 */
const ok = async (reply: Promise<{ ok?: unknown }>) => (await reply).ok;

const cases: CompatCase[] = [
  { name: 'apiStrict without apiVersion is refused', run: (_c, db) => db.command({ ping: 1, apiStrict: true }), code: 4886600 },
  { name: 'apiStrict: false without apiVersion is refused too', run: (_c, db) => db.command({ ping: 1, apiStrict: false }), code: 4886600 },
  { name: 'apiDeprecationErrors without apiVersion is refused', run: (_c, db) => db.command({ ping: 1, apiDeprecationErrors: false }), code: 4886600 },
  { name: 'an apiVersion that is not a string is TypeMismatch', run: (_c, db) => db.command({ ping: 1, apiVersion: 1 }), code: 14 },
  { name: 'an apiVersion other than "1" is APIVersionError', run: (_c, db) => db.command({ ping: 1, apiVersion: '2' }), code: 322 },
  { name: 'an apiStrict that is not a boolean is TypeMismatch', run: (_c, db) => db.command({ ping: 1, apiVersion: '1', apiStrict: 'true' }), code: 14 },
  { name: 'an apiDeprecationErrors that is not a boolean is TypeMismatch', run: (_c, db) => db.command({ ping: 1, apiVersion: '1', apiDeprecationErrors: 'false' }), code: 14 },
  { name: 'a version 1 command runs with every parameter', run: (_c, db) => ok(db.command({ ping: 1, apiVersion: '1', apiStrict: true, apiDeprecationErrors: true })), expected: 1 },
  { name: 'a version 1 command runs with apiVersion alone', run: (_c, db) => ok(db.command({ ping: 1, apiVersion: '1' })), expected: 1 },
  { name: 'a command outside version 1 runs when not strict', run: (_c, db) => ok(db.command({ listCommands: 1, apiVersion: '1' })), expected: 1 },
  { name: 'a command outside version 1 runs with apiDeprecationErrors', run: (_c, db) => ok(db.command({ listCommands: 1, apiVersion: '1', apiDeprecationErrors: true })), expected: 1 },
  { name: 'apiStrict refuses a command outside version 1 (listCommands)', run: (_c, db) => db.command({ listCommands: 1, apiVersion: '1', apiStrict: true }), code: 323 },
  { name: 'apiStrict refuses isMaster, the legacy spelling of hello', run: (_c, db) => db.command({ isMaster: 1, apiVersion: '1', apiStrict: true }), code: 323 },
  { name: 'apiStrict accepts hello', run: (_c, db) => ok(db.command({ hello: 1, apiVersion: '1', apiStrict: true })), expected: 1 },
  {
    name: 'apiStrict refuses distinct',
    seed: [{ _id: 1, a: 1 }],
    run: (c, db) => db.command({ distinct: c.collectionName, key: 'a', apiVersion: '1', apiStrict: true }),
    code: 323,
  },
  {
    name: 'apiStrict accepts find, which answers as ever',
    seed: [{ _id: 1, a: 1 }],
    run: async (c, db) => ((await db.command({ find: c.collectionName, filter: {}, apiVersion: '1', apiStrict: true })) as { cursor: { firstBatch: unknown[] } }).cursor.firstBatch,
    expected: [{ _id: 1, a: 1 }],
  },
  {
    name: 'apiStrict refuses an aggregate with a stage outside version 1 ($listLocalSessions)',
    run: (_c, db) => db.client.db('admin').command({ aggregate: 1, pipeline: [{ $listLocalSessions: {} }, { $limit: 1 }], cursor: {}, apiVersion: '1', apiStrict: true }),
    code: 323,
  },
  {
    name: 'apiStrict refuses a stage outside version 1 inside a $facet',
    seed: [{ _id: 1 }],
    run: (c, db) =>
      db.command({ aggregate: c.collectionName, pipeline: [{ $facet: { s: [{ $indexStats: {} }] } }], cursor: {}, apiVersion: '1', apiStrict: true }),
    code: 323,
  },
  {
    name: 'apiStrict refuses a stage outside version 1 inside a $lookup pipeline',
    seed: [{ _id: 1 }],
    run: (c, db) =>
      db.command({
        aggregate: c.collectionName,
        pipeline: [{ $lookup: { from: c.collectionName, pipeline: [{ $indexStats: {} }], as: 'x' } }],
        cursor: {},
        apiVersion: '1',
        apiStrict: true,
      }),
    code: 323,
  },
  {
    name: 'apiStrict refuses $collStats with storageStats',
    seed: [{ _id: 1 }],
    run: (c, db) => db.command({ aggregate: c.collectionName, pipeline: [{ $collStats: { storageStats: {} } }], cursor: {}, apiVersion: '1', apiStrict: true }),
    code: 323,
  },
  {
    name: 'apiStrict refuses $collStats with latencyStats',
    seed: [{ _id: 1 }],
    run: (c, db) => db.command({ aggregate: c.collectionName, pipeline: [{ $collStats: { latencyStats: {} } }], cursor: {}, apiVersion: '1', apiStrict: true }),
    code: 323,
  },
  {
    name: 'apiStrict accepts $collStats with count',
    seed: [{ _id: 1 }, { _id: 2 }],
    run: async (c, db) =>
      ((await db.command({ aggregate: c.collectionName, pipeline: [{ $collStats: { count: {} } }], cursor: {}, apiVersion: '1', apiStrict: true })) as {
        cursor: { firstBatch: { count: number }[] };
      }).cursor.firstBatch.map((s) => s.count),
    expected: [2],
  },
  {
    name: 'the same stage runs when not strict',
    run: async (_c, db) =>
      ((await db.client.db('admin').command({ aggregate: 1, pipeline: [{ $listLocalSessions: {} }, { $limit: 1 }, { $count: 'n' }], cursor: {}, apiVersion: '1' })) as {
        cursor: { firstBatch: unknown[] };
      }).cursor.firstBatch.length,
    expected: 1,
  },
  {
    name: 'apiStrict accepts an aggregate of version 1 stages',
    seed: [{ _id: 1, a: 2 }],
    run: async (c, db) =>
      ((await db.command({ aggregate: c.collectionName, pipeline: [{ $match: { a: 2 } }, { $project: { a: 1 } }], cursor: {}, apiVersion: '1', apiStrict: true })) as {
        cursor: { firstBatch: unknown[] };
      }).cursor.firstBatch,
    expected: [{ _id: 1, a: 2 }],
  },
  { name: 'an unknown command is CommandNotFound before any API check', run: (_c, db) => db.command({ noSuchCommand: 1, apiStrict: true }), code: 59 },
];

describeCompat('stable-api', cases);
