import { type Db, type Document } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { restarts } from '../support/restarts.js';
import { describeCompat, type CompatCase, type LooseCollection } from './compat-cases.js';

/**
 * Time-series collections as mongod 7.0 creates, lists and fills them
 * (jstests/core/timeseries/timeseries_create_collection.js for the codes).
 * The engine keeps measurements as plain documents; the buckets mongod
 * shows, its indexes and its update limits: time-series-buckets.test.ts.
 */

const t0 = new Date('2026-01-01T00:00:00Z');
const at = (minutes: number) => new Date(t0.getTime() + minutes * 60_000);

/** Creates the case's collection as time-series (the case's own collection is dropped first). */
async function createTs(c: LooseCollection, db: Db, options: Document): Promise<unknown> {
  await c.drop().catch(() => undefined);
  return db.command({ create: c.collectionName, ...options });
}

async function listed(c: LooseCollection, db: Db): Promise<Document[]> {
  return db.listCollections({ name: c.collectionName }).toArray();
}

const refuse = (name: string, options: Document, code: number): CompatCase => ({
  name,
  run: (c, db) => createTs(c, db, options),
  code,
});

const cases: CompatCase[] = [
  {
    name: 'create with a timeField lists as timeseries with granularity seconds and its bucket span',
    run: async (c, db) => {
      await createTs(c, db, { timeseries: { timeField: 't' } });
      return listed(c, db);
    },
    expected: [{ name: expect.any(String), type: 'timeseries', options: { timeseries: { timeField: 't', granularity: 'seconds', bucketMaxSpanSeconds: 3600 } }, info: { readOnly: false } }],
  },
  {
    name: 'create with metaField and granularity minutes',
    run: async (c, db) => {
      await createTs(c, db, { timeseries: { timeField: 't', metaField: 'm', granularity: 'minutes' } });
      return (await listed(c, db))[0]!.options;
    },
    expected: { timeseries: { timeField: 't', metaField: 'm', granularity: 'minutes', bucketMaxSpanSeconds: 86400 } },
  },
  {
    name: 'create with granularity hours and expireAfterSeconds',
    run: async (c, db) => {
      await createTs(c, db, { timeseries: { timeField: 't', granularity: 'hours' }, expireAfterSeconds: 3600 });
      return (await listed(c, db))[0]!.options;
    },
    expected: { timeseries: { timeField: 't', granularity: 'hours', bucketMaxSpanSeconds: 2592000 }, expireAfterSeconds: 3600 },
  },
  {
    name: 'create with a granularity and its own bucketMaxSpanSeconds',
    run: async (c, db) => {
      await createTs(c, db, { timeseries: { timeField: 't', granularity: 'minutes', bucketMaxSpanSeconds: 86400 } });
      return (await listed(c, db))[0]!.options.timeseries;
    },
    expected: { timeField: 't', granularity: 'minutes', bucketMaxSpanSeconds: 86400 },
  },
  {
    name: 'create again with the same options succeeds',
    run: async (c, db) => {
      await createTs(c, db, { timeseries: { timeField: 't', metaField: 'm' } });
      return (await db.command({ create: c.collectionName, timeseries: { timeField: 't', metaField: 'm' } })).ok;
    },
    expected: 1,
  },
  {
    name: 'create again with other options is NamespaceExists',
    run: async (c, db) => {
      await createTs(c, db, { timeseries: { timeField: 't' } });
      return db.command({ create: c.collectionName, timeseries: { timeField: 't', metaField: 'm' } });
    },
    code: 48,
  },
  {
    name: 'a time-series create over an ordinary collection is NamespaceExists',
    run: async (c, db) => {
      await createTs(c, db, {});
      return db.command({ create: c.collectionName, timeseries: { timeField: 't' } });
    },
    code: 48,
  },
  refuse('timeseries without timeField is 40414', { timeseries: { metaField: 'm' } }, 40414),
  refuse('timeseries that is not a document is TypeMismatch', { timeseries: '' }, 14),
  refuse('a non-string timeField is TypeMismatch', { timeseries: { timeField: 100 } }, 14),
  refuse('a non-string metaField is TypeMismatch', { timeseries: { timeField: 't', metaField: 100 } }, 14),
  refuse('an unknown timeseries option is 40415', { timeseries: { timeField: 't', invalidOption: {} } }, 40415),
  refuse('a dotted timeField is InvalidOptions', { timeseries: { timeField: 'sub.time' } }, 72),
  refuse('a dotted metaField is InvalidOptions', { timeseries: { timeField: 't', metaField: 'sub.meta' } }, 72),
  refuse('metaField equal to timeField is InvalidOptions', { timeseries: { timeField: 't', metaField: 't' } }, 72),
  refuse('an unknown granularity is BadValue', { timeseries: { timeField: 't', granularity: 'days' } }, 2),
  refuse('bucketMaxSpanSeconds alone is InvalidOptions', { timeseries: { timeField: 't', bucketMaxSpanSeconds: 10 } }, 72),
  refuse('bucketMaxSpanSeconds other than the granularity default is InvalidOptions', { timeseries: { timeField: 't', granularity: 'minutes', bucketMaxSpanSeconds: 3600 } }, 72),
  refuse('a negative expireAfterSeconds is InvalidOptions', { timeseries: { timeField: 't' }, expireAfterSeconds: -10 }, 72),
  refuse('a string expireAfterSeconds is TypeMismatch', { timeseries: { timeField: 't' }, expireAfterSeconds: '' }, 14),
  refuse('capped time-series is InvalidOptions', { timeseries: { timeField: 't' }, capped: true, size: 100 }, 72),
  refuse('a validator on time-series is InvalidOptions', { timeseries: { timeField: 't' }, validator: {} }, 72),
  refuse('viewOn with timeseries is InvalidOptions', { timeseries: { timeField: 't' }, viewOn: 'x' }, 72),
  refuse('clusteredIndex with timeseries is InvalidOptions', { timeseries: { timeField: 't' }, clusteredIndex: false }, 72),
  refuse('expireAfterSeconds on an ordinary collection is InvalidOptions', { expireAfterSeconds: 10 }, 72),
  {
    name: 'inserted measurements are found as inserted',
    run: async (c, db) => {
      await createTs(c, db, { timeseries: { timeField: 't', metaField: 'm' } });
      await c.insertMany([
        { _id: 1, t: at(0), m: { sensor: 'a' }, v: 1 },
        { _id: 2, t: at(1), m: { sensor: 'b' }, v: 2 },
        { _id: 3, t: at(2), m: { sensor: 'a' }, v: 3 },
      ]);
      return c.find({ 'm.sensor': 'a' }).sort({ t: 1 }).toArray();
    },
    expected: [
      { _id: 1, t: at(0), m: { sensor: 'a' }, v: 1 },
      { _id: 3, t: at(2), m: { sensor: 'a' }, v: 3 },
    ],
  },
  {
    name: 'measurements aggregate and count',
    run: async (c, db) => {
      await createTs(c, db, { timeseries: { timeField: 't', metaField: 'm' } });
      await c.insertMany([
        { t: at(0), m: 'a', v: 1 },
        { t: at(1), m: 'b', v: 2 },
        { t: at(2), m: 'a', v: 3 },
      ]);
      return { n: await c.countDocuments({}), groups: await c.aggregate([{ $group: { _id: '$m', total: { $sum: '$v' } } }, { $sort: { _id: 1 } }]).toArray() };
    },
    expected: {
      n: 3,
      groups: [
        { _id: 'a', total: 4 },
        { _id: 'b', total: 2 },
      ],
    },
  },
  {
    name: 'a measurement without its time field is BadValue',
    run: async (c, db) => {
      await createTs(c, db, { timeseries: { timeField: 't' } });
      return c.insertOne({ v: 1 });
    },
    code: 2,
  },
  {
    name: 'a measurement whose time is not a date is BadValue',
    run: async (c, db) => {
      await createTs(c, db, { timeseries: { timeField: 't' } });
      return c.insertOne({ t: '2026-01-01', v: 1 });
    },
    code: 2,
  },
  {
    name: 'an unordered insert keeps the valid measurements',
    run: async (c, db) => {
      await createTs(c, db, { timeseries: { timeField: 't' } });
      await c.insertMany([{ _id: 1, t: at(0) }, { _id: 2 }, { _id: 3, t: at(1) }], { ordered: false }).catch(() => undefined);
      return (await c.find().sort({ _id: 1 }).toArray()).map((d) => d._id);
    },
    expected: [1, 3],
  },
  {
    name: 'measurements may share an _id: both are stored and both are found by it',
    run: async (c, db) => {
      await createTs(c, db, { timeseries: { timeField: 't' } });
      const inserted = await c.insertMany([
        { _id: 1, t: at(0), v: 1 },
        { _id: 1, t: at(1), v: 2 },
        { _id: 2, t: at(2), v: 3 },
      ]);
      await c.insertOne({ _id: 1, t: at(3), v: 4 });
      return {
        inserted: inserted.insertedCount,
        byId: await c.find({ _id: 1 }, { projection: { _id: 0 } }).sort({ t: 1 }).toArray(),
        count: await c.countDocuments({ _id: 1 }),
        findOne: (await c.findOne({ _id: 2 }))?.v,
      };
    },
    expected: { inserted: 3, byId: [{ t: at(0), v: 1 }, { t: at(1), v: 2 }, { t: at(3), v: 4 }], count: 3, findOne: 3 },
  },
  {
    name: 'a cursor over measurements sharing an _id returns each across getMores, as changed meanwhile',
    run: async (c, db) => {
      await createTs(c, db, { timeseries: { timeField: 't', metaField: 'm' } });
      await c.insertMany([1, 2, 3, 4].map((v) => ({ _id: 1, t: at(v), m: `s${v}`, v })));
      const cursor = c.find({ _id: 1 }, { batchSize: 1, projection: { _id: 0, m: 1 } });
      const first = await cursor.next();
      // The cursor has read the next measurement ahead: its getMore reads it again by its record.
      // (mongod 7.0 updates a time-series collection only by and on its metaField.)
      await c.updateMany({ m: { $in: ['s2', 's3'] } }, { $set: { m: 'moved' } });
      return [first, ...(await cursor.toArray())];
    },
    expected: [{ m: 's1' }, { m: 'moved' }, { m: 'moved' }, { m: 's4' }],
  },
  {
    name: 'a time-series collection without a metaField has no _id index',
    run: async (c, db) => {
      await createTs(c, db, { timeseries: { timeField: 't' } });
      return c.listIndexes().toArray();
    },
    expected: [],
  },
  {
    name: 'deleteOne by a shared _id removes one measurement, deleteMany the others',
    run: async (c, db) => {
      await createTs(c, db, { timeseries: { timeField: 't' } });
      await c.insertMany([
        { _id: 1, t: at(0), v: 1 },
        { _id: 1, t: at(1), v: 2 },
        { _id: 1, t: at(2), v: 3 },
        { _id: 2, t: at(3), v: 4 },
      ]);
      const one = await c.deleteOne({ _id: 1 });
      const left = await c.countDocuments({ _id: 1 });
      const many = await c.deleteMany({ _id: 1 });
      return { one: one.deletedCount, left, many: many.deletedCount, rest: await c.find({}, { projection: { _id: 0 } }).toArray() };
    },
    expected: { one: 1, left: 2, many: 2, rest: [{ t: at(3), v: 4 }] },
  },
  {
    name: 'updateMany by a shared meta value changes every measurement holding it',
    run: async (c, db) => {
      await createTs(c, db, { timeseries: { timeField: 't', metaField: 'm' } });
      await c.insertMany([
        { _id: 1, t: at(0), m: 'a', v: 1 },
        { _id: 1, t: at(1), m: 'a', v: 2 },
        { _id: 2, t: at(2), m: 'b', v: 3 },
      ]);
      const res = await c.updateMany({ m: 'a' }, { $set: { m: 'c' } });
      return { modified: res.modifiedCount, docs: (await c.find().sort({ t: 1 }).toArray()).map((d) => [d._id, d.m]) };
    },
    expected: {
      modified: 2,
      docs: [
        [1, 'c'],
        [1, 'c'],
        [2, 'b'],
      ],
    },
  },
  {
    name: '$out into a time-series collection that fails part-way leaves it as it was (shared _ids included)',
    run: async (c, db) => {
      await createTs(c, db, { timeseries: { timeField: 't' } });
      await c.insertMany([
        { _id: 1, t: at(0), v: 1 },
        { _id: 1, t: at(1), v: 2 },
      ]);
      const source = db.collection<{ _id: number; t?: Date; v: number }>(`${c.collectionName}_src`);
      await source.drop().catch(() => undefined);
      // The second result has no time field: the insert refuses it after the first went in.
      await source.insertMany([{ _id: 7, t: at(5), v: 70 }, { _id: 8, v: 80 }]);
      const refused = await source
        .aggregate([{ $sort: { _id: 1 } }, { $out: c.collectionName }])
        .toArray()
        .then(() => false, () => true);
      return { refused, docs: (await c.find().sort({ t: 1 }).toArray()).map((d) => [d._id, d.v]) };
    },
    expected: {
      refused: true,
      docs: [
        [1, 1],
        [1, 2],
      ],
    },
  },
];

