import type { Db, Document } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { restarts } from '../support/restarts.js';
import { describeCompat, type CompatCase, type LooseCollection } from './compat-cases.js';

/** collMod: index TTL and hidden, conversion to unique (prepareUnique, unique, dryRun), validators, views. */
const seed = [
  { _id: 1, a: 1 },
  { _id: 2, a: 2 },
];
const indexes = [{ key: { a: 1 } }];
const winningIndex = async (c: Parameters<CompatCase['run']>[0]): Promise<string> => {
  const plan = (await c.find({ a: 1 }).explain('queryPlanner')).queryPlanner.winningPlan;
  return plan.inputStage?.indexName ?? plan.stage;
};

/** Documents with a duplicate `a` (ids 1 and 2) under a plain index on `a`. */
const duplicated = [
  { _id: 1, a: 1 },
  { _id: 2, a: 1 },
  { _id: 3, a: 3 },
];
/** The index on `a` as listIndexes shows it. */
const listedA = async (c: LooseCollection) => (await c.indexes()).find((ix) => ix.name === 'a_1');
const prepare = (c: LooseCollection, db: Db) => db.command({ collMod: c.collectionName, index: { keyPattern: { a: 1 }, prepareUnique: true } });
const errorOf = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: { code: number; errorResponse?: Document }) => ({ code: e.code, violations: e.errorResponse?.violations }),
  );

