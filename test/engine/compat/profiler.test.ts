import { randomUUID } from 'node:crypto';
import type { Db, Document } from 'mongodb';
import { describeCompat, type CompatCase } from './compat-cases.js';

/**
 * The database profiler as mongod 7.0 has it: `profile` levels 1 and 2 per
 * database (slowms and sampleRate for the whole server, `filter` per
 * database), entries in `<db>.system.profile` (a 1 MB capped collection made
 * on first use) in the shape of mongod's "Database Profiler Output", read
 * with find and aggregate, newest first with `{$natural: -1}`; system.profile
 * cannot be dropped while its database profiles (IllegalOperation 20).
 */

/** A database of its own for one case (profiling is per database), left with profiling off and dropped. */
async function inFreshDb<T>(db: Db, run: (fresh: Db) => Promise<T>): Promise<T> {
  const fresh = db.client.db(`${db.databaseName.slice(0, 30)}_${randomUUID().slice(0, 8)}`);
  try {
    return await run(fresh);
  } finally {
    await fresh.command({ profile: 0, filter: 'unset', slowms: 100, sampleRate: 1 });
    await fresh.dropDatabase();
  }
}

/** The entries of `<db>.system.profile` for one namespace, oldest first. */
function entriesFor(db: Db, coll: string, extra: Document = {}): Promise<Document[]> {
  return db.collection('system.profile').find({ ns: `${db.databaseName}.${coll}`, ...extra }).toArray();
}

