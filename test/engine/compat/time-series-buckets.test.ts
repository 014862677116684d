import { type Db, type Document } from 'mongodb';
import { expect } from 'vitest';
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

describeCompat('time-series-buckets', [...indexCases, ...updateCases]);