const cases: CompatCase[] = [
  {
    name: 'hiding an index answers hidden_old/hidden_new and lists it as hidden',
    seed,
    indexes,
    run: async (c, db) => {
      const reply = await db.command({ collMod: c.collectionName, index: { name: 'a_1', hidden: true } });
      const listed = await listedA(c);
      return { hidden_old: reply.hidden_old, hidden_new: reply.hidden_new, listed: listed?.hidden };
    },
    expected: { hidden_old: false, hidden_new: true, listed: true },
  },
  {
    name: 'the planner does not use a hidden index, and uses it again once unhidden',
    seed,
    indexes,
    run: async (c, db) => {
      const before = await winningIndex(c);
      await db.command({ collMod: c.collectionName, index: { keyPattern: { a: 1 }, hidden: true } });
      const hidden = await winningIndex(c);
      await db.command({ collMod: c.collectionName, index: { keyPattern: { a: 1 }, hidden: false } });
      return { before, hidden, after: await winningIndex(c) };
    },
    expected: { before: 'a_1', hidden: 'COLLSCAN', after: 'a_1' },
  },
  {
    name: 'a hidden index still enforces uniqueness',
    seed,
    indexes: [{ key: { a: 1 }, options: { unique: true } }],
    run: async (c, db) => {
      await db.command({ collMod: c.collectionName, index: { name: 'a_1', hidden: true } });
      return c.insertOne({ _id: 3, a: 1 });
    },
    code: 11000,
  },
  {
    name: 'a hidden index cannot be hinted',
    seed,
    indexes,
    run: async (c, db) => {
      await db.command({ collMod: c.collectionName, index: { name: 'a_1', hidden: true } });
      return c.find({ a: 1 }).hint('a_1').toArray();
    },
    code: 2,
  },
  {
    name: 'changing expireAfterSeconds answers the old and new values',
    seed,
    indexes: [{ key: { at: 1 }, options: { expireAfterSeconds: 3600 } }],
    run: async (c, db) => {
      const reply = await db.command({ collMod: c.collectionName, index: { keyPattern: { at: 1 }, expireAfterSeconds: 60 } });
      const listed = (await c.indexes()).find((ix) => ix.name === 'at_1');
      return { old: reply.expireAfterSeconds_old, new: reply.expireAfterSeconds_new, listed: listed?.expireAfterSeconds };
    },
    expected: { old: 3600, new: 60, listed: 60 },
  },
  {
    name: 'a missing index is IndexNotFound',
    seed,
    run: (c, db) => db.command({ collMod: c.collectionName, index: { name: 'nope_1', hidden: true } }),
    code: 27,
  },
  {
    name: 'hiding the _id index is refused',
    seed,
    run: (c, db) => db.command({ collMod: c.collectionName, index: { name: '_id_', hidden: true } }),
    code: 2,
  },
  {
    name: 'collMod of a missing collection is NamespaceNotFound',
    run: (c, db) => db.command({ collMod: c.collectionName, validator: { a: { $exists: true } } }),
    code: 26,
  },
  {
    name: 'an unknown collMod field is refused',
    seed,
    run: (c, db) => db.command({ collMod: c.collectionName, bogus: 1 }),
    code: 40415,
  },
  {
    name: 'a validator set by collMod applies to later writes (121) and shows in listCollections',
    seed,
    run: async (c, db) => {
      await db.command({ collMod: c.collectionName, validator: { a: { $type: 'number' } }, validationLevel: 'strict' });
      const [info] = await db.listCollections({ name: c.collectionName }).toArray();
      const options = (info as { options: Record<string, unknown> }).options;
      const refused = await c.insertOne({ _id: 9, a: 'text' }).then(
        () => 0,
        (e: { code: number }) => e.code,
      );
      return { validator: options.validator, validationLevel: options.validationLevel, validationAction: options.validationAction, refused };
    },
    expected: { validator: { a: { $type: 'number' } }, validationLevel: 'strict', validationAction: 'error', refused: 121 },
  },
  {
    name: "validationAction 'warn' lets invalid documents in",
    seed,
    run: async (c, db) => {
      await db.command({ collMod: c.collectionName, validator: { a: { $type: 'number' } }, validationAction: 'warn' });
      await c.insertOne({ _id: 9, a: 'text' });
      return c.countDocuments();
    },
    expected: 3,
  },
  {
    name: 'an unknown validationLevel is BadValue',
    seed,
    run: (c, db) => db.command({ collMod: c.collectionName, validationLevel: 'sometimes' }),
    code: 2,
  },
  {
    name: "collMod changes a view's pipeline",
    seed,
    run: async (c, db) => {
      const view = `${c.collectionName}_view`;
      await db.createCollection(view, { viewOn: c.collectionName, pipeline: [{ $match: { a: 1 } }] });
      await db.command({ collMod: view, viewOn: c.collectionName, pipeline: [{ $match: { a: 2 } }] });
      return db.collection(view).find().toArray();
    },
    expected: [{ _id: 2, a: 2 }],
  },
  {
    name: 'changeStreamPreAndPostImages: enabled is kept and listed, disabled is dropped from the options',
    seed,
    run: async (c, db) => {
      const options = async () => ((await db.listCollections({ name: c.collectionName }).toArray())[0] as { options: Record<string, unknown> }).options;
      await db.command({ collMod: c.collectionName, changeStreamPreAndPostImages: { enabled: true } });
      const on = await options();
      await db.command({ collMod: c.collectionName, changeStreamPreAndPostImages: { enabled: false } });
      return [on, await options()];
    },
    expected: [{ changeStreamPreAndPostImages: { enabled: true } }, {}],
  },
  {
    name: 'changeStreamPreAndPostImages together with a validator changes both',
    seed,
    run: async (c, db) => {
      await db.command({ collMod: c.collectionName, validator: { a: { $type: 'int' } }, changeStreamPreAndPostImages: { enabled: true } });
      return ((await db.listCollections({ name: c.collectionName }).toArray())[0] as { options: Record<string, unknown> }).options;
    },
    expected: { validator: { a: { $type: 'int' } }, validationLevel: 'strict', validationAction: 'error', changeStreamPreAndPostImages: { enabled: true } },
  },
  {
    name: 'changeStreamPreAndPostImages without enabled is a missing field (40414)',
    seed,
    run: (c, db) => db.command({ collMod: c.collectionName, changeStreamPreAndPostImages: {} }),
    code: 40414,
  },
  {
    name: 'changeStreamPreAndPostImages with another field is an unknown field (40415)',
    seed,
    run: (c, db) => db.command({ collMod: c.collectionName, changeStreamPreAndPostImages: { enabled: true, other: 1 } }),
    code: 40415,
  },
  {
    name: 'changeStreamPreAndPostImages on a view is InvalidOptions',
    seed,
    run: async (c, db) => {
      await db.command({ create: `${c.collectionName}_view`, viewOn: c.collectionName, pipeline: [] });
      return db.command({ collMod: `${c.collectionName}_view`, changeStreamPreAndPostImages: { enabled: true } });
    },
    code: 72,
  },
  {
    name: 'create checks changeStreamPreAndPostImages as collMod does: without enabled 40414',
    run: (c, db) => db.command({ create: `${c.collectionName}_images`, changeStreamPreAndPostImages: {} }),
    code: 40414,
  },
  {
    name: 'create with another changeStreamPreAndPostImages field is an unknown field (40415)',
    run: (c, db) => db.command({ create: `${c.collectionName}_images`, changeStreamPreAndPostImages: { enabled: true, other: 1 } }),
    code: 40415,
  },
  {
    name: 'create with a non-object changeStreamPreAndPostImages is TypeMismatch',
    run: (c, db) => db.command({ create: `${c.collectionName}_images`, changeStreamPreAndPostImages: 'yes' }),
    code: 14,
  },
  {
    name: 'create lists changeStreamPreAndPostImages only when enabled',
    run: async (c, db) => {
      await db.command({ create: `${c.collectionName}_on`, changeStreamPreAndPostImages: { enabled: true } });
      await db.command({ create: `${c.collectionName}_off`, changeStreamPreAndPostImages: { enabled: false } });
      const listed = await db.listCollections({ name: { $in: [`${c.collectionName}_on`, `${c.collectionName}_off`] } }).toArray();
      return Object.fromEntries(listed.map((info) => [info.name.slice(c.collectionName.length + 1), (info as Document).options]));
    },
    expected: { on: { changeStreamPreAndPostImages: { enabled: true } }, off: {} },
  },
  {
    name: 'changeStreamPreAndPostImages on the admin database is InvalidOptions',
    run: async (c, db) => {
      const admin = db.client.db('admin');
      const name = `${db.databaseName}_${c.collectionName}_images`;
      return admin.command({ create: name, changeStreamPreAndPostImages: { enabled: true } }).finally(() => admin.collection(name).drop().catch(() => undefined));
    },
    code: 72,
  },
  {
    name: 'collMod of changeStreamPreAndPostImages or a validator on a time-series collection is InvalidOptions',
    run: async (c, db) => {
      await db.command({ create: `${c.collectionName}_ts`, timeseries: { timeField: 't' } });
      const images = await errorOf(db.command({ collMod: `${c.collectionName}_ts`, changeStreamPreAndPostImages: { enabled: true } }));
      const validator = await errorOf(db.command({ collMod: `${c.collectionName}_ts`, validator: { a: 1 } }));
      return [images?.code, validator?.code];
    },
    expected: [72, 72],
  },
  {
    name: 'prepareUnique answers its old and new values and lists the index with prepareUnique',
    seed,
    indexes,
    run: async (c, db) => {
      const reply = await prepare(c, db);
      const listed = await listedA(c);
      return { old: reply.prepareUnique_old, new: reply.prepareUnique_new, listed: listed?.prepareUnique, unique: listed?.unique };
    },
    expected: { old: false, new: true, listed: true, unique: undefined },
  },
  {
    name: 'a prepareUnique index refuses a new duplicate (11000) and takes other keys',
    seed,
    indexes,
    run: async (c, db) => {
      await prepare(c, db);
      const refused = await errorOf(c.insertOne({ _id: 3, a: 1 }));
      await c.insertOne({ _id: 4, a: 4 });
      const moved = await errorOf(c.updateOne({ _id: 4 }, { $set: { a: 2 } }));
      return { refused: refused?.code, moved: moved?.code, count: await c.countDocuments() };
    },
    expected: { refused: 11000, moved: 11000, count: 3 },
  },
  {
    name: 'prepareUnique over existing duplicates: they stay and can still be updated, new ones are refused',
    seed: duplicated,
    indexes,
    run: async (c, db) => {
      await prepare(c, db);
      await c.updateOne({ _id: 2 }, { $set: { b: 1 } });
      const refused = await errorOf(c.insertOne({ _id: 4, a: 1 }));
      // Removing one holder of a: 1 leaves the key held by the other.
      await c.deleteOne({ _id: 1 });
      const stillRefused = await errorOf(c.insertOne({ _id: 5, a: 1 }));
      return { refused: refused?.code, stillRefused: stillRefused?.code, docs: await c.find().sort({ _id: 1 }).toArray() };
    },
    expected: { refused: 11000, stillRefused: 11000, docs: [{ _id: 2, a: 1, b: 1 }, { _id: 3, a: 3 }] },
  },
  {
    name: 'unique: true without prepareUnique first is InvalidOptions',
    seed,
    indexes,
    run: (c, db) => db.command({ collMod: c.collectionName, index: { keyPattern: { a: 1 }, unique: true } }),
    code: 72,
  },
  {
    name: 'unique: false is BadValue',
    seed,
    indexes,
    run: (c, db) => db.command({ collMod: c.collectionName, index: { keyPattern: { a: 1 }, unique: false } }),
    code: 2,
  },
  {
    name: 'a non-boolean prepareUnique is TypeMismatch',
    seed,
    indexes,
    run: (c, db) => db.command({ collMod: c.collectionName, index: { keyPattern: { a: 1 }, prepareUnique: 'yes' } }),
    code: 14,
  },
  {
    name: 'prepareUnique together with another modification is InvalidOptions',
    seed,
    indexes,
    run: (c, db) => db.command({ collMod: c.collectionName, index: { keyPattern: { a: 1 }, prepareUnique: true, hidden: true } }),
    code: 72,
  },
  {
    name: 'unique: true after prepareUnique converts the index (unique_new) and drops prepareUnique',
    seed,
    indexes,
    run: async (c, db) => {
      await prepare(c, db);
      const reply = await db.command({ collMod: c.collectionName, index: { keyPattern: { a: 1 }, unique: true } });
      const listed = await listedA(c);
      const refused = await errorOf(c.insertOne({ _id: 3, a: 2 }));
      return { unique_new: reply.unique_new, unique: listed?.unique, prepareUnique: listed?.prepareUnique, refused: refused?.code };
    },
    expected: { unique_new: true, unique: true, prepareUnique: undefined, refused: 11000 },
  },
  {
    name: 'unique: true over duplicates is CannotConvertIndexToUnique (359) with the violating _ids, and changes nothing',
    seed: duplicated,
    indexes,
    run: async (c, db) => {
      await prepare(c, db);
      const error = await errorOf(db.command({ collMod: c.collectionName, index: { keyPattern: { a: 1 }, unique: true } }));
      const listed = await listedA(c);
      return { error, unique: listed?.unique, prepareUnique: listed?.prepareUnique };
    },
    expected: { error: { code: 359, violations: [{ ids: [1, 2] }] }, unique: undefined, prepareUnique: true },
  },
  {
    name: 'dryRun reports the violations, then answers ok without converting once they are resolved',
    seed: duplicated,
    indexes,
    run: async (c, db) => {
      await prepare(c, db);
      const dryRun = () => db.command({ collMod: c.collectionName, index: { keyPattern: { a: 1 }, unique: true }, dryRun: true });
      const before = await errorOf(dryRun());
      await c.deleteOne({ _id: 2 });
      const reply = await dryRun();
      const listed = await listedA(c);
      return { before, ok: reply.ok, unique_new: reply.unique_new, unique: listed?.unique };
    },
    expected: { before: { code: 359, violations: [{ ids: [1, 2] }] }, ok: 1, unique_new: undefined, unique: undefined },
  },
  {
    name: 'dryRun without unique: true is InvalidOptions',
    seed,
    indexes,
    run: (c, db) => db.command({ collMod: c.collectionName, index: { keyPattern: { a: 1 }, hidden: true }, dryRun: true }),
    code: 72,
  },
  {
    name: 'prepareUnique: false lets duplicates in again',
    seed,
    indexes,
    run: async (c, db) => {
      await prepare(c, db);
      const reply = await db.command({ collMod: c.collectionName, index: { keyPattern: { a: 1 }, prepareUnique: false } });
      await c.insertOne({ _id: 3, a: 1 });
      return { old: reply.prepareUnique_old, new: reply.prepareUnique_new, count: await c.countDocuments({ a: 1 }) };
    },
    expected: { old: true, new: false, count: 2 },
  },
];

describeCompat('collMod', cases);

describe('collMod prepareUnique on lmdb: survives a restart', () => {
  const { dbPath: tempDir, withClient } = restarts('engine-collmod');

  it('keeps the old duplicates, still refuses new ones, and reports the violations after the restart', async () => {
    const dbPath = tempDir();
    await withClient(dbPath, async (client) => {
      const c: LooseCollection = client.db('app').collection('apples');
      await c.createIndex({ a: 1 });
      await c.insertMany(duplicated.map((d) => ({ ...d })));
      await prepare(c, client.db('app'));
    });
    const after = await withClient(dbPath, async (client) => {
      const db = client.db('app');
      const c: LooseCollection = db.collection('apples');
      const refused = await errorOf(c.insertOne({ _id: 4, a: 1 }));
      const conversion = await errorOf(db.command({ collMod: 'apples', index: { keyPattern: { a: 1 }, unique: true } }));
      return { refused: refused?.code, conversion, count: await c.countDocuments() };
    });
    expect(after).toEqual({ refused: 11000, conversion: { code: 359, violations: [{ ids: [1, 2] }] }, count: 3 });
  });
});
