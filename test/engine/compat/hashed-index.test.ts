import { Long } from 'mongodb';
import type { Document } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { restarts } from '../support/restarts.js';
import { describeCompat, type CompatCase, type LooseCollection } from './compat-cases.js';
import { access, ids, sortedIds, stages, winning } from './explain-helpers.js';

/**
 * Hashed indexes as mongod 7.0 has them: one hashed field (alone or in a
 * compound index), no arrays on any key path (16766), not unique (16764);
 * equality and `$in` on the hashed field read the index (its keys are
 * mongod's own 64-bit hashes, checked against MongoDB's key generator
 * golden values through returnKey), ranges and sorts do not, and a hint
 * scans it whole.
 */

const seed = [
  { _id: 1, a: 1, b: 'x' },
  { _id: 2, a: 2, b: 'y' },
  { _id: 3, a: 3, b: 'x' },
  { _id: 4, a: 3.1, b: 'z' },
  { _id: 5, b: 'w' },
  { _id: 6, a: null },
  { _id: 7, a: { c: 1 } },
];
const hashedA = [{ key: { a: 'hashed' } }];

/** The read's access stage and its documents. */
const read = async (c: LooseCollection, filter: Document) => [access(await winning(c, filter)).stage, sortedIds(await c.find(filter).toArray())];

