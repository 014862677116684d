import { Collection, MongoClient } from 'mongodb';
import mongoose from 'mongoose';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { GroupWrite, WriteRefused } from '../../src/shared/group-write.js';
import { serviceModelsOnEngine } from '../support/models-on-engine.js';

/**
 * GroupWrite on the real driver and engine: one bulk write for what queues
 * while none is in flight, and each caller told about its own operation only.
 */

serviceModelsOnEngine('group_write_test');

type Scratch = { _id: number; n: number };
const scratch = () => mongoose.connection.db!.collection<Scratch>('group_write_scratch');
const stored = () => scratch().find({}).sort({ _id: 1 }).toArray();
const doc = (i: number): Scratch => ({ _id: i, n: i });

beforeEach(async () => {
  vi.restoreAllMocks();
  await scratch().deleteMany({});
  await scratch().dropIndexes().catch(() => undefined); // the unique index of one case
});

/** Counts the bulk writes given to the driver (the spy passes every call through). */
const bulkWrites = () => vi.spyOn(Collection.prototype, 'bulkWrite');
const inserted = (i: number) => ({ insertOne: { document: doc(i) } });

describe('GroupWrite', () => {
  it('one insert command for what is queued in one turn; each promise settles when its document is stored', async () => {
    const inserts = new GroupWrite(scratch);
    const commands = bulkWrites();
    await Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        await inserts.insert(doc(i));
        expect(await scratch().findOne({ _id: i })).toEqual(doc(i));
      }),
    );
    expect(commands).toHaveBeenCalledTimes(1);
  });

  it('what queues while an insert is in flight goes in one next command, sent once the first is answered', async () => {
    const inserts = new GroupWrite(scratch);
    const commands = bulkWrites();
    const first = inserts.insert(doc(1));
    await new Promise((resolve) => setImmediate(resolve)); // the first command is in flight
    expect(commands).toHaveBeenCalledTimes(1);
    const later = [2, 3, 4].map((i) => inserts.insert(doc(i)));
    await new Promise((resolve) => setImmediate(resolve));
    expect(commands).toHaveBeenCalledTimes(1); // not while the first is in flight
    await Promise.all([first, ...later]);
    expect(commands).toHaveBeenCalledTimes(2);
    expect(commands.mock.calls[1]![0]).toEqual([2, 3, 4].map(inserted));
    expect(await stored()).toEqual([1, 2, 3, 4].map(doc));
  });

  it('a document the database refuses fails only its own caller (its write error), the others are stored', async () => {
    await scratch().insertOne({ _id: 3, n: -1 });
    const inserts = new GroupWrite(scratch);
    const settled = await Promise.allSettled([1, 2, 3, 4, 5].map((i) => inserts.insert(doc(i))));
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    const refusal = (settled[2] as PromiseRejectedResult).reason;
    expect(refusal).toBeInstanceOf(WriteRefused);
    expect(refusal).toMatchObject({ code: 11000, message: expect.stringMatching(/duplicate key/) });
    expect(await stored()).toEqual([doc(1), doc(2), { _id: 3, n: -1 }, doc(4), doc(5)]);
  });

  it('updates and inserts queued in one turn go in one bulk write; an update that matches nothing resolves, a refused one fails only its caller', async () => {
    await scratch().insertMany([doc(1), doc(2), { _id: 3, n: 7 }]);
    await scratch().createIndex({ n: 1 }, { unique: true });
    const writes = new GroupWrite(scratch);
    const commands = bulkWrites();
    const settled = await Promise.allSettled([
      writes.write({ updateOne: { filter: { _id: 1 }, update: { $set: { n: 10 } } } }),
      writes.write({ updateOne: { filter: { _id: 99 }, update: { $set: { n: 11 } } } }),
      // n: 7 is taken by _id 3: a duplicate key of the unique index.
      writes.write({ updateOne: { filter: { _id: 2 }, update: [{ $set: { n: { $add: ['$n', 5] } } }] } }),
      writes.insert(doc(4)),
    ]);
    expect(commands).toHaveBeenCalledTimes(1);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((settled[2] as PromiseRejectedResult).reason).toMatchObject({ name: 'WriteRefused', code: 11000 });
    expect(await stored()).toEqual([{ _id: 1, n: 10 }, doc(2), { _id: 3, n: 7 }, doc(4)]);
  });

  it('a failure of the whole command fails every caller of that batch, and the next batch is written', async () => {
    // A client that is closed: the command fails as a whole, as with a lost connection.
    const closed = new MongoClient(`mongodb://${String(mongoose.connection.getClient().options.hosts[0])}`);
    await closed.connect();
    await closed.close();
    let target = closed.db(mongoose.connection.db!.databaseName).collection<Scratch>('group_write_scratch');
    const inserts = new GroupWrite(() => target);
    const first = await Promise.allSettled([inserts.insert(doc(1)), inserts.insert(doc(2))]);
    expect(first.map((s) => s.status)).toEqual(['rejected', 'rejected']);
    expect((first[0] as PromiseRejectedResult).reason).toBe((first[1] as PromiseRejectedResult).reason);
    target = scratch();
    await inserts.insert(doc(3));
    expect(await stored()).toEqual([doc(3)]);
  });
});
