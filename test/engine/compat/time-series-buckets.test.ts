import { type Db, type Document, ObjectId } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { restarts } from '../support/restarts.js';
import { describeCompat, type CompatCase, type LooseCollection } from './compat-cases.js';

/**
 * What mongod 7.0 adds around a time-series collection's measurements: the
 * `{metaField: 1, timeField: 1}` index it creates (6.3+) and the index specs it
 * refuses (timeseries_commands_conversion_helper.cpp), its limits on updates
 * (write_ops_exec.cpp, timeseries_update_delete_util.cpp: multi, no upsert,
 * metaField only; deletes have none since 7.0), and the `system.buckets.<name>`
 * collection holding its buckets.
 */

const t0 = new Date('2026-01-01T00:00:00Z');
const at = (minutes: number) => new Date(t0.getTime() + minutes * 60_000);

async function createTs(c: LooseCollection, db: Db, timeseries: Document, more: Document = {}): Promise<void> {
  await c.drop().catch(() => undefined);
  await db.command({ create: c.collectionName, timeseries, ...more });
}

const withMeta = { timeField: 't', metaField: 'm' };

/** A createIndex on a fresh time-series collection `{t, m}`. */
const indexCase = (name: string, key: Document, options: Document, code?: number): CompatCase => ({
  name,
  run: async (c, db) => {
    await createTs(c, db, withMeta);
    return c.createIndex(key, options);
  },
  ...(code === undefined ? { expected: expect.any(String) } : { code }),
});

/** The first write error of a raw update command (mongod answers time-series limits per statement). */
async function updateError(c: LooseCollection, db: Db, statement: Document): Promise<unknown> {
  const reply = await db.command({ update: c.collectionName, updates: [statement] });
  return (reply.writeErrors as Document[] | undefined)?.[0]?.code;
}

const updateCase = (name: string, statement: Document, code: number, timeseries: Document = withMeta): CompatCase => ({
  name,
  run: async (c, db) => {
    await createTs(c, db, timeseries);
    await c.insertMany([{ t: at(0), m: 'a', v: 1 }]);
    return { code: await updateError(c, db, statement), unchanged: await c.find({}, { projection: { _id: 0 } }).toArray() };
  },
  expected: { code, unchanged: [{ t: at(0), m: 'a', v: 1 }] },
});

const buckets = (c: LooseCollection, db: Db) => db.collection(`system.buckets.${c.collectionName}`);

const indexCases: CompatCase[] = [
  // The index mongod 6.3+ creates.
  {
    name: 'a time-series collection with a metaField has the {metaField: 1, timeField: 1} index',
    run: async (c, db) => {
      await createTs(c, db, withMeta);
      return c.listIndexes().toArray();
    },
    expected: [{ v: 2, key: { m: 1, t: 1 }, name: 'm_1_t_1' }],
  },
  {
    name: 'the metaField/timeField index answers a query hinted to it',
    run: async (c, db) => {
      await createTs(c, db, withMeta);
      await c.insertMany([
        { t: at(2), m: 'a', v: 1 },
        { t: at(1), m: 'b', v: 2 },
        { t: at(0), m: 'a', v: 3 },
      ]);
      return c.find({ m: 'a', t: { $gte: at(0) } }, { projection: { _id: 0, v: 1 } }).hint('m_1_t_1').toArray();
    },
    // In the index's order: meta, then time.
    expected: [{ v: 3 }, { v: 1 }],
  },
  {
    name: 'a custom-bucketing time-series collection with a metaField has it too',
    run: async (c, db) => {
      await createTs(c, db, { timeField: 'time', metaField: 'tags', bucketMaxSpanSeconds: 600, bucketRoundingSeconds: 600 });
      return (await c.listIndexes().toArray()).map((ix) => ix.name);
    },
    expected: ['tags_1_time_1'],
  },
  // Index specs mongod 7.0 refuses on a time-series collection, and some it takes.
  indexCase('a unique index is InvalidOptions', { m: 1 }, { unique: true }, 72),
  indexCase('a text index is InvalidOptions', { v: 'text' }, {}, 72),
  indexCase('a text index on the metaField is InvalidOptions', { m: 'text' }, {}, 72),
  indexCase('a TTL index without a partialFilterExpression is InvalidOptions', { t: 1 }, { expireAfterSeconds: 10 }, 72),
  indexCase('a TTL index whose partialFilterExpression reads a measurement is InvalidOptions', { t: 1 }, { expireAfterSeconds: 10, partialFilterExpression: { v: { $gt: 1 } } }, 72),
  indexCase('a compound TTL index is CannotCreateIndex', { t: 1, m: 1 }, { expireAfterSeconds: 10, partialFilterExpression: { m: 'a' } }, 67),
  indexCase('a TTL index on another field than the time is InvalidOptions', { v: 1 }, { expireAfterSeconds: 10, partialFilterExpression: { m: 'a' } }, 72),
  indexCase('a TTL index on the time field, partial on the metaField, is created', { t: 1 }, { expireAfterSeconds: 10, partialFilterExpression: { m: 'a' } }),
  indexCase('a sparse index on a measurement is InvalidOptions', { v: 1 }, { sparse: true }, 72),
  indexCase('a sparse index on the metaField is created', { 'm.x': 1 }, { sparse: true }),
  indexCase('a hashed index on a measurement is CannotCreateIndex', { v: 'hashed' }, {}, 67),
  indexCase('a 2d index on a measurement is CannotCreateIndex', { v: '2d' }, {}, 67),
  indexCase('a hashed index on the time field is CannotCreateIndex', { t: 'hashed' }, {}, 67),
  indexCase('a wildcard index over the measurements is CannotCreateIndex', { '$**': 1 }, {}, 67),
  indexCase('partialFilterExpression with a collation is IndexOptionsConflict', { m: 1 }, { partialFilterExpression: { m: 'a' }, collation: { locale: 'en' } }, 85),
  indexCase('a hashed index on the metaField is created', { m: 'hashed' }, {}),
  indexCase('a 2dsphere index on a measurement is created', { loc: '2dsphere' }, {}),
  indexCase('an ascending index on a measurement is created', { v: 1, t: -1 }, {}),
];

