import type { MongoClient } from 'mongodb';
import { pairedLatencyStatsUs } from './measure.js';

/** (a) The engine's share of a point read: the driver's findOne({_id}) against its bare ping. */
export async function pingVsFindOne(client: MongoClient, iterations = 3000, dbName = 'bench') {
  const points = await pingVsFindOnePoints(client, dbName);
  const { ping, findOne } = await measurePingVsFindOne(client, points, iterations);
  return { pingUs: ping.p50, findOneUs: findOne.p50, ratio: findOne.p50 / ping.p50 };
}

/** Fills `<dbName>.points` with 1000 small documents keyed 0..999. */
export async function pingVsFindOnePoints(client: MongoClient, dbName: string) {
  const coll = client.db(dbName).collection<{ _id: number; name: string }>('points');
  await coll.insertMany(Array.from({ length: 1000 }, (_, i) => ({ _id: i, name: `n${i}` })));
  return coll;
}

/** ping and findOne({_id}) in alternation: medians and 99th percentiles, in microseconds. */
export async function measurePingVsFindOne(
  client: MongoClient,
  coll: Awaited<ReturnType<typeof pingVsFindOnePoints>>,
  iterations: number,
) {
  const admin = client.db('admin');
  const [ping, findOne] = await pairedLatencyStatsUs(
    () => admin.command({ ping: 1 }),
    (i) => coll.findOne({ _id: i % 1000 }),
    { iterations },
  );
  return { ping, findOne };
}
