import type { MongoClient } from 'mongodb';
import { medianLatencyUs } from './measure.js';

/** (c) The same equality query over `size` documents through an index and through a full scan. */
export async function indexedVsScan(client: MongoClient, size = 100_000) {
  const coll = client.db('bench').collection('catalog');
  const batch = 1000;
  for (let start = 0; start < size; start += batch) {
    await coll.insertMany(Array.from({ length: Math.min(batch, size - start) }, (_, k) => ({ indexed: start + k, plain: start + k, pad: 'x'.repeat(40) })));
  }
  await coll.createIndex({ indexed: 1 });
  const key = (i: number) => (i * 7919) % size;
  const indexedUs = await medianLatencyUs((i) => coll.find({ indexed: key(i) }).toArray(), { iterations: 500 });
  const scanUs = await medianLatencyUs((i) => coll.find({ plain: key(i) }).toArray(), { iterations: 20, warmup: 2, budgetMs: 20_000 });
  return { indexedUs, scanUs, ratio: scanUs / indexedUs };
}
