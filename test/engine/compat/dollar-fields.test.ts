import { MongoServerError } from 'mongodb';
import { describeCompat, type CompatCase } from './compat-cases.js';

/**
 * `$`-prefixed top-level field names in updates, as mongod 5.0+ validates
 * them: a document an upsert inserts is checked as an insert (a top-level
 * `$myKey` is stored, from `$set`, `$setOnInsert` or a replacement), while an
 * update of an existing document may not create or set one (52, worded for
 * the replacement document). The check is made on the document, not when the
 * update is parsed: an update that matches nothing is not refused, and
 * `$unset` may remove such a field.
 */

const REFUSAL =
  "The dollar ($) prefixed field '$myKey' in '$myKey' is not allowed in the context of an update's replacement document. Consider using an aggregation pipeline with $replaceWith.";

function refusal(e: unknown) {
  if (!(e instanceof MongoServerError)) throw e;
  return { code: e.code, errmsg: e.errmsg };
}

const stored = [{ _id: 1, a: 1 }];

const cases: CompatCase[] = [
  {
    name: 'an upsert with $set of a top-level $-prefixed field inserts it',
    run: async (c) => {
      const r = await c.updateOne({ _id: 7 }, { $set: { $myKey: 'x' } }, { upsert: true });
      return [r.upsertedId, await c.findOne({ _id: 7 })];
    },
    expected: [7, { _id: 7, $myKey: 'x' }],
  },
  {
    name: 'an upsert with $setOnInsert of a top-level $-prefixed field inserts it',
    run: async (c) => {
      await c.updateOne({ k: 1 }, { $setOnInsert: { $myKey: 2 } }, { upsert: true });
      return c.findOne({ k: 1 }, { projection: { _id: 0 } });
    },
    expected: { k: 1, $myKey: 2 },
  },
  {
    name: 'an upserting replacement keeps its top-level $-prefixed field',
    run: async (c) => {
      await c.replaceOne({ _id: 3 }, { a: 1, $myKey: 'y' }, { upsert: true });
      return c.findOne({ _id: 3 });
    },
    expected: { _id: 3, a: 1, $myKey: 'y' },
  },
  {
    name: 'findOneAndUpdate upserting a top-level $-prefixed field returns it',
    run: (c) => c.findOneAndUpdate({ _id: 4 }, { $set: { $myKey: 'z' } }, { upsert: true, returnDocument: 'after' }),
    expected: { _id: 4, $myKey: 'z' },
  },
  {
    name: 'an upsert with a nested operator-named path stores it',
    run: async (c) => {
      await c.updateOne({ _id: 5 }, { $set: { 'a.$inc': 1 } }, { upsert: true });
      return c.findOne({ _id: 5 });
    },
    expected: { _id: 5, a: { $inc: 1 } },
  },
  {
    name: '$set of a top-level $-prefixed field on an existing document is DollarPrefixedFieldName',
    seed: stored,
    run: (c) => c.updateOne({ _id: 1 }, { $set: { $myKey: 'x' } }).then(() => 'accepted', refusal),
    expected: { code: 52, errmsg: REFUSAL },
  },
  {
    name: 'the refused update leaves the document as it was',
    seed: stored,
    run: async (c) => {
      await c.updateOne({ _id: 1 }, { $set: { $myKey: 'x', a: 2 } }).catch(() => undefined);
      return c.findOne({ _id: 1 });
    },
    expected: { _id: 1, a: 1 },
  },
  {
    name: 'a dotted path under a new top-level $-prefixed field is refused at that field',
    seed: stored,
    run: (c) => c.updateOne({ _id: 1 }, { $set: { '$myKey.b': 1 } }).then(() => 'accepted', refusal),
    expected: { code: 52, errmsg: REFUSAL },
  },
  {
    name: 'findOneAndUpdate setting a top-level $-prefixed field on an existing document is 52',
    seed: stored,
    run: (c) => c.findOneAndUpdate({ _id: 1 }, { $inc: { $myKey: 1 } }),
    code: 52,
  },
  {
    name: 'a replacement with a top-level $-prefixed field on an existing document is 52',
    seed: stored,
    run: (c) => c.replaceOne({ _id: 1 }, { a: 2, $myKey: 'y' }).then(() => 'accepted', refusal),
    expected: { code: 52, errmsg: REFUSAL },
  },
  {
    name: 'an update that matches nothing is not refused for a $-prefixed field',
    seed: stored,
    run: async (c) => {
      const r = await c.updateOne({ _id: 99 }, { $set: { $myKey: 'x' } });
      return { matched: r.matchedCount, modified: r.modifiedCount };
    },
    expected: { matched: 0, modified: 0 },
  },
  {
    name: 'a stored top-level $-prefixed field can be unset, and other fields set beside it',
    seed: [{ _id: 1, $myKey: 'x', a: 1 }],
    run: async (c) => {
      await c.updateOne({ _id: 1 }, { $set: { a: 2 } });
      const before = await c.findOne({ _id: 1 });
      await c.updateOne({ _id: 1 }, { $unset: { $myKey: '' } });
      return [before, await c.findOne({ _id: 1 })];
    },
    expected: [
      { _id: 1, $myKey: 'x', a: 2 },
      { _id: 1, a: 2 },
    ],
  },
];

describeCompat('dollar fields', cases);
