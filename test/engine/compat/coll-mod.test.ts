import { describeCompat, type CompatCase } from './compat-cases.js';

/** collMod: index TTL and hidden, validators, views. */
const seed = [
  { _id: 1, a: 1 },
  { _id: 2, a: 2 },
];
const indexes = [{ key: { a: 1 } }];
const winningIndex = async (c: Parameters<CompatCase['run']>[0]): Promise<string> => {
  const plan = (await c.find({ a: 1 }).explain('queryPlanner')).queryPlanner.winningPlan;
  return plan.inputStage?.indexName ?? plan.stage;
};

const cases: CompatCase[] = [
  {
    name: 'hiding an index answers hidden_old/hidden_new and lists it as hidden',
    seed,
    indexes,
    run: async (c, db) => {
      const reply = await db.command({ collMod: c.collectionName, index: { name: 'a_1', hidden: true } });
      const listed = (await c.indexes()).find((ix) => ix.name === 'a_1');
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
];

describeCompat('collMod', cases);
