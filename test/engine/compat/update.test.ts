import { describeCompat, type CompatCase } from './compat-cases.js';

const items = [
  { _id: 1, name: 'a', qty: 5, tags: ['x'] },
  { _id: 2, name: 'b', qty: 10, tags: [] },
  { _id: 3, name: 'c', qty: 15 },
];

/** The counts an UpdateResult reports. */
function counts(r: { matchedCount: number; modifiedCount: number; upsertedCount: number }) {
  return { matched: r.matchedCount, modified: r.modifiedCount, upserted: r.upsertedCount };
}

const cases: CompatCase[] = [
  {
    name: 'updateOne $set changes one document',
    seed: items,
    run: async (c) => [counts(await c.updateOne({ qty: { $gt: 1 } }, { $set: { flag: true } })), await c.countDocuments({ flag: true })],
    expected: [{ matched: 1, modified: 1, upserted: 0 }, 1],
  },
  {
    name: 'updateMany $inc changes every match',
    seed: items,
    run: async (c) => [counts(await c.updateMany({}, { $inc: { qty: 1 } })), await c.find().project({ _id: 0, qty: 1 }).toArray()],
    expected: [{ matched: 3, modified: 3, upserted: 0 }, [{ qty: 6 }, { qty: 11 }, { qty: 16 }]],
  },
  {
    name: 'setting a field to its current value matches but does not modify',
    seed: items,
    run: async (c) => counts(await c.updateOne({ _id: 1 }, { $set: { qty: 5 } })),
    expected: { matched: 1, modified: 0, upserted: 0 },
  },
  {
    name: 'no match and no upsert changes nothing',
    seed: items,
    run: async (c) => counts(await c.updateOne({ _id: 99 }, { $set: { a: 1 } })),
    expected: { matched: 0, modified: 0, upserted: 0 },
  },
  {
    name: 'an upsert seeds the new document from the query equalities',
    seed: items,
    run: async (c) => {
      const r = await c.updateOne({ _id: 9, name: 'z' }, { $set: { qty: 1 } }, { upsert: true });
      return [counts(r), r.upsertedId, await c.findOne({ _id: 9 })];
    },
    expected: [{ matched: 0, modified: 0, upserted: 1 }, 9, { _id: 9, name: 'z', qty: 1 }],
  },
  {
    name: 'an upsert without _id in the query generates one first',
    run: async (c) => {
      await c.updateOne({ name: 'n' }, { $set: { v: 1 } }, { upsert: true });
      return Object.keys((await c.findOne({}))!);
    },
    expected: ['_id', 'name', 'v'],
  },
  {
    name: '$setOnInsert applies only when the upsert inserts',
    seed: items,
    run: async (c) => {
      await c.updateOne({ _id: 1 }, { $set: { qty: 6 }, $setOnInsert: { created: true } }, { upsert: true });
      await c.updateOne({ _id: 8 }, { $set: { qty: 1 }, $setOnInsert: { created: true } }, { upsert: true });
      return c.find({ _id: { $in: [1, 8] } }).project({ created: 1, qty: 1 }).toArray();
    },
    expected: [{ _id: 1, qty: 6 }, { _id: 8, qty: 1, created: true }],
  },
  {
    name: 'a replacement keeps the _id and drops other fields',
    seed: items,
    run: async (c) => {
      await c.replaceOne({ _id: 1 }, { other: true });
      return c.findOne({ _id: 1 });
    },
    expected: { _id: 1, other: true },
  },
  {
    name: 'a replacement upsert takes only the _id from the query',
    run: async (c) => {
      await c.replaceOne({ _id: 5, name: 'q' }, { v: 1 }, { upsert: true });
      return c.findOne({});
    },
    expected: { _id: 5, v: 1 },
  },
  {
    name: 'changing _id is ImmutableField',
    seed: items,
    run: (c) => c.updateOne({ _id: 1 }, { $set: { _id: 100 } }),
    code: 66,
  },
  {
    name: "an upsert may not change the query's _id",
    run: (c) => c.updateOne({ _id: 1 }, { $set: { _id: 2 } }, { upsert: true }),
    code: 66,
  },
  {
    name: 'a replacement with another _id is ImmutableField',
    seed: items,
    run: (c) => c.replaceOne({ _id: 1 }, { _id: 100 }),
    code: 66,
  },
  {
    name: 'multi with a replacement document is a FailedToParse write error',
    seed: items,
    run: async (c, db) =>
      (await db.command({ update: c.collectionName, updates: [{ q: {}, u: { a: 1 }, multi: true }] })).writeErrors.map(
        (e: { code: number }) => e.code,
      ),
    expected: [9],
  },
  {
    name: 'the same path in two operators is ConflictingUpdateOperators',
    seed: items,
    run: (c) => c.updateOne({ _id: 1 }, { $set: { qty: 1 }, $inc: { qty: 1 } }),
    code: 40,
  },
  {
    name: '$inc on a string is TypeMismatch',
    seed: items,
    run: (c) => c.updateOne({ _id: 1 }, { $inc: { name: 1 } }),
    code: 14,
  },
  {
    name: 'the positional operator updates the matched element',
    seed: [{ _id: 1, a: [1, 2, 3] }],
    run: async (c) => {
      await c.updateOne({ a: 2 }, { $set: { 'a.$': 20 } });
      return c.findOne({ _id: 1 });
    },
    expected: { _id: 1, a: [1, 20, 3] },
  },
  {
    name: 'arrayFilters select the updated elements',
    seed: [{ _id: 1, a: [1, 5, 9] }],
    run: async (c) => {
      await c.updateOne({ _id: 1 }, { $set: { 'a.$[big]': 0 } }, { arrayFilters: [{ big: { $gt: 4 } }] });
      return c.findOne({ _id: 1 });
    },
    expected: { _id: 1, a: [1, 0, 0] },
  },
  {
    name: '$push with $each, $sort and $slice',
    seed: [{ _id: 1, a: [3, 1] }],
    run: async (c) => {
      await c.updateOne({ _id: 1 }, { $push: { a: { $each: [2, 5], $sort: 1, $slice: 3 } } } as never);
      return c.findOne({ _id: 1 });
    },
    expected: { _id: 1, a: [1, 2, 3] },
  },
  {
    name: 'a pipeline update computes from the document',
    seed: [{ _id: 1, a: 2, b: 3 }],
    run: async (c) => {
      await c.updateOne({ _id: 1 }, [{ $set: { sum: { $add: ['$a', '$b'] } } }]);
      return c.findOne({ _id: 1 });
    },
    expected: { _id: 1, a: 2, b: 3, sum: 5 },
  },
  {
    name: 'let values are expressions: $literal gives the raw string to a pipeline update',
    seed: items,
    run: async (c) => {
      await c.updateMany({ _id: 2 }, [{ $set: { qty: '$$v' } }], { let: { v: { $literal: 'bar' } } });
      return c.findOne({ _id: 2 });
    },
    expected: { _id: 2, name: 'b', qty: 'bar', tags: [] },
  },
  {
    name: 'a pipeline update that drops _id keeps the original one',
    seed: [{ _id: 1, t: { u: { v: 1 } } }],
    run: async (c) => {
      await c.updateOne({ _id: 1 }, [{ $replaceRoot: { newRoot: '$t' } }, { $addFields: { foo: 1 } }]);
      return c.findOne({ _id: 1 });
    },
    expected: { _id: 1, u: { v: 1 }, foo: 1 },
  },
  {
    name: 'sort in an update statement is an unknown field on 7.0 (IDLUnknownField)',
    seed: items,
    run: (c, db) => db.command({ update: c.collectionName, updates: [{ q: {}, u: { $set: { qty: 0 } }, sort: { _id: -1 } }] }),
    code: 40415,
  },
  {
    name: 'an unknown field in an update statement changes nothing',
    seed: [{ _id: 1, qty: 5 }],
    run: async (c, db) => {
      await db.command({ update: c.collectionName, updates: [{ q: {}, u: { $set: { qty: 0 } }, bogus: 1 }] }).catch(() => undefined);
      return c.findOne({ _id: 1 });
    },
    expected: { _id: 1, qty: 5 },
  },
  {
    name: 'let variables reach the filter and a pipeline update',
    seed: items,
    run: async (c) => {
      await c.updateOne({ $expr: { $eq: ['$name', '$$who'] } }, [{ $set: { qty: '$$amount' } }], { let: { who: 'b', amount: 42 } });
      return c.findOne({ _id: 2 });
    },
    expected: { _id: 2, name: 'b', qty: 42, tags: [] },
  },
  {
    name: 'an update into a unique index conflict is DuplicateKey',
    seed: [{ _id: 1, email: 'a' }, { _id: 2, email: 'b' }],
    indexes: [{ key: { email: 1 }, options: { unique: true } }],
    run: (c) => c.updateOne({ _id: 2 }, { $set: { email: 'a' } }),
    code: 11000,
  },
  {
    name: 'the raw reply lists upserted ids by statement index',
    run: async (c, db) => {
      const r = await db.command({
        update: c.collectionName,
        updates: [
          { q: { _id: 1 }, u: { $set: { a: 1 } }, upsert: true },
          { q: { _id: 1 }, u: { $set: { a: 2 } } },
        ],
      });
      return { n: r.n, nModified: r.nModified, upserted: r.upserted };
    },
    expected: { n: 2, nModified: 1, upserted: [{ index: 0, _id: 1 }] },
  },
  {
    name: 'setting an array index far past its end is CannotBackfillArray and changes nothing',
    seed: [{ _id: 1, a: [1] }],
    run: async (c) => {
      const err = await c.updateOne({ _id: 1 }, { $set: { 'a.999999999': 1 } }).catch((e: { code: number }) => e.code);
      return [err, await c.findOne({ _id: 1 })];
    },
    expected: [34, { _id: 1, a: [1] }],
  },
  {
    name: 'an update that grows a document past 16MB is BSONObjectTooLarge',
    seed: [{ _id: 1 }],
    run: (c) => c.updateOne({ _id: 1 }, [{ $set: { a: { $range: [0, 2000000] } } }]),
    code: 10334,
  },
  {
    name: '$$NOW is one time for the whole statement: every document and every use of it in a pipeline update',
    seed: Array.from({ length: 200 }, (_, i) => ({ _id: i })),
    run: async (c) => {
      await c.updateMany({}, [{ $set: { a: '$$NOW', b: { $add: ['$$NOW', 0] }, c: { $add: ['$$NOW', 1000] } } }]);
      const docs = await c.find({}).toArray();
      const times = new Set(docs.map((d) => (d.a as Date).getTime()));
      return [times.size, docs.every((d) => (d.b as Date).getTime() === (d.a as Date).getTime() && (d.c as Date).getTime() === (d.a as Date).getTime() + 1000)];
    },
    expected: [1, true],
  },
  {
    name: '$$NOW bound deep in a pipeline update (in an object, a list, a $switch branch) and left alone inside $literal',
    seed: [{ _id: 1, state: 'pending' }],
    run: async (c) => {
      await c.updateOne({ _id: 1 }, [
        {
          $replaceWith: {
            $switch: {
              branches: [{ case: { $eq: ['$state', 'pending'] }, then: { $mergeObjects: ['$$ROOT', { at: '$$NOW', later: [{ $add: ['$$NOW', 1000] }], kept: { $literal: '$$NOW' } }] } }],
              default: '$$ROOT',
            },
          },
        },
      ]);
      const doc = (await c.findOne({ _id: 1 }))!;
      const at = doc.at as Date;
      return [at instanceof Date, (doc.later as Date[])[0]!.getTime() - at.getTime(), doc.kept];
    },
    expected: [true, 1000, '$$NOW'],
  },
];

describeCompat('update', cases);
