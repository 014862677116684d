import type { MongoClient } from 'mongodb';
import { pairedMedianLatencyUs } from './measure.js';

/** (a) The engine's share of a point read: the driver's findOne({_id}) against its bare ping. */
export async function pingVsFindOne(client: MongoClient, iterations = 3000) {
  const coll = client.db('bench').collection<{ _id: number; name: string }>('points');
  await coll.insertMany(Array.from({ length: 1000 }, (_, i) => ({ _id: i, name: `n${i}` })));
  const admin = client.db('admin');
  const [pingUs, findOneUs] = await pairedMedianLatencyUs(
    () => admin.command({ ping: 1 }),
    (i) => coll.findOne({ _id: i % 1000 }),
    { iterations },
  );
  return { pingUs, findOneUs, ratio: findOneUs / pingUs };
}