const cases: CompatCase[] = [
  {
    name: 'profile -1 reads the settings: level 0, slowms 100, sampleRate 1',
    run: (_c, db) => inFreshDb(db, (d) => d.command({ profile: -1 })),
    expected: { was: 0, slowms: 100, sampleRate: 1, ok: 1 },
  },
  {
    name: 'profile 2 answers the previous level (was), then reads back as 2; slowms and sampleRate are set with it',
    run: (_c, db) =>
      inFreshDb(db, async (d) => {
        const set = await d.command({ profile: 2, slowms: 50, sampleRate: 0.5 });
        const read = await d.command({ profile: -1 });
        const again = await d.command({ profile: 1 });
        return { set, read, again: again.was };
      }),
    expected: { set: { was: 0, slowms: 100, sampleRate: 1, ok: 1 }, read: { was: 2, slowms: 50, sampleRate: 0.5, ok: 1 }, again: 2 },
  },
  {
    name: 'the level is per database: another database stays at 0 and writes no system.profile',
    run: (c, db) =>
      inFreshDb(db, async (d) => {
        await d.command({ profile: 2 });
        await db.collection(c.collectionName).find({}).toArray();
        const other = await db.command({ profile: -1 });
        const collections = await db.listCollections({ name: 'system.profile' }).toArray();
        return { was: other.was, profiled: collections.length };
      }),
    expected: { was: 0, profiled: 0 },
  },
  {
    name: 'level 2 records a find in mongod’s entry shape; system.profile is a 1 MB capped collection',
    run: (_c, db) =>
      inFreshDb(db, async (d) => {
        await d.collection('items').insertMany([{ a: 1 }, { a: 2 }, { a: 3 }]);
        await d.command({ profile: 2 });
        await d.collection('items').find({ a: { $gte: 2 } }).toArray();
        const [entry] = await entriesFor(d, 'items', { op: 'query' });
        const [info] = await d.listCollections({ name: 'system.profile' }).toArray();
        return {
          op: entry!.op,
          ns: entry!.ns === `${d.databaseName}.items`,
          command: { find: entry!.command.find, filter: entry!.command.filter },
          nreturned: entry!.nreturned,
          cursorExhausted: entry!.cursorExhausted,
          types: [typeof entry!.responseLength, typeof entry!.millis, entry!.ts instanceof Date, typeof entry!.client, typeof entry!.numYield],
          responseLength: entry!.responseLength > 0,
          user: entry!.user,
          allUsers: entry!.allUsers,
          options: (info as Document).options,
        };
      }),
    expected: {
      op: 'query',
      ns: true,
      command: { find: 'items', filter: { a: { $gte: 2 } } },
      nreturned: 2,
      cursorExhausted: true,
      types: ['number', 'number', true, 'string', 'number'],
      responseLength: true,
      user: '',
      allUsers: [],
      options: { capped: true, size: 1048576 },
    },
  },
  {
    name: 'writes are recorded by kind: insert (ninserted), update (nMatched, nModified, its statement), delete (ndeleted)',
    run: (_c, db) =>
      inFreshDb(db, async (d) => {
        await d.command({ profile: 2 });
        const items = d.collection<{ _id: number; a: number }>('w');
        await items.insertMany([{ _id: 1, a: 1 }, { _id: 2, a: 1 }]);
        await items.updateMany({ a: 1 }, { $set: { b: 1 } });
        await items.deleteOne({ _id: 2 });
        const entries = await entriesFor(d, 'w');
        return entries.map((e) => ({
          op: e.op,
          ninserted: e.ninserted,
          nMatched: e.nMatched,
          nModified: e.nModified,
          ndeleted: e.ndeleted,
          documents: 'documents' in e.command,
          q: e.command.q,
        }));
      }),
    expected: [
      { op: 'insert', ninserted: 2, documents: false },
      { op: 'update', nMatched: 2, nModified: 2, documents: false, q: { a: 1 } },
      { op: 'remove', ndeleted: 1, documents: false, q: { _id: 2 } },
    ],
  },
  {
    name: 'a failed command is recorded with ok 0 and its error',
    run: (_c, db) =>
      inFreshDb(db, async (d) => {
        await d.command({ profile: 2 });
        await d.collection('f').find({ a: { $bogus: 1 } }).toArray().catch(() => undefined);
        const [entry] = await entriesFor(d, 'f');
        return { ok: entry!.ok, errCode: entry!.errCode, errName: entry!.errName, errMsg: typeof entry!.errMsg };
      }),
    expected: { ok: 0, errCode: 2, errName: 'BadValue', errMsg: 'string' },
  },
  {
    name: 'level 1 records only operations at least slowms long',
    run: (_c, db) =>
      inFreshDb(db, async (d) => {
        await d.command({ profile: 1, slowms: 60_000 });
        await d.collection('s').find({}).toArray();
        const slowOnly = (await entriesFor(d, 's')).length;
        await d.command({ profile: 1, slowms: 0 });
        await d.collection('s').find({}).toArray();
        return { slowOnly, all: (await entriesFor(d, 's')).length };
      }),
    expected: { slowOnly: 0, all: 1 },
  },
  {
    name: 'level 1 with sampleRate 0 records nothing',
    run: (_c, db) =>
      inFreshDb(db, async (d) => {
        await d.command({ profile: 1, slowms: 0, sampleRate: 0 });
        await d.collection('r').find({}).toArray();
        return (await entriesFor(d, 'r')).length;
      }),
    expected: 0,
  },
  {
    name: 'level 1 with a filter records the operations it matches (slowms then unused); unset removes it',
    run: (_c, db) =>
      inFreshDb(db, async (d) => {
        const set = await d.command({ profile: 1, slowms: 60_000, filter: { op: 'query' } });
        await d.collection('x').insertOne({ a: 1 });
        await d.collection('x').find({}).toArray();
        const ops = (await entriesFor(d, 'x')).map((e) => e.op);
        const read = await d.command({ profile: -1 });
        await d.command({ profile: 1, filter: 'unset' });
        const unset = await d.command({ profile: -1 });
        return { note: typeof set.note, ops, filter: read.filter, unset: 'filter' in unset };
      }),
    expected: { note: 'string', ops: ['query'], filter: { op: 'query' }, unset: false },
  },
  {
    name: 'system.profile reads newest first with $natural -1, through find and aggregate; its own reads are not recorded',
    run: (_c, db) =>
      inFreshDb(db, async (d) => {
        await d.command({ profile: 2 });
        for (const n of [1, 2, 3]) await d.collection('n').find({ n }).toArray();
        const profile = d.collection('system.profile');
        const newest = await profile.find({ op: 'query', ns: `${d.databaseName}.n` }).sort({ $natural: -1 }).toArray();
        const viaAggregate = await profile.aggregate([{ $match: { ns: `${d.databaseName}.n` } }, { $count: 'n' }]).toArray();
        const ownReads = await profile.countDocuments({ ns: `${d.databaseName}.system.profile` });
        return { order: newest.map((e) => e.command.filter.n), viaAggregate, ownReads };
      }),
    expected: { order: [3, 2, 1], viaAggregate: [{ n: 3 }], ownReads: 0 },
  },
  {
    name: 'system.profile cannot be dropped while the database profiles (IllegalOperation 20)',
    run: (_c, db) =>
      inFreshDb(db, async (d) => {
        await d.command({ profile: 2 });
        await d.collection('any').find({}).toArray();
        // As a command: the driver's drop() words any IllegalOperation of a retryable write as "no retryable writes".
        return d.command({ drop: 'system.profile' });
      }),
    code: 20,
  },
  {
    name: 'system.profile drops once profiling is off',
    run: (_c, db) =>
      inFreshDb(db, async (d) => {
        await d.command({ profile: 2 });
        await d.collection('any').find({}).toArray();
        await d.command({ profile: 0 });
        return d.collection('system.profile').drop();
      }),
    expected: true,
  },
  {
    name: 'nothing is recorded while an fsync lock holds writes (the data files stay still)',
    run: (_c, db) =>
      inFreshDb(db, async (d) => {
        await d.command({ profile: 2 });
        await d.collection('l').find({ before: 1 }).toArray();
        const admin = db.client.db('admin');
        await admin.command({ fsync: 1, lock: true });
        try {
          await d.collection('l').find({ during: 1 }).toArray();
        } finally {
          await admin.command({ fsyncUnlock: 1 });
        }
        return (await entriesFor(d, 'l')).map((e) => e.command.filter);
      }),
    expected: [{ before: 1 }],
  },
  {
    name: 'a filter that does not parse is refused (BadValue 2) and the level stays',
    run: (_c, db) => inFreshDb(db, (d) => d.command({ profile: 1, filter: { $bogus: 1 } })),
    code: 2,
  },
];

describeCompat('profiler', cases);
