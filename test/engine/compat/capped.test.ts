import { type Db, type Document } from 'mongodb';
import mongoose from 'mongoose';
import { describe, expect, it } from 'vitest';
import { restarts } from '../support/restarts.js';
import { describeCompat, type CompatCase, type LooseCollection } from './compat-cases.js';

/**
 * Capped collections and tailable cursors as mongod 8.0 has them: `create`'s
 * checks (create_collection.cpp: size required, size/max only when capped),
 * the oldest documents removed past `size` bytes or `max` documents,
 * insertion order, collStats' `max`/`maxSize`, tailable and awaitData
 * cursors (query_request_helper.cpp for their errors) and CappedPositionLost
 * (136) once capping removed a tailable cursor's position.
 */

/** Creates the case's collection as capped (the case's own collection is dropped first). */
async function createCapped(c: LooseCollection, db: Db, options: Document): Promise<unknown> {
  await c.drop().catch(() => undefined);
  return db.command({ create: c.collectionName, capped: true, ...options });
}

/** Inserts `{n}` for each n, one insert each (the order capping goes by). */
async function insertEach(c: LooseCollection, ns: number[]): Promise<void> {
  for (const n of ns) await c.insertOne({ _id: n, n });
}

const ids = (docs: Document[]): unknown[] => docs.map((d) => d._id);
/** A cursor id as db.command gives it: a Long, or 0 promoted to a number. */
const closed = (id: unknown): boolean => String(id) === '0';
/** The server error code a command fails with (undefined when it succeeds). */
const codeOf = (command: Promise<unknown>): Promise<unknown> =>
  command.then(
    () => undefined,
    (err: { code?: number }) => err.code,
  );
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

