import { MongoClient, type Collection } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, type RunningEngine } from '../../../src/engine/index.js';

/**
 * A find reads in time slices (reads/time-slice.ts): past one it answers the
 * batch it has, maybe empty, with its open cursor, and the driver's getMore
 * goes on from there. The engine here runs in the test's process, as in the
 * service's default mode: a long scan must leave the event loop free between
 * its slices. Same results as one unsliced read (singleBatch).
 */

let engine: RunningEngine;
let client: MongoClient;
let coll: Collection;
const DOCS = 100_000;

beforeAll(async () => {
  engine = await startEngine({ inMemory: true, port: 0 });
  client = await new MongoClient(engine.uri).connect();
  coll = client.db('time_slice').collection('c');
  for (let start = 0; start < DOCS; start += 10_000) {
    await coll.insertMany(Array.from({ length: 10_000 }, (_, i) => ({ n: start + i, text: `document ${start + i}` })));
  }
}, 120_000);

afterAll(async () => {
  await client?.close();
  await engine?.close();
});

/** The longest the event loop went without a turn while `work` ran, and how long `work` took. */
async function longestStall(work: () => Promise<unknown>): Promise<{ stall: number; total: number }> {
  let stall = 0;
  let last = performance.now();
  let running = true;
  const tick = () => {
    const now = performance.now();
    stall = Math.max(stall, now - last);
    last = now;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  const started = performance.now();
  await work();
  const total = performance.now() - started;
  running = false;
  return { stall, total };
}

describe('time-sliced find', () => {
  it('leaves the event loop free between slices of a scan that matches nothing', async () => {
    // Baseline: the same scan in one piece (a single batch is never sliced).
    const whole = await longestStall(() => coll.find({ text: 'nothing' }, { singleBatch: true }).toArray());
    const sliced = await longestStall(() => coll.find({ text: 'nothing' }).toArray());
    // Unsliced, the loop stalls for the whole scan (ratio about 1); sliced, for one slice (measured: ~0.1).
    expect(whole.stall / whole.total).toBeGreaterThan(0.5);
    expect(sliced.stall / whole.stall).toBeLessThan(0.4);
  });

  it('answers a first batch short of its size, with its cursor, when the slice ends first', async () => {
    const reply = await client.db('time_slice').command({ find: 'c', filter: { text: `document ${DOCS - 1}` } });
    expect(reply.cursor.firstBatch).toEqual([]);
    expect(reply.cursor.id.isZero()).toBe(false);
    await client.db('time_slice').command({ killCursors: 'c', cursors: [reply.cursor.id] });
  });

  it.each([
    ['sparse matches', { text: { $regex: '7$' } }, undefined, undefined],
    ['a projection', { text: { $regex: '99$' } }, { n: 1, _id: 0 }, undefined],
    ['a limit', { text: { $regex: '5$' } }, undefined, 700],
  ])('returns what one unsliced read returns, with %s', async (_name, filter, projection, limit) => {
    const options = { projection, ...(limit ? { limit } : {}) };
    const whole = await coll.find(filter, { ...options, singleBatch: true, batchSize: DOCS }).toArray();
    const sliced = await coll.find(filter, { ...options, batchSize: 50 }).toArray();
    expect(sliced).toEqual(whole);
    expect(sliced.length).toBeGreaterThan(0);
  });

  it('keeps counting maxTimeMS across slices', async () => {
    const err = await coll.find({ text: 'nothing' }).maxTimeMS(15).toArray().catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 50 });
  });
});
