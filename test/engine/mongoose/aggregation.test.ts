import { Schema } from 'mongoose';
import { beforeAll, describe, expect, it } from 'vitest';
import { mongooseOnEngine } from '../support/mongoose-on-engine.js';

/**
 * Mongoose's Aggregate helpers (graphLookup, sortByCount, unionWith, sample,
 * out, merge, bucket, bucketAuto, redact) and a time-series schema, through
 * real models and the wire protocol.
 */

const conn = mongooseOnEngine('mongoose_aggregation');

const Person = () => conn.models.Person ?? conn.model('Person', new Schema({ name: String, boss: String, team: String, age: Number }));

async function seedPeople(): Promise<void> {
  const M = Person();
  await M.deleteMany({});
  await M.create([
    { name: 'Dev', boss: null, team: 'core', age: 50 },
    { name: 'Eliot', boss: 'Dev', team: 'core', age: 40 },
    { name: 'Ron', boss: 'Eliot', team: 'db', age: 30 },
    { name: 'Andrew', boss: 'Eliot', team: 'db', age: 35 },
    { name: 'Asya', boss: 'Ron', team: 'db', age: 28 },
  ]);
}

describe('Model.aggregate() stage helpers', () => {
  beforeAll(seedPeople);

  it('graphLookup then sortByCount counts the teams of everyone under a boss', async () => {
    const M = Person();
    const rows = await M.aggregate()
      .match({ name: 'Eliot' })
      .graphLookup({ from: M.collection.collectionName, startWith: '$name', connectFromField: 'name', connectToField: 'boss', as: 'reports', depthField: 'depth' })
      .unwind('$reports')
      .replaceRoot('$reports')
      .sortByCount('$team');
    expect(rows).toEqual([{ _id: 'db', count: 3 }]);
  });

  it('graphLookup maxDepth limits the walk', async () => {
    const M = Person();
    const [row] = await M.aggregate()
      .match({ name: 'Dev' })
      .graphLookup({ from: M.collection.collectionName, startWith: '$name', connectFromField: 'name', connectToField: 'boss', as: 'reports', maxDepth: 1 });
    expect((row.reports as Array<{ name: string }>).map((r) => r.name).sort()).toEqual(['Andrew', 'Eliot', 'Ron']);
  });

  it('unionWith appends another collection through a pipeline', async () => {
    const Guest = conn.models.Guest ?? conn.model('Guest', new Schema({ name: String, team: String }));
    await Guest.deleteMany({});
    await Guest.create({ name: 'Visitor', team: 'none' });
    const names = await Person()
      .aggregate()
      .project({ _id: 0, name: 1 })
      .unionWith({ coll: Guest.collection.collectionName, pipeline: [{ $project: { _id: 0, name: 1 } }] });
    expect(names.map((n) => n.name)).toContain('Visitor');
    expect(names).toHaveLength(6);
  });

  it('sample picks distinct documents of the collection', async () => {
    const picked = await Person().aggregate().sample(3);
    expect(picked).toHaveLength(3);
    expect(new Set(picked.map((p) => String(p._id))).size).toBe(3);
  });

  it('bucket and bucketAuto group ages', async () => {
    const M = Person();
    // Mongoose 9 has no bucket helpers: append() adds the raw stages.
    const buckets = await M.aggregate().append({ $bucket: { groupBy: '$age', boundaries: [0, 30, 40, 100], output: { n: { $sum: 1 } } } });
    expect(buckets).toEqual([
      { _id: 0, n: 1 },
      { _id: 30, n: 2 },
      { _id: 40, n: 2 },
    ]);
    const auto = await M.aggregate<{ count: number }>().append({ $bucketAuto: { groupBy: '$age', buckets: 2 } });
    expect(auto.map((b) => b.count)).toEqual([3, 2]);
  });

  it('out writes the results into another collection, replacing it', async () => {
    const M = Person();
    // Aggregate.prototype.out exists at runtime though mongoose 9's typings leave it out.
    const agg = M.aggregate().match({ team: 'db' }).project({ name: 1 }) as unknown as { out(coll: string): Promise<unknown> };
    await agg.out('db_team');
    const names = (await conn.db!.collection('db_team').find().toArray()).map((d) => d.name).sort();
    expect(names).toEqual(['Andrew', 'Asya', 'Ron']);
  });

  it('merge with whenMatched and on a unique field', async () => {
    const Stat = conn.models.Stat ?? conn.model('Stat', new Schema({ team: { type: String, unique: true }, people: Number, note: String }));
    await Stat.init();
    await Stat.deleteMany({});
    await Stat.create({ team: 'db', people: 0, note: 'kept' });
    await Person()
      .aggregate()
      .group({ _id: '$team', people: { $sum: 1 } })
      .project({ _id: 0, team: '$_id', people: 1 })
      .append({ $merge: { into: Stat.collection.collectionName, on: 'team', whenMatched: 'merge', whenNotMatched: 'insert' } });
    const stats = await Stat.find().sort({ team: 1 }).lean();
    expect(stats.map(({ team, people, note }) => ({ team, people, note }))).toEqual([
      { team: 'core', people: 2, note: undefined },
      { team: 'db', people: 3, note: 'kept' },
    ]);
  });

  it('merge on a field without a unique index is refused with 51183', async () => {
    const agg = Person().aggregate().project({ _id: 0, name: 1 }).append({ $merge: { into: 'no_index_target', on: 'name' } });
    await expect(agg.exec()).rejects.toMatchObject({ code: 51183 });
  });

  it('redact prunes by an expression over each level', async () => {
    const rows = await Person()
      .aggregate()
      .match({ team: 'core' })
      .redact({ $gte: ['$age', 45] }, '$$KEEP', '$$PRUNE')
      .project({ _id: 0, name: 1 });
    expect(rows).toEqual([{ name: 'Dev' }]);
  });

  it('top and topN accumulators in group', async () => {
    const rows = await Person()
      .aggregate()
      .group({ _id: '$team', oldest: { $top: { sortBy: { age: -1 }, output: '$name' } }, youngest2: { $bottomN: { n: 2, sortBy: { age: -1 }, output: '$name' } } })
      .sort({ _id: 1 });
    expect(rows).toEqual([
      { _id: 'core', oldest: 'Dev', youngest2: ['Dev', 'Eliot'] },
      { _id: 'db', oldest: 'Andrew', youngest2: ['Ron', 'Asya'] },
    ]);
  });
});

