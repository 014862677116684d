import type { Db } from 'mongodb';
import { describeCompat, type CompatCase, type LooseCollection } from './compat-cases.js';

/** Creates the case's collection with a validator requiring a numeric `qty >= 0`. */
async function validated(c: LooseCollection, db: Db, extra: object = {}): Promise<LooseCollection> {
  await db.createCollection(c.collectionName, { validator: { qty: { $type: 'number', $gte: 0 } }, ...extra });
  return c;
}

const cases: CompatCase[] = [
  {
    name: 'a valid document is inserted',
    run: async (c, db) => (await (await validated(c, db)).insertOne({ qty: 1 })).acknowledged,
    expected: true,
  },
  {
    name: 'an invalid insert is DocumentValidationFailure',
    run: async (c, db) => (await validated(c, db)).insertOne({ qty: -1 }),
    code: 121,
  },
  {
    name: 'an update producing an invalid document is DocumentValidationFailure',
    run: async (c, db) => {
      const coll = await validated(c, db);
      await coll.insertOne({ _id: 1, qty: 1 });
      return coll.updateOne({ _id: 1 }, { $set: { qty: 'many' } });
    },
    code: 121,
  },
  {
    name: 'an invalid upsert is DocumentValidationFailure',
    run: async (c, db) => (await validated(c, db)).updateOne({ _id: 1 }, { $set: { qty: -5 } }, { upsert: true }),
    code: 121,
  },
  {
    name: 'bypassDocumentValidation skips the check',
    run: async (c, db) => {
      const coll = await validated(c, db);
      await coll.insertOne({ qty: -1 }, { bypassDocumentValidation: true });
      return coll.countDocuments();
    },
    expected: 1,
  },
  {
    name: "validationAction 'warn' accepts invalid documents",
    run: async (c, db) => {
      const coll = await validated(c, db, { validationAction: 'warn' });
      await coll.insertOne({ qty: -1 });
      return coll.countDocuments();
    },
    expected: 1,
  },
  {
    name: "validationLevel 'moderate' lets already-invalid documents be updated",
    run: async (c, db) => {
      const coll = await validated(c, db, { validationLevel: 'moderate' });
      await coll.insertOne({ _id: 1, qty: -1 }, { bypassDocumentValidation: true });
      await coll.updateOne({ _id: 1 }, { $set: { note: 'still invalid' } });
      return coll.findOne({ _id: 1 });
    },
    expected: { _id: 1, qty: -1, note: 'still invalid' },
  },
  {
    name: 'findOneAndUpdate into an invalid document is DocumentValidationFailure',
    run: async (c, db) => {
      const coll = await validated(c, db);
      await coll.insertOne({ _id: 1, qty: 1 });
      return coll.findOneAndUpdate({ _id: 1 }, { $inc: { qty: -2 } });
    },
    code: 121,
  },
  {
    name: '$out into a validated collection rejects invalid results and keeps the old content',
    run: async (c, db) => {
      const target = await validated(db.collection(`${c.collectionName}_out`), db);
      await target.insertOne({ _id: 'old', qty: 1 });
      await c.insertMany([{ _id: 1, qty: -1 }]);
      const err = await c.aggregate([{ $out: target.collectionName }]).toArray().catch((e: { code: number }) => e.code);
      return [err, await target.find().toArray()];
    },
    expected: [121, [{ _id: 'old', qty: 1 }]],
  },
];

describeCompat('validation', cases);
