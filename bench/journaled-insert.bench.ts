import type { MongoClient } from 'mongodb';
import { opsPerSecond } from './measure.js';

/** (b) Sequential insertOne acknowledged with {j: true}: each waits for its commit to reach disk. */
export async function journaledInserts(client: MongoClient, count = 3000) {
  const coll = client.db('bench').collection('journaled');
  return opsPerSecond((i) => coll.insertOne({ i, at: new Date() }, { writeConcern: { w: 1, j: true } }), { count, budgetMs: 8000 });
}
