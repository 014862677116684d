import type { Document } from 'mongodb';
import { describeCompat, type CompatCase } from './compat-cases.js';

/**
 * mongod 7.0's nesting limits. A stored document has at most 180 levels (its
 * maxBSONDepth 200 less the 20 it keeps for its own wrapping; the manual's
 * "100 levels" is the supported minimum, not the enforced limit): the top
 * document is the first, an empty object or array at the bottom does not
 * count, else Overflow (15) on insert, update, replacement and upsert. A
 * command is BSON of at most 201 levels, else Overflow before it is read at
 * all (filters, pipelines, documents alike).
 */

/** A document of `levels` levels: {a: {a: ... {a: leaf}}}. */
function nested(levels: number, leaf: unknown = 1): Document {
  let doc: Document = { a: leaf };
  for (let i = 1; i < levels; i++) doc = { a: doc };
  return doc;
}

/** `levels` nested arrays under field a: {a: [[...[1]...]]} is 1 + levels levels. */
function nestedArrays(levels: number): Document {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = [value];
  return { a: value };
}

const writeCode = (e: { code?: number; writeErrors?: Array<{ code: number }> }) => e.writeErrors?.[0]?.code ?? e.code;

const cases: CompatCase[] = [
  { name: 'insert: 180 levels are stored', run: async (c) => (await c.insertOne({ _id: 1, ...nested(180) })).acknowledged, expected: true },
  { name: 'insert: 181 levels are Overflow', run: (c) => c.insertOne({ _id: 1, ...nested(181) }), code: 15 },
  { name: 'insert: an empty object at level 181 does not count', run: async (c) => (await c.insertOne({ _id: 1, ...nested(180, {}) })).acknowledged, expected: true },
  { name: 'insert: 181 levels of arrays are Overflow', run: (c) => c.insertOne({ _id: 1, ...nestedArrays(180) }), code: 15 },
  {
    name: 'insertMany (ordered): the too deep document fails, the one before it is stored',
    run: async (c) => {
      const code = await c.insertMany([{ _id: 1 }, { _id: 2, ...nested(190) }, { _id: 3 }]).then(() => 'ok', writeCode);
      return { code, ids: (await c.find().toArray()).map((d) => d._id) };
    },
    expected: { code: 15, ids: [1] },
  },
  {
    name: 'updateOne: $set that makes 181 levels is Overflow and changes nothing',
    seed: [{ _id: 1, x: 1 }],
    run: async (c) => {
      const code = await c.updateOne({ _id: 1 }, { $set: { deep: nested(180) } }).then(() => 'ok', writeCode);
      return { code, doc: await c.findOne({ _id: 1 }) };
    },
    expected: { code: 15, doc: { _id: 1, x: 1 } },
  },
  {
    name: 'updateOne: $set up to 180 levels is applied',
    seed: [{ _id: 1 }],
    run: async (c) => (await c.updateOne({ _id: 1 }, { $set: { deep: nested(179) } })).modifiedCount,
    expected: 1,
  },
  { name: 'replaceOne: a 181-level replacement is Overflow', seed: [{ _id: 1 }], run: (c) => c.replaceOne({ _id: 1 }, nested(181)), code: 15 },
  {
    name: 'upsert: a 181-level new document is Overflow and nothing is created',
    run: async (c) => {
      const code = await c.updateOne({ _id: 7 }, { $set: nested(181) }, { upsert: true }).then(() => 'ok', writeCode);
      return { code, n: await c.countDocuments() };
    },
    expected: { code: 15, n: 0 },
  },
  { name: 'findOneAndUpdate: 181 levels are Overflow', seed: [{ _id: 1 }], run: (c) => c.findOneAndUpdate({ _id: 1 }, { $set: nested(181) }), code: 15 },

  // The command's own BSON: the body is level 1, the filter level 2.
  { name: 'find: a filter of 120 levels is answered', seed: [{ _id: 1 }], run: (c) => c.find(nested(120)).toArray(), expected: [] },
  { name: 'find: a filter of 201 levels (a body of 202) is Overflow', run: (c, db) => db.command({ find: c.collectionName, filter: nested(201) }), code: 15 },
  {
    name: 'aggregate: a $match nested past the limit is Overflow',
    seed: [{ _id: 1 }],
    run: (c) => c.aggregate([{ $match: nested(250) }]).toArray(),
    code: 15,
  },
  {
    name: 'aggregate: an expression nested past the limit is Overflow',
    seed: [{ _id: 1 }],
    run: (c) => {
      let expr: unknown = 1;
      for (let i = 0; i < 250; i++) expr = { $add: [expr, 1] };
      return c.aggregate([{ $project: { v: expr } }]).toArray();
    },
    code: 15,
  },
  {
    name: 'a deep but allowed $and nesting is answered',
    seed: [{ _id: 1, e: 1, a: 1 }],
    run: async (c) => {
      let filter: Document = { e: 1 };
      for (let i = 0; i < 30; i++) filter = { $and: [{ $or: [filter, { o: 0 }] }, { a: 1 }] };
      return (await c.find(filter).toArray()).map((d) => d._id);
    },
    expected: [1],
  },
];

describeCompat('nesting depth', cases);
