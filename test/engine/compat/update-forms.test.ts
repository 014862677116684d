import type { Document } from 'mongodb';
import { describeCompat, type CompatCase } from './compat-cases.js';

/**
 * Update forms mongoose and MongoDB 5.0+ clients send: empty operator
 * documents (a no-op), `$pull` conditions with logical operators (a query on
 * each element document), and `$`-prefixed field names below the top level
 * (storage validation refuses them only at the top level since 5.0).
 */

function counts(r: { matchedCount: number; modifiedCount: number }) {
  return { matched: r.matchedCount, modified: r.modifiedCount };
}

const one = [{ _id: 1, a: 1, list: [{ x: 1, y: 1 }, { x: 2, y: 2 }, { x: 3, y: 3 }, 7], n: [1, 2, 3, 4] }];

const cases: CompatCase[] = [
  // empty operator documents
  {
    name: 'an empty $set matches and modifies nothing',
    seed: one,
    run: async (c) => [counts(await c.updateOne({ _id: 1 }, { $set: {} })), await c.findOne({ _id: 1 }, { projection: { a: 1 } })],
    expected: [{ matched: 1, modified: 0 }, { _id: 1, a: 1 }],
  },
  {
    name: 'an empty $unset beside a real $inc applies the $inc',
    seed: one,
    run: async (c) => [counts(await c.updateOne({ _id: 1 }, { $unset: {}, $inc: { a: 1 } })), await c.findOne({ _id: 1 }, { projection: { a: 1 } })],
    expected: [{ matched: 1, modified: 1 }, { _id: 1, a: 2 }],
  },
  {
    name: 'findOneAndUpdate with an empty $set returns the document unchanged',
    seed: one,
    run: (c) => c.findOneAndUpdate({ _id: 1 }, { $set: {} }, { projection: { a: 1 }, returnDocument: 'after' }),
    expected: { _id: 1, a: 1 },
  },
  {
    name: 'an upsert with an empty $set inserts the query equalities',
    run: async (c) => [(await c.updateOne({ _id: 5, k: 'v' }, { $set: {} }, { upsert: true })).upsertedId, await c.findOne({ _id: 5 })],
    expected: [5, { _id: 5, k: 'v' }],
  },
  // $pull with logical operators
  {
    name: '$pull with $or removes element documents matching either clause',
    seed: one,
    run: async (c) => {
      await c.updateOne({ _id: 1 }, { $pull: { list: { $or: [{ x: 1 }, { y: 3 }] } } as Document });
      return (await c.findOne({ _id: 1 }))!.list;
    },
    expected: [{ x: 2, y: 2 }, 7],
  },
  {
    name: '$pull with $and',
    seed: one,
    run: async (c) => {
      await c.updateOne({ _id: 1 }, { $pull: { list: { $and: [{ x: { $gte: 2 } }, { y: { $lte: 2 } }] } } as Document });
      return (await c.findOne({ _id: 1 }))!.list;
    },
    expected: [{ x: 1, y: 1 }, { x: 3, y: 3 }, 7],
  },
  {
    name: '$pull with $nor leaves scalars alone',
    seed: one,
    run: async (c) => {
      await c.updateOne({ _id: 1 }, { $pull: { list: { $nor: [{ x: 1 }, { x: 2 }] } } as Document });
      return (await c.findOne({ _id: 1 }))!.list;
    },
    expected: [{ x: 1, y: 1 }, { x: 2, y: 2 }, 7],
  },
  {
    name: '$pull with $in on scalars',
    seed: one,
    run: async (c) => {
      await c.updateOne({ _id: 1 }, { $pull: { n: { $in: [2, 4] } } as Document });
      return (await c.findOne({ _id: 1 }))!.n;
    },
    expected: [1, 3],
  },
  {
    name: '$pull with an unknown top-level operator is BadValue',
    seed: one,
    run: (c) => c.updateOne({ _id: 1 }, { $pull: { list: { $or: [{ $bogus: 1 }] } } as Document }),
    code: 2,
  },
  // $-prefixed names below the top level
  {
    name: "a path part literally '$*' creates that field",
    seed: [{ _id: 1, m: { k: { n: 1 } } }],
    run: async (c) => {
      await c.updateOne({ _id: 1 }, { $set: { 'm.$*.n': 5 } });
      return c.findOne({ _id: 1 });
    },
    expected: { _id: 1, m: { k: { n: 1 }, '$*': { n: 5 } } },
  },
  {
    name: 'a nested document with a $each field is pushed as a value',
    seed: [{ _id: 1, arr: [] }],
    run: async (c) => {
      await c.updateOne({ _id: 1 }, { $push: { arr: { items: { $each: [1] } } } as Document });
      return (await c.findOne({ _id: 1 }))!.arr;
    },
    expected: [{ items: { $each: [1] } }],
  },
  {
    name: '$addToSet with $each into a nested array by position',
    seed: [{ _id: 1, arr: [{ tags: ['a'] }] }],
    run: async (c) => {
      await c.updateOne({ _id: 1 }, { $addToSet: { 'arr.0.tags': { $each: ['a', 'b'] } } as Document });
      return (await c.findOne({ _id: 1 }))!.arr;
    },
    expected: [{ tags: ['a', 'b'] }],
  },
  {
    name: '$push with $each into every nested array through $[]',
    seed: [{ _id: 1, arr: [{ items: [1] }, { items: [] }] }],
    run: async (c) => {
      await c.updateOne({ _id: 1 }, { $push: { 'arr.$[].items': { $each: [9], $slice: -2 } } as Document });
      return (await c.findOne({ _id: 1 }))!.arr;
    },
    expected: [{ items: [1, 9] }, { items: [9] }],
  },
  {
    name: 'a $-prefixed top-level field in $set is refused',
    seed: one,
    run: (c) => c.updateOne({ _id: 1 }, { $set: { $price: 1 } }),
    code: 52,
  },
];

describeCompat('update forms', cases);