const cases: CompatCase[] = [
  // Creation and its refusals.
  {
    name: 'listIndexes shows the hashed index as created',
    indexes: hashedA,
    run: async (c) => (await c.listIndexes().toArray())[1],
    expected: { v: 2, key: { a: 'hashed' }, name: 'a_hashed' },
  },
  {
    name: 'a compound index with one hashed field is created',
    run: async (c) => [await c.createIndex({ a: 1, b: 'hashed', c: 1 }), await c.createIndex({ b: 'hashed', a: -1 })],
    expected: ['a_1_b_hashed_c_1', 'b_hashed_a_-1'],
  },
  { name: 'a unique hashed index is refused (16764)', run: (c) => c.createIndex({ a: 'hashed' }, { unique: true }), code: 16764 },
  { name: 'two hashed fields are refused (31303)', run: (c) => c.createIndex({ a: 'hashed', b: 'hashed' }), code: 31303 },
  { name: 'a hashed and a 2dsphere field are two plugins (67)', run: (c) => c.createIndex({ a: 'hashed', b: '2dsphere' }), code: 67 },
  // Arrays on a key path.
  { name: 'an array in the hashed field is refused at insert (16766)', indexes: hashedA, run: (c) => c.insertOne({ a: [1, 2] }), code: 16766 },
  { name: 'an empty array too', indexes: hashedA, run: (c) => c.insertOne({ a: [] }), code: 16766 },
  {
    name: 'an array along the hashed path is refused (16766)',
    indexes: [{ key: { 'f1.f2.0.f4': 'hashed' } }],
    run: (c) => c.insertOne({ f1: [{ f2: { 0: { f4: 1 } } }] }),
    code: 16766,
  },
  {
    name: 'an array beside the hashed path is accepted',
    indexes: [{ key: { 'f1.f2.0.f4': 'hashed' } }],
    run: async (c) => (await c.insertOne({ _id: 1, f1: { f2: { 0: { other: [1] } } } })).insertedId,
    expected: 1,
  },
  {
    name: 'an array in another field of a compound hashed index is refused too (16766)',
    indexes: [{ key: { a: 1, b: 'hashed' } }],
    run: (c) => c.insertOne({ a: [1], b: 2 }),
    code: 16766,
  },
  { name: 'an update that sets an array is refused (16766)', seed, indexes: hashedA, run: (c) => c.updateOne({ _id: 1 }, { $set: { a: [1] } }), code: 16766 },
  {
    name: 'a refused update leaves the document as it was',
    seed,
    indexes: hashedA,
    run: async (c) => {
      await c.updateOne({ _id: 1 }, { $set: { a: [1] } }).catch(() => undefined);
      return c.findOne({ _id: 1 });
    },
    expected: { _id: 1, a: 1, b: 'x' },
  },
  { name: 'an upsert creating an array is refused (16766)', indexes: hashedA, run: (c) => c.updateOne({ _id: 9 }, { $set: { a: [1] } }, { upsert: true }), code: 16766 },
  {
    name: 'building the index over an array is refused (16766) and leaves no index',
    seed: [{ _id: 1, a: [1] }],
    run: (c) => c.createIndex({ a: 'hashed' }),
    code: 16766,
  },
  {
    name: 'a partial hashed index accepts an array the filter leaves out',
    indexes: [{ key: { a: 'hashed', b: 1 }, options: { partialFilterExpression: { b: { $gt: 5 } } } }],
    run: async (c) => [(await c.insertOne({ _id: 1, a: [1], b: 1 })).insertedId, await c.insertOne({ _id: 2, a: [1], b: 6 }).then(() => 'inserted', (e: { code?: number }) => e.code)],
    expected: [1, 16766],
  },
  // Reads.
  { name: 'equality finds the value only (3.1 shares 3\'s hash)', seed, indexes: hashedA, run: (c) => read(c, { a: 3 }), expected: ['IXSCAN', [3]] },
  { name: 'equality on 3.1', seed, indexes: hashedA, run: (c) => read(c, { a: 3.1 }), expected: ['IXSCAN', [4]] },
  { name: '$in', seed, indexes: hashedA, run: (c) => read(c, { a: { $in: [1, 3.1, 9] } }), expected: ['IXSCAN', [1, 4]] },
  { name: 'equality to a document', seed, indexes: hashedA, run: (c) => read(c, { a: { c: 1 } }), expected: ['IXSCAN', [7]] },
  { name: 'a range is answered by a scan, correctly (equality by the index)', seed, indexes: hashedA, run: async (c) => [...(await read(c, { a: { $gte: 2 } })), (await read(c, { a: 2 }))[0]], expected: ['COLLSCAN', [2, 3, 4], 'IXSCAN'] },
  { name: 'null finds the missing field and null through null\'s hash', seed, indexes: hashedA, run: (c) => read(c, { a: null }), expected: ['IXSCAN', [5, 6]] },
  { name: '$exists: false reads null\'s hash too', seed, indexes: hashedA, run: (c) => read(c, { a: { $exists: false } }), expected: ['IXSCAN', [5]] },
  { name: '$in with null', seed, indexes: hashedA, run: (c) => read(c, { a: { $in: [null, 2] } }), expected: ['IXSCAN', [2, 5, 6]] },
  {
    name: 'a sparse hashed index does not answer $exists: false (it lacks those documents)',
    seed,
    indexes: [{ key: { a: 'hashed' }, options: { sparse: true } }],
    run: (c) => read(c, { a: { $exists: false } }),
    expected: ['COLLSCAN', [5]],
  },
  {
    name: 'a sort on the hashed field sorts (equality by the index)',
    seed,
    indexes: hashedA,
    run: async (c) => [ids(await c.find({ a: { $type: 'number' } }).sort({ a: -1 }).toArray()), (await read(c, { a: 2 }))[0]],
    expected: [[4, 3, 2, 1], 'IXSCAN'],
  },
  { name: 'a hint scans the whole index', seed, indexes: hashedA, run: async (c) => sortedIds(await c.find({}).hint({ a: 'hashed' }).toArray()), expected: [1, 2, 3, 4, 5, 6, 7] },
  { name: 'a hint by name with a filter', seed, indexes: hashedA, run: async (c) => ids(await c.find({ b: 'x', a: 3 }).hint('a_hashed').toArray()), expected: [3] },
  {
    name: 'a hinted sparse hashed index holds the documents with the field',
    seed,
    indexes: [{ key: { a: 'hashed' }, options: { sparse: true } }],
    run: async (c) => sortedIds(await c.find({}).hint('a_hashed').toArray()),
    expected: [1, 2, 3, 4, 6, 7],
  },
  {
    name: 'a compound index with the hashed field first answers equality on both',
    seed,
    indexes: [{ key: { b: 'hashed', a: 1 } }],
    run: (c) => read(c, { b: 'x', a: { $gt: 1 } }),
    expected: ['IXSCAN', [3]],
  },
  {
    name: 'an update moves the document to its new hash',
    seed,
    indexes: hashedA,
    run: async (c) => {
      await c.updateOne({ _id: 1 }, { $set: { a: 'one' } });
      return [await read(c, { a: 1 }), await read(c, { a: 'one' })];
    },
    expected: [['IXSCAN', []], ['IXSCAN', [1]]],
  },
  // Keys: mongod's hash values (MongoDB's key generator golden tests: 5, {b: "string"}, null, "test").
  {
    name: 'returnKey gives mongod\'s hash of 5',
    seed: [{ _id: 1, a: 5 }],
    indexes: hashedA,
    run: async (c) => c.find({ a: 5 }, { returnKey: true }).hint({ a: 'hashed' }).toArray(),
    expected: [{ a: Long.fromString('4470791281878691347') }],
  },
  {
    name: 'returnKey of a document, a missing field and a string',
    seed: [{ _id: 1, a: { b: 'string' } }, { _id: 2 }, { _id: 3, a: 'test' }],
    indexes: hashedA,
    run: async (c) => (await c.find({}, { returnKey: true, sort: { _id: 1 } }).hint({ a: 'hashed' }).toArray()).map((k) => String(k.a)),
    expected: ['-8313607634880231286', '2338878944348059895', '-3120687751959783844'],
  },
  // Plans.
  {
    name: 'explain: equality reads the index at the value\'s hash, FETCH rechecks the filter',
    seed,
    indexes: hashedA,
    run: async (c) => {
      const plan = await winning(c, { a: 5 });
      return { stages: stages(plan), filter: plan.filter, access: access(plan) };
    },
    expected: {
      stages: ['FETCH', 'IXSCAN'],
      filter: { a: { $eq: 5 } },
      access: { stage: 'IXSCAN', keyPattern: { a: 'hashed' }, indexName: 'a_hashed', indexBounds: { a: ['[4470791281878691347, 4470791281878691347]'] } },
    },
  },
  {
    name: 'explain: $in reads each value\'s hash',
    seed,
    indexes: hashedA,
    run: async (c) => {
      const scan = access(await winning(c, { a: { $in: [5, 6] } }));
      return [scan.stage, scan.keyPattern, scan.indexBounds.a.length, scan.indexBounds.a.includes('[4470791281878691347, 4470791281878691347]')];
    },
    expected: ['IXSCAN', { a: 'hashed' }, 2, true],
  },
  {
    name: 'explain: a sort on the hashed field is a blocking SORT',
    seed,
    indexes: hashedA,
    run: async (c) => stages(await winning(c, { a: 5 }, { sort: { a: 1 } })),
    expected: ['SORT', 'FETCH', 'IXSCAN'],
  },
  {
    name: 'a compound index gives the order of the fields before its hashed one',
    seed: [{ _id: 1, a: 2, b: 'x' }, { _id: 2, a: 1, b: 'y' }, { _id: 3, a: 3, b: 'z' }],
    indexes: [{ key: { a: 1, b: 'hashed' } }],
    run: async (c) => [stages(await winning(c, {}, { sort: { a: -1 } })), ids(await c.find({}).sort({ a: -1 }).toArray()), stages(await winning(c, { a: 1 }, { sort: { b: 1 } }))[0]],
    expected: [['FETCH', 'IXSCAN'], [3, 1, 2], 'SORT'],
  },
  {
    name: 'explain: a hinted hashed index is scanned whole',
    seed,
    indexes: hashedA,
    run: async (c) => access((await c.find({ b: 'x' }).hint('a_hashed').explain('queryPlanner')).queryPlanner.winningPlan),
    expected: { stage: 'IXSCAN', keyPattern: { a: 'hashed' }, indexName: 'a_hashed', indexBounds: { a: ['[MinKey, MaxKey]'] } },
  },
];

describeCompat('hashed index', cases);

describe('hashed index on lmdb: survives a restart', () => {
  const { dbPath: tempDir, withClient } = restarts('engine-hashed');

  it('keeps the spec, answers through it and still refuses arrays', async () => {
    const dbPath = tempDir();
    await withClient(dbPath, async (client) => {
      const c: LooseCollection = client.db('app').collection('things');
      await c.createIndex({ a: 'hashed' });
      await c.insertMany(seed.map((d) => ({ ...d })));
    });
    const after = await withClient(dbPath, async (client) => {
      const c: LooseCollection = client.db('app').collection('things');
      const listed = (await c.listIndexes().toArray())[1];
      const found = ids(await c.find({ a: 3 }).toArray());
      const plan = access((await c.find({ a: 3 }).explain('queryPlanner')).queryPlanner.winningPlan as Document);
      const refused = await c.insertOne({ a: [1] }).then(() => 'inserted', (e: { code?: number }) => e.code);
      return { listed, found, index: plan.indexName, refused };
    });
    expect(after).toEqual({ listed: { v: 2, key: { a: 'hashed' }, name: 'a_hashed' }, found: [3], index: 'a_hashed', refused: 16766 });
  });
});
