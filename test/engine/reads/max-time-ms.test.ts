import { MongoClient, MongoServerError, type Collection } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, type RunningEngine } from '../../../src/engine/index.js';

/**
 * `maxTimeMS` on find and aggregate, as mongod answers it: a read past its
 * time fails with MaxTimeMSExpired (50); one within it, or without a limit,
 * answers as usual. 30,000 documents make a scan that matches nothing take
 * far longer than 1 ms, on any machine.
 */

let engine: RunningEngine;
let client: MongoClient;
let coll: Collection;
const DOCS = 30_000;

beforeAll(async () => {
  engine = await startEngine({ inMemory: true, port: 0 });
  client = await new MongoClient(engine.uri).connect();
  coll = client.db('max_time').collection('c');
  for (let start = 0; start < DOCS; start += 5000) {
    await coll.insertMany(Array.from({ length: 5000 }, (_, i) => ({ n: start + i, text: `document ${start + i}` })));
  }
  await coll.createIndex({ n: 1 });
});

afterAll(async () => {
  await client?.close();
  await engine?.close();
});

const expired = { code: 50, codeName: 'MaxTimeMSExpired' };

describe('maxTimeMS', () => {
  it.each([
    ['a find scanning the collection', () => coll.find({ text: 'nothing' }).maxTimeMS(1).toArray()],
    ['a find with a blocking sort', () => coll.find({ text: { $ne: 'nothing' } }).sort({ text: -1 }).maxTimeMS(1).toArray()],
    ['a find in an index order that matches nothing', () => coll.find({ text: 'nothing' }).sort({ n: 1 }).maxTimeMS(1).toArray()],
    ['an aggregate whose $match scans', () => coll.aggregate([{ $match: { text: 'nothing' } }], { maxTimeMS: 1 }).toArray()],
  ])('ends %s past its time with MaxTimeMSExpired (50)', async (_name, read) => {
    const err = await read().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MongoServerError);
    expect(err).toMatchObject(expired);
  });

  it('answers the same reads within a generous time, and without one', async () => {
    expect(await coll.find({ text: 'nothing' }).maxTimeMS(60_000).toArray()).toEqual([]);
    expect(await coll.find({ text: 'document 7' }).toArray()).toHaveLength(1);
    expect(await coll.aggregate([{ $match: { n: 7 } }], { maxTimeMS: 60_000 }).toArray()).toHaveLength(1);
  });

  it('counts reading time, not the time a cursor waits between batches', async () => {
    const cursor = coll.find({}).batchSize(10).maxTimeMS(200);
    expect(await cursor.next()).toMatchObject({ n: 0 });
    await new Promise((resolve) => setTimeout(resolve, 400));
    let seen = 1;
    while (seen < 50 && (await cursor.next())) seen++;
    expect(seen).toBe(50);
    await cursor.close();
  });
});