// Updates: mongod 7.0 takes only multi updates of the metaField, selected by it.
const updateCases: CompatCase[] = [
  updateCase('a non-multi update is InvalidOptions', { q: { m: 'a' }, u: { $set: { m: 'b' } } }, 72),
  updateCase('an upsert is InvalidOptions', { q: { m: 'a' }, u: { $set: { m: 'b' } }, multi: true, upsert: true }, 72),
  updateCase('an update without a metaField is InvalidOptions', { q: {}, u: { $set: { v: 2 } }, multi: true }, 72, { timeField: 't' }),
  updateCase('an update selecting on a measurement is InvalidOptions', { q: { v: 1 }, u: { $set: { m: 'b' } }, multi: true }, 72),
  updateCase('an update selecting on _id is InvalidOptions', { q: { _id: 1 }, u: { $set: { m: 'b' } }, multi: true }, 72),
  updateCase('an update selecting with $expr is InvalidOptions', { q: { $expr: { $eq: ['$m', 'a'] } }, u: { $set: { m: 'b' } }, multi: true }, 72),
  updateCase('an update selecting on a measurement inside $or is InvalidOptions', { q: { $or: [{ m: 'a' }, { v: 1 }] }, u: { $set: { m: 'b' } }, multi: true }, 72),
  updateCase('an update changing a measurement is InvalidOptions', { q: { m: 'a' }, u: { $set: { v: 2 } }, multi: true }, 72),
  updateCase('a $rename out of the metaField is InvalidOptions', { q: { m: 'a' }, u: { $rename: { m: 'v' } }, multi: true }, 72),
  updateCase('a replacement update is InvalidOptions', { q: { m: 'a' }, u: { m: 'b' }, multi: true }, 72),
  updateCase('a pipeline update is InvalidOptions', { q: { m: 'a' }, u: [{ $set: { m: 'b' } }], multi: true }, 72),
  {
    name: 'a multi update of the metaField by it changes every measurement holding the value',
    run: async (c, db) => {
      await createTs(c, db, withMeta);
      await c.insertMany([
        { t: at(0), m: { s: 'a' }, v: 1 },
        { t: at(1), m: { s: 'b' }, v: 2 },
        { t: at(2), m: { s: 'a' }, v: 3 },
      ]);
      const res = await c.updateMany({ $and: [{ 'm.s': 'a' }] }, { $set: { 'm.s': 'c' }, $inc: { 'm.n': 1 } });
      return { matched: res.matchedCount, modified: res.modifiedCount, docs: await c.find({}, { projection: { _id: 0, m: 1 } }).sort({ t: 1 }).toArray() };
    },
    expected: { matched: 2, modified: 2, docs: [{ m: { s: 'c', n: 1 } }, { m: { s: 'b' } }, { m: { s: 'c', n: 1 } }] },
  },
  {
    name: 'deletes take any filter since 7.0, deleteOne included',
    run: async (c, db) => {
      await createTs(c, db, withMeta);
      await c.insertMany([1, 2, 3, 4].map((v) => ({ t: at(v), m: 'a', v })));
      const one = await c.deleteOne({ v: { $gte: 2 } });
      const many = await c.deleteMany({ $expr: { $gt: ['$v', 2] } });
      return { one: one.deletedCount, many: many.deletedCount, left: (await c.find().toArray()).map((d) => d.v) };
    },
    expected: { one: 1, many: 2, left: [1] },
  },
];

