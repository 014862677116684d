import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { startEngine, type StartEngineOptions } from '../src/engine/index.js';
import { indexedVsScan } from './indexed-find.bench.js';
import { journaledInserts } from './journaled-insert.bench.js';
import { pingVsFindOne } from './ping-vs-find.bench.js';
import { rawPing } from './raw-ping.bench.js';
import { printTable, perSecond, ratio, us, type Row } from './report.js';

/**
 * `npm run bench`: the engine in-process (in memory and on lmdb in a temp
 * dir) driven by the official driver. Prints numbers; enforces nothing.
 */
async function withEngine<T>(options: StartEngineOptions, run: (client: MongoClient, port: number) => Promise<T>): Promise<T> {
  const engine = await startEngine(options);
  const client = new MongoClient(engine.uri, { maxPoolSize: 1 });
  try {
    await client.connect();
    return await run(client, engine.port);
  } finally {
    await client.close();
    await engine.close();
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'engine-bench-'));
  const configs: Record<string, StartEngineOptions> = { memory: { inMemory: true }, lmdb: { dbPath: dir } };
  const rows: Row[] = [
    { metric: 'raw OP_MSG ping, no driver (median)', values: {} },
    { metric: 'driver ping (median)', values: {} },
    { metric: 'driver findOne({_id}) (median)', values: {} },
    { metric: 'findOne / ping', values: {}, target: '<= 1.3' },
    { metric: 'insertOne {j: true}, sequential', values: {} },
    { metric: 'find by indexed field, 100k docs (median)', values: {} },
    { metric: 'find by unindexed field, 100k docs (median)', values: {} },
    { metric: 'unindexed / indexed', values: {} },
  ];
  try {
    for (const [name, options] of Object.entries(configs)) {
      process.stderr.write(`bench: ${name}...\n`);
      await withEngine(options, async (client, port) => {
        rows[0].values[name] = us(await rawPing(port));
        const a = await pingVsFindOne(client);
        rows[1].values[name] = us(a.pingUs);
        rows[2].values[name] = us(a.findOneUs);
        rows[3].values[name] = ratio(a.ratio);
        rows[4].values[name] = perSecond(await journaledInserts(client));
        const c = await indexedVsScan(client);
        rows[5].values[name] = us(c.indexedUs);
        rows[6].values[name] = us(c.scanUs);
        rows[7].values[name] = ratio(c.ratio);
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  printTable(Object.keys(configs), rows);
}

main().catch((err: unknown) => {
  console.error(`bench failed: ${(err as Error).stack ?? String(err)}`);
  process.exit(1);
});