describeCompat('time-series', cases);

describe('time-series on lmdb: options survive a restart, expireAfterSeconds expires measurements', () => {
  const { dbPath: tempDir, withClient } = restarts('engine-ts');

  it('keeps the time-series options and measurements, and still checks the time field', async () => {
    const dbPath = tempDir();
    await withClient(dbPath, async (client) => {
      await client.db('app').createCollection('weather', { timeseries: { timeField: 'ts', metaField: 'meta', granularity: 'minutes' }, expireAfterSeconds: 86400 * 365 * 100 });
      await client.db('app').collection('weather').insertOne({ ts: at(0), meta: 'x', temp: 12 });
    });
    const after = await withClient(dbPath, async (client) => {
      const db = client.db('app');
      const [info] = await db.listCollections({ name: 'weather' }).toArray();
      const docs = await db.collection('weather').find({}, { projection: { _id: 0 } }).toArray();
      const code = await db.collection('weather').insertOne({ temp: 1 }).then(
        () => undefined,
        (e: { code?: number }) => e.code,
      );
      return { type: info!.type, options: (info as Document).options, docs, code };
    });
    expect(after).toEqual({
      type: 'timeseries',
      options: { timeseries: { timeField: 'ts', metaField: 'meta', granularity: 'minutes', bucketMaxSpanSeconds: 86400 }, expireAfterSeconds: 86400 * 365 * 100 },
      docs: [{ ts: at(0), meta: 'x', temp: 12 }],
      code: 2,
    });
  });

  it('keeps measurements sharing an _id across restarts, and their changes', async () => {
    const dbPath = tempDir();
    await withClient(dbPath, async (client) => {
      const db = client.db('app');
      await db.createCollection('readings', { timeseries: { timeField: 't', metaField: 'm' } });
      await db.collection('readings').insertMany([
        { _id: 7, t: at(0), m: 'a', v: 1 },
        { _id: 7, t: at(1), m: 'b', v: 2 },
        { _id: 7, t: at(2), m: 'c', v: 3 },
      ] as Document[]);
    });
    // After one restart: one is deleted, one changed, one more inserted with the same _id.
    await withClient(dbPath, async (client) => {
      const c = client.db('app').collection('readings');
      await c.deleteOne({ v: 1 });
      await c.updateMany({ m: 'b' }, { $set: { m: 'B' } });
      await c.insertOne({ _id: 7, t: at(3), m: 'd', v: 4 } as Document);
    });
    const after = await withClient(dbPath, async (client) => {
      const c: LooseCollection = client.db('app').collection('readings');
      return c.find({ _id: 7 }, { projection: { _id: 0 } }).sort({ t: 1 }).toArray();
    });
    expect(after).toEqual([
      { t: at(1), m: 'B', v: 2 },
      { t: at(2), m: 'c', v: 3 },
      { t: at(3), m: 'd', v: 4 },
    ]);
  });

  it('removes measurements older than expireAfterSeconds and keeps recent ones', async () => {
    const dbPath = tempDir();
    const remaining = await withClient(
      dbPath,
      async (client) => {
        const db = client.db('app');
        await db.createCollection('events', { timeseries: { timeField: 'at' }, expireAfterSeconds: 3600 });
        await db.collection('events').insertMany([
          { _id: 'old', at: new Date(Date.now() - 7200_000) },
          { _id: 'new', at: new Date() },
        ] as Document[]);
        // The monitor runs every 20 ms here; wait until it has swept (bounded by the test timeout).
        while ((await db.collection('events').countDocuments()) > 1) await new Promise((r) => setTimeout(r, 20));
        return (await db.collection('events').find().toArray()).map((d) => d._id);
      },
      { ttlMonitorIntervalMs: 20 },
    );
    expect(remaining).toEqual(['new']);
  });
});