const bucketCases: CompatCase[] = [
  {
    name: 'listCollections lists system.buckets.<name> as a clustered collection with the time-series options',
    run: async (c, db) => {
      await createTs(c, db, { ...withMeta, granularity: 'minutes' }, { expireAfterSeconds: 3600 });
      return db.listCollections({ name: `system.buckets.${c.collectionName}` }).toArray();
    },
    expected: [
      {
        name: expect.stringMatching(/^system\.buckets\./),
        type: 'collection',
        options: expect.objectContaining({
          clusteredIndex: true,
          timeseries: { timeField: 't', metaField: 'm', granularity: 'minutes', bucketMaxSpanSeconds: 86400 },
          expireAfterSeconds: 3600,
        }),
        info: { readOnly: false, uuid: expect.anything() },
      },
    ],
  },
  {
    name: 'listIndexes on system.buckets.<name> shows the indexes as kept on the buckets',
    run: async (c, db) => {
      await createTs(c, db, withMeta);
      await c.createIndex({ v: -1 });
      await c.createIndex({ 'm.k': 1, t: -1 });
      return buckets(c, db).listIndexes().toArray();
    },
    expected: [
      { v: 2, key: { meta: 1, 'control.min.t': 1, 'control.max.t': 1 }, name: 'm_1_t_1' },
      { v: 2, key: { 'control.max.v': -1, 'control.min.v': -1 }, name: 'v_-1', originalSpec: expect.objectContaining({ key: { v: -1 }, name: 'v_-1' }) },
      { v: 2, key: { 'meta.k': 1, 'control.max.t': -1, 'control.min.t': -1 }, name: 'm.k_1_t_-1' },
    ],
  },
  {
    name: 'creating system.buckets.<name> of a time-series collection is NamespaceExists',
    run: async (c, db) => {
      await createTs(c, db, withMeta);
      return db.command({ create: `system.buckets.${c.collectionName}` });
    },
    code: 48,
  },
  {
    name: 'system.buckets.<name> holds one bucket per meta value, columns by measurement index',
    run: async (c, db) => {
      await createTs(c, db, withMeta);
      await c.insertMany([
        { _id: 1, t: at(0.5), m: 'a', v: 10 },
        { _id: 2, t: at(1), m: 'b', v: 20 },
        { _id: 3, t: at(2), m: 'a', w: 'x' },
      ]);
      const docs = await buckets(c, db).find().toArray();
      return docs.sort((a, b) => String(a.meta).localeCompare(String(b.meta))).map(({ _id, ...rest }) => ({ idIsOid: _id instanceof ObjectId, ...rest }));
    },
    expected: [
      {
        idIsOid: true,
        control: { version: 1, min: { _id: 1, t: at(0), v: 10, w: 'x' }, max: { _id: 3, t: at(2), v: 10, w: 'x' } },
        meta: 'a',
        data: { _id: { 0: 1, 1: 3 }, t: { 0: at(0.5), 1: at(2) }, v: { 0: 10 }, w: { 1: 'x' } },
      },
      {
        idIsOid: true,
        control: { version: 1, min: { _id: 2, t: at(1), v: 20 }, max: { _id: 2, t: at(1), v: 20 } },
        meta: 'b',
        data: { _id: { 0: 2 }, t: { 0: at(1) }, v: { 0: 20 } },
      },
    ],
  },
  {
    name: "a bucket's _id carries its rounded-down start time, and finds it",
    run: async (c, db) => {
      await createTs(c, db, withMeta);
      await c.insertOne({ t: at(30.25), m: 'a' });
      const [bucket] = await buckets(c, db).find().toArray();
      const again = await buckets(c, db).findOne({ _id: bucket!._id });
      return { idTime: (bucket!._id as ObjectId).getTimestamp(), minTime: bucket!.control.min.t, same: again?.meta };
    },
    expected: { idTime: at(30), minTime: at(30), same: 'a' },
  },
  {
    name: 'a bucket spans at most bucketMaxSpanSeconds; a measurement earlier than the open one reopens the bucket it fits',
    run: async (c, db) => {
      await createTs(c, db, withMeta);
      // granularity seconds: a bucket spans 3600 s from its minute.
      await c.insertMany([at(0), at(59), at(61), at(30), at(-5)].map((t) => ({ t, m: 'a' })));
      const docs = await buckets(c, db).find({}, { sort: { 'control.min.t': 1 } }).toArray();
      return docs.map((b) => [b.control.min.t, Object.keys(b.data.t).length]);
    },
    expected: [
      [at(-5), 1],
      [at(0), 3],
      [at(61), 1],
    ],
  },
  {
    name: 'a bucket holds at most 1000 measurements',
    run: async (c, db) => {
      await createTs(c, db, withMeta);
      await c.insertMany(Array.from({ length: 1001 }, (_, i) => ({ t: new Date(t0.getTime() + i), m: 'a' })));
      const docs = await buckets(c, db).aggregate([{ $project: { n: { $size: { $objectToArray: '$data.t' } } } }, { $sort: { n: -1 } }]).toArray();
      return docs.map((d) => d.n);
    },
    expected: [1000, 1],
  },
  {
    name: 'count and a filter on control read the buckets; the time-series collection still counts measurements',
    run: async (c, db) => {
      await createTs(c, db, withMeta);
      await c.insertMany([
        { t: at(0), m: 'a' },
        { t: at(1), m: 'a' },
        { t: at(2), m: 'b' },
      ]);
      return {
        buckets: await buckets(c, db).countDocuments(),
        fromB: await buckets(c, db).countDocuments({ meta: 'b', 'control.max.t': { $gte: at(2) } }),
        measurements: await c.countDocuments(),
      };
    },
    expected: { buckets: 2, fromB: 1, measurements: 3 },
  },
  {
    name: 'a time-series collection without a metaField puts every measurement in the same buckets, without meta',
    run: async (c, db) => {
      await createTs(c, db, { timeField: 't' });
      await c.insertMany([{ t: at(0), v: 1 }, { t: at(1), v: 2 }]);
      return (await buckets(c, db).find().toArray()).map((b) => ({ hasMeta: 'meta' in b, v: b.data.v }));
    },
    expected: [{ hasMeta: false, v: { 0: 1, 1: 2 } }],
  },
  {
    name: "collStats has the timeseries section: the buckets' namespace, count and measurements",
    run: async (c, db) => {
      await createTs(c, db, withMeta);
      await c.insertMany([
        { t: at(0), m: 'a' },
        { t: at(1), m: 'b' },
        { t: at(2), m: 'a' },
      ]);
      const stats = await db.command({ collStats: c.collectionName });
      const ts = stats.timeseries as Document;
      return { bucketsNs: ts.bucketsNs, bucketCount: ts.bucketCount, inserts: ts.numBucketInserts, committed: ts.numMeasurementsCommitted, avg: ts.avgBucketSize > 0 };
    },
    expected: { bucketsNs: expect.stringMatching(/\.system\.buckets\.c\d+$/), bucketCount: 2, inserts: 2, committed: 3, avg: true },
  },
];