describe('a mongoose time-series schema', () => {
  const Reading = () =>
    conn.models.Reading ??
    conn.model(
      'Reading',
      new Schema(
        { at: Date, sensor: String, value: Number },
        { timeseries: { timeField: 'at', metaField: 'sensor', granularity: 'minutes' }, expireAfterSeconds: 86400, autoCreate: false, autoIndex: false },
      ),
    );

  it('createCollection creates a time-series collection that takes and returns measurements', async () => {
    const M = Reading();
    await M.createCollection();
    const [info] = await conn.db!.listCollections({ name: M.collection.collectionName }).toArray();
    expect(info).toMatchObject({
      type: 'timeseries',
      options: { timeseries: { timeField: 'at', metaField: 'sensor', granularity: 'minutes', bucketMaxSpanSeconds: 86400 }, expireAfterSeconds: 86400 },
    });
    const at = new Date();
    await M.create([{ at, sensor: 's1', value: 1 }, { at, sensor: 's2', value: 2 }]);
    const found = await M.find({ sensor: 's2' }).lean();
    expect(found.map(({ sensor, value, at: t }) => ({ sensor, value, at: t }))).toEqual([{ sensor: 's2', value: 2, at }]);
  });

  it('a measurement without its time field is refused by the server', async () => {
    await expect(Reading().collection.insertOne({ sensor: 's1', value: 3 })).rejects.toMatchObject({ code: 2 });
  });
});
