import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, type RunningEngine } from '../../../src/engine/index.js';

/**
 * findAndModify is atomic: parallel increments over several connections
 * never lose an update and never return the same value twice.
 */
let engine: RunningEngine;
const clients: MongoClient[] = [];

beforeAll(async () => {
  engine = await startEngine({ inMemory: true, port: 0 });
  for (let i = 0; i < 4; i++) clients.push(await new MongoClient(engine.uri, { maxPoolSize: 10 }).connect());
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await engine?.close();
});

describe('parallel findOneAndUpdate $inc', () => {
  const total = 200;

  it('applies every increment exactly once and returns distinct values', async () => {
    const coll = (i: number) => clients[i % clients.length]!.db('concurrency').collection<{ _id: string; n: number }>('counters');
    await coll(0).insertOne({ _id: 'c', n: 0 });

    const results = await Promise.all(
      Array.from({ length: total }, (_, i) =>
        coll(i).findOneAndUpdate({ _id: 'c' }, { $inc: { n: 1 } }, { returnDocument: 'after' }),
      ),
    );

    const values = results.map((doc) => doc!.n);
    expect(new Set(values).size).toBe(total);
    expect((await coll(0).findOne({ _id: 'c' }))!.n).toBe(total);
  });
});