describeCompat('time-series-buckets', [...indexCases, ...updateCases, ...bucketCases]);

describe('time-series buckets on the engine: derived, read-only, kept across restarts', () => {
  const { dbPath: tempDir, withClient } = restarts('engine-ts-buckets');

  it('refuses writes to system.buckets.<name> with InvalidNamespace (the engine has no bucket records to write)', async () => {
    const dbPath = tempDir();
    const codes = await withClient(dbPath, async (client) => {
      const db = client.db('app');
      await db.createCollection('weather', { timeseries: { timeField: 't', metaField: 'm' } });
      await db.collection('weather').insertOne({ t: at(0), m: 'a' });
      const b = db.collection('system.buckets.weather');
      const code = (p: Promise<unknown>) => p.then(() => undefined, (e: { code?: number }) => e.code);
      return [
        await code(b.insertOne({ control: { version: 1 } })),
        await code(b.updateMany({}, { $set: { meta: 'b' } })),
        await code(b.deleteMany({})),
        await code(b.createIndex({ meta: 1 })),
        await db.collection('weather').countDocuments(),
      ];
    });
    expect(codes).toEqual([73, 73, 73, 73, 1]);
  });

  it('keeps the metaField/timeField index, the buckets and the update limits after a restart', async () => {
    const dbPath = tempDir();
    const before = await withClient(dbPath, async (client) => {
      const db = client.db('app');
      await db.createCollection('weather', { timeseries: { timeField: 't', metaField: 'm' } });
      await db.collection('weather').insertMany([
        { t: at(0), m: 'a', v: 1 },
        { t: at(1), m: 'b', v: 2 },
      ]);
      return db.collection('system.buckets.weather').find().toArray();
    });
    const after = await withClient(dbPath, async (client) => {
      const db = client.db('app');
      const c = db.collection('weather');
      const refused = await c.updateOne({ m: 'a' }, { $set: { m: 'z' } }).then(
        () => undefined,
        (e: { code?: number }) => e.code,
      );
      return {
        indexes: await c.listIndexes().toArray(),
        buckets: await db.collection('system.buckets.weather').find().toArray(),
        listed: (await db.listCollections({ name: 'system.buckets.weather' }).toArray()).map((e) => e.type),
        refused,
      };
    });
    expect(before).toHaveLength(2);
    expect(after).toEqual({ indexes: [{ v: 2, key: { m: 1, t: 1 }, name: 'm_1_t_1' }], buckets: before, listed: ['collection'], refused: 72 });
  });
});