const cases: CompatCase[] = [
  {
    name: 'capped without size is InvalidOptions (72)',
    run: (c, db) => db.command({ create: c.collectionName, capped: true, max: 5 }),
    code: 72,
  },
  {
    name: 'size without capped is InvalidOptions (72)',
    run: (c, db) => db.command({ create: c.collectionName, size: 4096 }),
    code: 72,
  },
  {
    name: 'size 0 is refused by the IDL check (51024)',
    run: (c, db) => createCapped(c, db, { size: 0 }),
    code: 51024,
  },
  {
    name: 'listCollections shows the capped options (capped: 1 listed as true); isCapped() is true',
    run: async (c, db) => {
      await createCapped(c, db, { capped: 1, size: 8192, max: 3 });
      const [entry] = await db.listCollections({ name: c.collectionName }, { nameOnly: false }).toArray();
      return { options: entry!.options, isCapped: await c.isCapped() };
    },
    expected: { options: { capped: true, size: 8192, max: 3 }, isCapped: true },
  },
  {
    name: 'collStats and $collStats report capped, max and maxSize (scaled)',
    run: async (c, db) => {
      await createCapped(c, db, { size: 64 * 1024, max: 10 });
      await insertEach(c, [1]);
      const stats = await db.command({ collStats: c.collectionName, scale: 1024 });
      const [agg] = await c.aggregate([{ $collStats: { storageStats: {} } }]).toArray();
      const s = agg!.storageStats;
      return [stats.capped, stats.max, stats.maxSize, s.capped, s.max, s.maxSize];
    },
    expected: [true, 10, 64, true, 10, 64 * 1024],
  },
  {
    name: 'past max documents the oldest go; a find returns insertion order',
    run: async (c, db) => {
      await createCapped(c, db, { size: 100_000, max: 3 });
      await insertEach(c, [5, 1, 4, 2, 3]);
      return [ids(await c.find().toArray()), await c.countDocuments()];
    },
    expected: [[4, 2, 3], 3],
  },
  {
    name: 'past size bytes the oldest go, the newest stay',
    run: async (c, db) => {
      await createCapped(c, db, { size: 1024 });
      // Each {_id, n, pad} is 100 bytes of BSON: 10 fit (sizes are multiples of 256, which mongod 7.0 rounds to).
      for (const n of range(1, 25)) await c.insertOne({ _id: n, n, pad: 'x'.repeat(69) });
      const docs = await c.find().toArray();
      const stats = await db.command({ collStats: c.collectionName });
      return { ids: ids(docs), sizeWithin: stats.size <= 1024 };
    },
    expected: { ids: range(16, 25), sizeWithin: true },
  },
  {
    name: '$natural: -1 returns newest first',
    run: async (c, db) => {
      await createCapped(c, db, { size: 100_000, max: 4 });
      await insertEach(c, [10, 30, 20, 50, 40]);
      return ids(await c.find().sort({ $natural: -1 }).toArray());
    },
    expected: [40, 50, 20, 30],
  },
  {
    name: 'a document larger than the whole size is refused (BadValue 2)',
    run: async (c, db) => {
      await createCapped(c, db, { size: 256 });
      await c.insertOne({ pad: 'x'.repeat(300) });
    },
    code: 2,
  },
  {
    name: 'deletes (mongod 5.0+) and updates that grow a document (6.0+) work on a capped collection',
    run: async (c, db) => {
      await createCapped(c, db, { size: 100_000 });
      await insertEach(c, [1, 2, 3]);
      await c.deleteOne({ _id: 2 });
      await c.updateOne({ _id: 3 }, { $set: { grown: 'x'.repeat(50) } });
      return (await c.find().toArray()).map((d) => [d._id, d.grown?.length ?? 0]);
    },
    expected: [
      [1, 0],
      [3, 50],
    ],
  },
  {
    name: 'a tailable cursor on a collection that is not capped is BadValue (2)',
    seed: [{ a: 1 }],
    run: (c) => c.find({}, { tailable: true }).toArray(),
    code: 2,
  },
  {
    name: 'awaitData without tailable is FailedToParse (9)',
    run: async (c, db) => {
      await createCapped(c, db, { size: 4096 });
      return db.command({ find: c.collectionName, awaitData: true });
    },
    code: 9,
  },
  {
    name: 'a tailable cursor sorted other than {$natural: 1} is BadValue (2), {$natural: 1} is fine',
    run: async (c, db) => {
      await createCapped(c, db, { size: 4096 });
      await insertEach(c, [1]);
      const natural = await db.command({ find: c.collectionName, tailable: true, sort: { $natural: 1 }, singleBatch: false });
      const refused = await codeOf(db.command({ find: c.collectionName, tailable: true, sort: { n: 1 } }));
      return [ids(natural.cursor.firstBatch), refused];
    },
    expected: [[1], 2],
  },
  {
    name: 'a tailable cursor stays open at the end and a getMore returns what was inserted since',
    run: async (c, db) => {
      await createCapped(c, db, { size: 100_000 });
      await insertEach(c, [1, 2]);
      const first = await db.command({ find: c.collectionName, tailable: true, filter: { n: { $ne: 4 } } });
      const id: unknown = first.cursor.id;
      const empty = await db.command({ getMore: id, collection: c.collectionName });
      await insertEach(c, [3, 4, 5]);
      const more = await db.command({ getMore: id, collection: c.collectionName });
      await db.command({ killCursors: c.collectionName, cursors: [id] });
      return {
        first: ids(first.cursor.firstBatch),
        open: !closed(id),
        empty: [empty.cursor.nextBatch.length, !closed(empty.cursor.id)],
        more: ids(more.cursor.nextBatch),
      };
    },
    expected: { first: [1, 2], open: true, empty: [0, true], more: [3, 5] },
  },
  {
    name: 'a tailable cursor follows thousands of inserts while capping removes the oldest: each once, in order, a deleted one skipped, one deleted and inserted again read as the newest',
    run: async (c, db) => {
      await createCapped(c, db, { size: 10_000_000, max: 2000 });
      await c.insertMany(range(1, 10).map((n) => ({ _id: n, n })));
      const first = await db.command({ find: c.collectionName, tailable: true, batchSize: 1000 });
      const seen = ids(first.cursor.firstBatch);
      const id: unknown = first.cursor.id;
      for (let round = 0; round < 8; round += 1) {
        const from = 11 + round * 500;
        await c.insertMany(range(from, from + 499).map((n) => ({ _id: n, n })));
        // Before the cursor reads on: in round 2 one is deleted and inserted again (now the newest), in round 5 one is deleted.
        if (round === 2 || round === 5) await c.deleteOne({ _id: from + 5 });
        if (round === 2) await c.insertOne({ _id: from + 5, n: from + 5 });
        const more = await db.command({ getMore: id, collection: c.collectionName, batchSize: 1000 });
        seen.push(...ids(more.cursor.nextBatch));
      }
      await db.command({ killCursors: c.collectionName, cursors: [id] });
      return { seen, count: await c.countDocuments() };
    },
    expected: {
      seen: [...range(1, 1015), ...range(1017, 1510), 1016, ...range(1511, 2515), ...range(2517, 4010)],
      count: 2000,
    },
  },
  {
    name: 'a tailable cursor on an empty capped collection is not kept (id 0), as mongod',
    run: async (c, db) => {
      await createCapped(c, db, { size: 4096 });
      const r = await db.command({ find: c.collectionName, tailable: true });
      return closed(r.cursor.id);
    },
    expected: true,
  },
  {
    name: 'maxTimeMS on a getMore of a cursor without awaitData is BadValue (2)',
    run: async (c, db) => {
      await createCapped(c, db, { size: 4096 });
      await insertEach(c, [1]);
      const r = await db.command({ find: c.collectionName, tailable: true });
      return [ids(r.cursor.firstBatch), await codeOf(db.command({ getMore: r.cursor.id, collection: c.collectionName, maxTimeMS: 100 }))];
    },
    expected: [[1], 2],
  },
  {
    name: 'tailable + awaitData through the driver: for await sees a later insert as soon as it is made',
    run: async (c, db) => {
      await createCapped(c, db, { size: 100_000 });
      await insertEach(c, [1]);
      const cursor = c.find({}, { tailable: true, awaitData: true });
      const seen: unknown[] = [];
      let insertedAt = 0;
      let tookAfterInsert = Infinity;
      for await (const doc of cursor) {
        seen.push(doc._id);
        // The getMore waiting for data answers at the insert, not at the end of its 1 s wait.
        if (seen.length === 1) setTimeout(() => ((insertedAt = Date.now()), void c.insertOne({ _id: 2 })), 200);
        if (seen.length === 2) {
          tookAfterInsert = Date.now() - insertedAt;
          break;
        }
      }
      return { seen, wokeOnInsert: tookAfterInsert < 500 };
    },
    expected: { seen: [1, 2], wokeOnInsert: true },
  },
  {
    name: 'an awaitData getMore with nothing new answers an empty batch after its maxTimeMS, cursor open',
    run: async (c, db) => {
      await createCapped(c, db, { size: 4096 });
      await insertEach(c, [1]);
      const r = await db.command({ find: c.collectionName, tailable: true, awaitData: true });
      const started = Date.now();
      const more = await db.command({ getMore: r.cursor.id, collection: c.collectionName, maxTimeMS: 150 });
      const took = Date.now() - started;
      await db.command({ killCursors: c.collectionName, cursors: [r.cursor.id] });
      return { batch: more.cursor.nextBatch, open: !closed(more.cursor.id), waited: took >= 140 && took < 900 };
    },
    expected: { batch: [], open: true, waited: true },
  },
  // Capping removes the cursor's next record: the cursor dies, tailable or not.
  ...[
    { kind: 'a tailable cursor', tailable: true, max: 3, first: [1, 2, 3], then: [4, 5, 6, 7], batchSize: 1 },
    { kind: 'a plain cursor', tailable: false, max: 10, first: range(1, 10), then: range(11, 30), batchSize: 4 },
  ].map(({ kind, tailable, max, first, then, batchSize }): CompatCase => ({
    name: `capping away the position of ${kind} kills it: CappedPositionLost (136)`,
    run: async (c, db) => {
      await createCapped(c, db, { size: 100_000, max });
      await insertEach(c, first);
      const r = await db.command({ find: c.collectionName, ...(tailable ? { tailable: true } : {}), batchSize });
      await insertEach(c, then);
      return db.command({ getMore: r.cursor.id, collection: c.collectionName });
    },
    code: 136,
  })),
  {
    name: 'a plain cursor reads on while capping has not reached its position',
    run: async (c, db) => {
      await createCapped(c, db, { size: 100_000, max: 10 });
      await insertEach(c, range(1, 10));
      const r = await db.command({ find: c.collectionName, batchSize: 4 });
      await insertEach(c, [11, 12]);
      const more = await db.command({ getMore: r.cursor.id, collection: c.collectionName });
      // Whether the scan also sees 11 and 12 is left open here.
      return [ids(r.cursor.firstBatch), ids(more.cursor.nextBatch).slice(0, 6)];
    },
    expected: [
      [1, 2, 3, 4],
      [5, 6, 7, 8, 9, 10],
    ],
  },
  {
    name: 'convertToCapped keeps the newest documents that fit and only the _id index',
    run: async (c, db) => {
      await c.createIndex({ n: 1 });
      for (const n of range(1, 20)) await c.insertOne({ _id: n, n, pad: 'x'.repeat(69) });
      await db.command({ convertToCapped: c.collectionName, size: 512 });
      const indexes = (await c.indexes()).map((ix) => ix.name);
      return { isCapped: await c.isCapped(), ids: ids(await c.find().toArray()), indexes };
    },
    expected: { isCapped: true, ids: range(16, 20), indexes: ['_id_'] },
  },
  {
    name: 'cloneCollectionAsCapped copies the newest documents that fit into a new capped collection',
    run: async (c, db) => {
      for (const n of range(1, 20)) await c.insertOne({ _id: n, n, pad: 'x'.repeat(69) });
      const to = `${c.collectionName}_capped`;
      await db.command({ cloneCollectionAsCapped: c.collectionName, toCollection: to, size: 256 });
      const copy = db.collection(to);
      return { isCapped: await copy.isCapped(), ids: ids(await copy.find().toArray()), source: await c.countDocuments() };
    },
    expected: { isCapped: true, ids: [19, 20], source: 20 },
  },
  {
    name: 'cloneCollectionAsCapped from a missing collection is NamespaceNotFound (26)',
    run: (c, db) => db.command({ cloneCollectionAsCapped: c.collectionName, toCollection: 'elsewhere', size: 4096 }),
    code: 26,
  },
  {
    name: 'mongoose: Model.find().tailable() streams documents inserted later',
    run: async (c, db) => {
      await createCapped(c, db, { size: 100_000 });
      const conn = mongoose.createConnection().setClient(db.client).useDb(db.databaseName);
      const Log = conn.model('CappedLog', new mongoose.Schema({ _id: Number, msg: String }), c.collectionName);
      await Log.create({ _id: 1, msg: 'first' });
      // mongoose's typings omit the awaitData it accepts (and passes on) here.
      const cursor = Log.find().tailable(true, { awaitData: true } as { numberOfRetries?: number }).lean().cursor();
      const seen: string[] = [];
      for await (const doc of cursor) {
        seen.push(doc.msg as string);
        if (seen.length === 1) setTimeout(() => void Log.create({ _id: 2, msg: 'later' }), 50);
        if (seen.length === 2) break;
      }
      await cursor.close();
      return seen;
    },
    expected: ['first', 'later'],
  },
];

describeCompat('capped', cases);

describe('capped collections across a restart (lmdb)', () => {
  const { dbPath: tempDir, withClient } = restarts('engine-capped');

  it('keep their limits, insertion order and size: the next insert still removes the oldest', async () => {
    const dbPath = tempDir();
    await withClient(dbPath, async (client) => {
      const db = client.db('app');
      await db.createCollection('log', { capped: true, size: 1024 });
      for (const n of range(1, 12)) await db.collection<{ _id: number; n: number; pad: string }>('log').insertOne({ _id: n, n, pad: 'x'.repeat(69) });
    });
    const after = await withClient(dbPath, async (client) => {
      const log = client.db('app').collection<{ _id: number; n: number; pad: string }>('log');
      const before = ids(await log.find().toArray());
      await log.insertOne({ _id: 13, n: 13, pad: 'x'.repeat(69) });
      return { before, after: ids(await log.find().toArray()), isCapped: await log.isCapped() };
    });
    expect(after).toEqual({ before: range(3, 12), after: range(4, 13), isCapped: true });
  });
});
