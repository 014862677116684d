import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { startEngine, type StartEngineOptions } from '../src/engine/index.js';
import { apiKeyVsJwt } from './api-key-vs-jwt.bench.js';
import { sessionsVsJwt } from './sessions.bench.js';
import { indexedVsScan } from './indexed-find.bench.js';
import { journaledInserts } from './journaled-insert.bench.js';
import { pingVsFindOne } from './ping-vs-find.bench.js';
import { rawFindById, rawPing } from './raw-ping.bench.js';
import { startStandaloneEngine } from './standalone-engine.js';
import { usersSearch } from './users-search.bench.js';
import { webhooksBench } from './webhooks.bench.js';
import { readOptions } from './options.js';
import { printTable, perSecond, ratio, us, type Row } from './report.js';
import { serviceBench } from './service-bench.js';
import { hasUnexpected, printServiceTable, writeJson } from './service-report.js';

/**
 * `npm run bench`: the service-level bench (bench/service-bench.ts: the
 * service, a baseline and an engine as their own processes, autocannon load
 * in interleaved rounds, a memory run; see bench/README.md), then the
 * engine's own measurements: in-process (in memory and on lmdb in a temp dir,
 * as the service embeds it) and as a standalone process (as `npm run engine`
 * runs it), driven by the official driver. Prints numbers; enforces nothing,
 * except that a scenario which got answers it did not expect makes the exit
 * code 1 (its numbers measure errors).
 * `--only service,memory,growth,a,b,c,d` (or BENCH_ONLY) chooses the parts:
 * growth (opt-in: a tenant's data grown to 1,000,000 records a kind), a
 * (latency), b (journaled inserts), c (indexed vs unindexed find), d (a read
 * with an API key vs with a JWT, verifyApiKey vs that JWT read, a read with a session's token vs one of no
 * session and a refresh vs that read; sequential, in-process), e (users search
 * at 100k users, opt-in: its seeding takes a while). BENCH_CONFIGS=lmdb,memory
 * chooses the engine configurations and their order (default memory,lmdb,standalone).
 */
type EngineConfig = StartEngineOptions | { standalone: string };

