import type { Db } from 'mongodb';
import { describeCompat, type CompatCase, type LooseCollection } from './compat-cases.js';

/**
 * A collection that does not exist answers as an empty one, but only after
 * the request has been parsed: mongod canonicalises the filter, sort and
 * projection first and only then picks its EOF plan. So a bad filter is
 * refused with the same code as on an existing collection, `$text` still
 * needs a text index (27), while `$near` needs no index, since no plan is
 * made. No case seeds or indexes: every collection here is missing.
 */

const BOGUS = { a: { $bogus: 1 } };
const BAD_SCHEMA = { $jsonSchema: { properties: { a: { bsonType: 'integerish' } } } };
const TEXT = { $text: { $search: 'coffee' } };
const NEAR = { pos: { $near: [0, 0] } };

const collectionsOf = async (db: Db) => (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);

/** The same refusal through every read and write that takes a filter. */
function everyPath(what: string, filter: object, code: number): CompatCase[] {
  const on = (path: string, run: (c: LooseCollection, db: Db) => Promise<unknown>): CompatCase => ({ name: `${what}: ${path}`, run, code });
  return [
    on('find', (c) => c.find(filter).toArray()),
    on('count', (c, db) => db.command({ count: c.collectionName, query: filter })),
    on('countDocuments', (c) => c.countDocuments(filter)),
    on('distinct', (c) => c.distinct('a', filter)),
    on('aggregate $match', (c) => c.aggregate([{ $match: filter }]).toArray()),
    on('updateOne', (c) => c.updateOne(filter, { $set: { b: 1 } })),
    on('deleteOne', (c) => c.deleteOne(filter)),
    on('findOneAndUpdate', (c) => c.findOneAndUpdate(filter, { $set: { b: 1 } })),
  ];
}

const cases: CompatCase[] = [
  ...everyPath('an unknown operator is BadValue', BOGUS, 2),
  ...everyPath('a bad $jsonSchema is BadValue', BAD_SCHEMA, 2),
  ...everyPath('$text needs a text index (IndexNotFound)', TEXT, 27),
  { name: 'a bad $regex is 51091: find', run: (c) => c.find({ a: { $regex: '(' } }).toArray(), code: 51091 },
  { name: 'a bad $regex is 51091: deleteMany', run: (c) => c.deleteMany({ a: { $regex: '(' } }), code: 51091 },
  { name: 'an empty $and is BadValue: count', run: (c, db) => db.command({ count: c.collectionName, query: { $and: [] } }), code: 2 },
  { name: 'a bad $expr is refused: find', run: (c) => c.find({ $expr: { $bogusOp: 1 } }).toArray(), code: 168 },
  { name: 'a bad $expr is refused: seeded find', seed: [{ _id: 1 }], run: (c) => c.find({ $expr: { $bogusOp: 1 } }).toArray(), code: 168 },

  // Sort and projection are parsed with the filter.
  // The driver refuses a sort order of 2 itself: sent as commands.
  { name: 'a bad sort order is 15975: find', run: (c, db) => db.command({ find: c.collectionName, sort: { a: 2 } }), code: 15975 },
  {
    name: 'a bad sort order is 15975: findAndModify',
    run: (c, db) => db.command({ findAndModify: c.collectionName, query: {}, sort: { a: 2 }, update: { $set: { b: 1 } } }),
    code: 15975,
  },
  { name: 'a bad projection is 31254: find', run: (c) => c.find({}).project({ a: 1, b: 0 }).toArray(), code: 31254 },
  {
    name: 'a bad projection is 31254: findOneAndUpdate',
    run: (c) => c.findOneAndUpdate({}, { $set: { b: 1 } }, { projection: { a: 1, b: 0 } }),
    code: 31254,
  },
  { name: 'a bad projection is 31254: find by _id', run: (c) => c.find({ _id: 1 }).project({ a: 1, b: 0 }).toArray(), code: 31254 },
  { name: 'an unknown update operator is FailedToParse: updateOne', run: (c) => c.updateOne({}, { $bogus: { a: 1 } }), code: 9 },

  // $near: no plan is made for a missing collection, so no geo index is needed; $match refuses it anywhere.
  { name: '$near without an index: find answers nothing', run: (c) => c.find(NEAR).toArray(), expected: [] },
  { name: '$near without an index: count answers 0', run: async (c, db) => (await db.command({ count: c.collectionName, query: NEAR })).n, expected: 0 },
  { name: '$near without an index: deleteOne deletes nothing', run: async (c) => (await c.deleteOne(NEAR)).deletedCount, expected: 0 },
  { name: '$near in countDocuments ($match) is 5626500', run: (c) => c.countDocuments(NEAR), code: 5626500 },

  // A refused upsert creates nothing.
  {
    name: 'a refused upsert does not create the collection',
    run: async (c, db) => {
      const code = await c.updateOne(BOGUS, { $set: { b: 1 } }, { upsert: true }).then(
        () => 'ok',
        (e: { code: number }) => e.code,
      );
      return { code, created: (await collectionsOf(db)).includes(c.collectionName) };
    },
    expected: { code: 2, created: false },
  },
  // The good forms still answer as an empty collection.
  { name: 'a good filter answers nothing: find', run: (c) => c.find({ a: { $gt: 1 } }).sort({ a: 1 }).project({ a: 1 }).toArray(), expected: [] },
  { name: 'a good filter answers nothing: distinct', run: (c) => c.distinct('a', { a: { $exists: true } }), expected: [] },
];

describeCompat('missing collection', cases);