async function withEngine<T>(config: EngineConfig, run: (client: MongoClient, port: number) => Promise<T>): Promise<T> {
  const engine = 'standalone' in config ? await startStandaloneEngine(config.standalone) : await startEngine(config);
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
  const options = readOptions();
  const parts = options.parts;
  if (parts.has('service') || parts.has('memory') || parts.has('growth')) {
    const rows = await serviceBench(options);
    printServiceTable(rows, `${options.rounds} round(s) of ${options.seconds} s per scenario at ${options.connections} connections, medians`);
    if (options.jsonFile) writeJson(options.jsonFile, rows);
    if (hasUnexpected(rows)) process.exitCode = 1;
    console.log('');
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'engine-bench-'));
  const all: Record<string, EngineConfig> = {
    memory: { inMemory: true },
    lmdb: { dbPath: path.join(dir, 'embedded') },
    standalone: { standalone: path.join(dir, 'standalone') },
  };
  // BENCH_CONFIGS=lmdb,memory: which configurations run, in that order.
  const names = (process.env.BENCH_CONFIGS ?? 'memory,lmdb,standalone').split(',').filter((n) => n in all);
  const configs = Object.fromEntries(names.map((n) => [n, all[n]]));
  const rows: Row[] = [
    { metric: 'raw OP_MSG ping, no driver (median)', values: {} },
    { metric: 'raw OP_MSG find by _id, no driver (median)', values: {} },
    { metric: 'driver ping (median)', values: {} },
    { metric: 'driver findOne({_id}) (median)', values: {} },
    { metric: 'findOne / ping', values: {}, target: '<= 1.3' },
    { metric: 'insertOne {j: true}, sequential', values: {} },
    { metric: 'find by indexed field, 100k docs (median)', values: {} },
    { metric: 'find by unindexed field, 100k docs (median)', values: {} },
    { metric: 'unindexed / indexed', values: {} },
    { metric: 'users search, 100k users, unmatched, indexed (median)', values: {} },
    { metric: 'users search, 100k users, matched, indexed (median)', values: {} },
    { metric: 'users search, 100k users, unmatched, old regex scan (median)', values: {} },
  ];
  const engineParts = ['a', 'b', 'c', 'e'].some((part) => parts.has(part));
  try {
    for (const [name, engineOptions] of engineParts ? Object.entries(configs) : []) {
      process.stderr.write(`bench: ${name}...\n`);
      await withEngine(engineOptions, async (client, port) => {
        if (parts.has('a')) {
          rows[0].values[name] = us(await rawPing(port));
          const a = await pingVsFindOne(client);
          rows[1].values[name] = us(await rawFindById(port));
          rows[2].values[name] = us(a.pingUs);
          rows[3].values[name] = us(a.findOneUs);
          rows[4].values[name] = ratio(a.ratio);
        }
        if (parts.has('b')) rows[5].values[name] = perSecond(await journaledInserts(client));
        if (parts.has('c')) {
          const c = await indexedVsScan(client);
          rows[6].values[name] = us(c.indexedUs);
          rows[7].values[name] = us(c.scanUs);
          rows[8].values[name] = ratio(c.ratio);
        }
        if (parts.has('e')) {
          const e = await usersSearch(client);
          rows[9].values[name] = us(e.indexedUnmatchedUs);
          rows[10].values[name] = us(e.indexedMatchedUs);
          rows[11].values[name] = us(e.scanUs);
        }
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (engineParts) {
    console.log('engine (its own measurements):');
    printTable(Object.keys(configs), rows);
  }
  if (parts.has('w')) {
    process.stderr.write('bench: webhooks...\n');
    const w = await webhooksBench();
    const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
    console.log('');
    printTable(['service (memory)'], [
      { metric: 'webhook deliveries per second (3 endpoints)', values: { 'service (memory)': w.deliveredPerSecond.toFixed(0) } },
      { metric: 'commit -> delivery delay p50 (ms)', values: { 'service (memory)': w.p50Ms.toFixed(0) } },
      { metric: 'commit -> delivery delay p99 (ms)', values: { 'service (memory)': `${w.p99Ms.toFixed(0)} ${met(w.p99Ms < 1000)}` }, target: '< 1000' },
      { metric: 'menu creates/s, no endpoint', values: { 'service (memory)': w.writesWithout.toFixed(0) } },
      { metric: 'menu creates/s, 3 endpoints', values: { 'service (memory)': w.writesWith.toFixed(0) } },
      { metric: 'writes with 3 endpoints / without (3 interleaved rounds)', values: { 'service (memory)': `${ratio(w.writeRatio)} ${met(w.writeRatio >= 0.9)}` }, target: '>= 0.9' },
      { metric: 'the same, over the round and its backlog\'s drain / without', values: { 'service (memory)': ratio(w.sustainedWriteRatio) } },
      { metric: 'writes with 3 endpoints answering after 2 s / without', values: { 'service (memory)': `${ratio(w.slowWriteRatio)} ${met(w.slowWriteRatio >= 0.9)}` }, target: '>= 0.9' },
      { metric: 'deliveries pending at a round\'s end (most)', values: { 'service (memory)': String(w.backlogAtEnd) } },
    ]);
  }
  if (parts.has('d')) {
    process.stderr.write('bench: service, API key vs JWT...\n');
    const d = await apiKeyVsJwt();
    console.log('');
    printTable(['service (memory)'], [
      { metric: 'GET menu by id with a JWT (median)', values: { 'service (memory)': us(d.jwtUs) } },
      { metric: 'GET menu by id with an API key (median)', values: { 'service (memory)': us(d.keyUs) } },
      { metric: 'JWT time / key time', values: { 'service (memory)': ratio(d.ratio) }, target: '>= 0.8' },
      { metric: 'GET menu by id with a JWT, beside verify (median)', values: { 'service (memory)': us(d.verify.jwtUs) } },
      { metric: 'POST api-keys/verify with a JWT (median)', values: { 'service (memory)': us(d.verify.verifyUs) } },
      { metric: 'JWT read time / verify time', values: { 'service (memory)': ratio(d.verify.ratio) }, target: '>= 0.9' },
    ]);
    process.stderr.write('bench: service, sessions vs JWT...\n');
    const s = await sessionsVsJwt();
    console.log('');
    printTable(['service (memory)'], [
      { metric: 'GET menu by id with a token of no session (median)', values: { 'service (memory)': us(s.read.plainUs) } },
      { metric: 'GET menu by id with a session token, sid (median)', values: { 'service (memory)': us(s.read.sessionUs) } },
      { metric: 'session read time / plain read time', values: { 'service (memory)': ratio(s.read.ratio) }, target: '<= 1.05' },
      { metric: 'GET menu by id with a JWT, beside refresh (median)', values: { 'service (memory)': us(s.refresh.plainUs) } },
      { metric: 'POST auth/refresh (median)', values: { 'service (memory)': us(s.refresh.refreshUs) } },
      { metric: 'JWT read time / refresh time', values: { 'service (memory)': ratio(s.refresh.ratio) } },
    ]);
  }
}

main().catch((err: unknown) => {
  console.error(`bench failed: ${(err as Error).stack ?? String(err)}`);
  process.exit(1);
});
