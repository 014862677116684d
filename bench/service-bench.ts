import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { MongoClient } from 'mongodb';
import { startDefaultModeService } from './default-mode.js';
import { GROWTH_CLIENT_OPTIONS } from './growth-seed.js';
import { growthBench } from './growth.bench.js';
import { measureRound, preflight, runLoad, type Load, type LoadResult, type MeasuredRound } from './load.js';
import { median } from './measure.js';
import { withDatabase, type BenchOptions } from './options.js';
import { measurePingVsFindOne, pingVsFindOnePoints } from './ping-vs-find.bench.js';
import { BASELINE_ENTRY, freePort, residentMiB, SERVICE_ENTRY, startServer, type ServerProcess } from './processes.js';
import { refreshTokenPool } from './refresh-tokens.js';
import { mixedLoad, scenarios, BASELINE, type Scenario, type ScenarioContext } from './scenarios.js';
import { ADMIN_EMAIL, PASSWORD, seed, signIn } from './seed.js';
import { loadRow, type ScenarioReport } from './service-report.js';
import { startStandaloneEngine } from './standalone-engine.js';

/** Resident memory flat within 10%: start/end >= 1/1.1. */
const MEMORY_TARGET = 1 / 1.1;
/** The engine's findOne at most 1.3x its ping: ping/findOne >= 1/1.3. */
const ENGINE_TARGET = 1 / 1.3;

const started = performance.now();
const log = (text: string) => process.stderr.write(`bench [${((performance.now() - started) / 1000).toFixed(1)} s]: ${text}\n`);

/**
 * The service-level bench: an engine process (unless MONGODB_URI), seeded
 * data, the service and the baseline as their own processes (and, for the
 * service part, a service in default mode with its engine inside), then each
 * scenario in interleaved rounds (autocannon in this process), the memory
 * scenario, and the growth part when asked for. Returns the rows of the report.
 */
export async function serviceBench(options: BenchOptions): Promise<ScenarioReport[]> {
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'service-bench-'));
  const external = process.env.MONGODB_URI;
  const dbName = external ? `bench_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}` : 'bench_service';
  const servers: ServerProcess[] = [];
  let engine: Awaited<ReturnType<typeof startStandaloneEngine>> | undefined;
  let client: MongoClient | undefined;
  let growthClient: MongoClient | undefined;
  try {
    if (!external) {
      log('starting the engine (its own process, as `npm run engine`)...');
      engine = await startStandaloneEngine(path.join(workDir, 'engine'));
    }
    const uri = withDatabase(external ?? engine!.uri, dbName);
    log(`seeding ${options.users} users, ${options.keys} API keys, ${options.menus} menus...`);
    const seeded = await seed(uri, dbName, options);

    const jwtSecret = randomBytes(32).toString('hex');
    const [servicePort, infoServicePort, referenceServicePort, baselinePort] = [await freePort(), await freePort(), await freePort(), await freePort()];
    log('starting the service (at LOG_LEVEL warn, a second at info, a third at warn for their comparison) and the baseline...');
    const commonEnv = {
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      JWT_SECRET: jwtSecret,
      // The Argon2 scenario keeps every connection waiting on a hash: room for all of them, so it
      // measures hashing, not the 503s past the queue (PASSWORD_HASH_QUEUE, default 32).
      PASSWORD_HASH_QUEUE: String(options.connections),
    };
    const serviceEnv = (port: number, logLevel: string, dataDir: string) => ({
      ...commonEnv,
      PORT: String(port),
      MONGODB_URI: uri,
      LOG_LEVEL: logLevel,
      DATA_DIR: path.join(workDir, dataDir),
    });
    const service = await startServer('service', SERVICE_ENTRY, serviceEnv(servicePort, 'warn', 'service-data'), servicePort, '/readyz');
    servers.push(service);
    const infoService = await startServer('service at info', SERVICE_ENTRY, serviceEnv(infoServicePort, 'info', 'info-service-data'), infoServicePort, '/readyz', {
      discardStdout: true,
    });
    servers.push(infoService);
    const referenceService = await startServer('reference service', SERVICE_ENTRY, serviceEnv(referenceServicePort, 'warn', 'reference-service-data'), referenceServicePort, '/readyz');
    servers.push(referenceService);
    const serviceStartMiB = residentMiB(service.pid);
    const baseline = await startServer('baseline', BASELINE_ENTRY, { MONGODB_URI: uri, PORT: String(baselinePort), JWT_SECRET: jwtSecret }, baselinePort, '/healthz');
    servers.push(baseline);

    // Without MONGODB_URI, as `npm start`: the same seeding, in its own data directory.
    let defaultMode: ScenarioContext['defaultMode'];
    let defaultService: ServerProcess | undefined;
    if (options.parts.has('service')) {
      log('seeding a data directory the same way and starting the service in default mode (its engine inside)...');
      const defaultStart = await startDefaultModeService(path.join(workDir, 'default-mode-data'), options, { ...commonEnv, LOG_LEVEL: 'warn' });
      defaultService = defaultStart.server;
      servers.push(defaultService);
      defaultMode = { url: defaultService.baseUrl, accessToken: await signIn(defaultService.baseUrl), seeded: defaultStart.seeded };
    }

    const accessToken = await signIn(service.baseUrl);
    const members = Array.from({ length: Math.max(0, options.users - 1) }, (_, i) => `bench-user-${i + 1}@example.com`);
    const context: ScenarioContext = {
      serviceUrl: service.baseUrl,
      infoServiceUrl: infoService.baseUrl,
      referenceServiceUrl: referenceService.baseUrl,
      baselineUrl: baseline.baseUrl,
      accessToken,
      seeded,
      connections: options.connections,
      runTag: randomBytes(4).toString('hex'),
      // Twice the connections: each connection holds one token in flight, and a round's end drops those.
      refreshTokens: refreshTokenPool(service.baseUrl, members.length > 0 ? members : [ADMIN_EMAIL], PASSWORD, 2 * options.connections),
      defaultMode,
    };
    const pids = { baseline: baseline.pid, service: service.pid, 'service-info': infoService.pid, 'service-reference': referenceService.pid, 'service-default': defaultService?.pid ?? -1 };
    // In default mode the engine's CPU is the service process's own: no engine figure.
    const pidOf = (scenario: Scenario) => ({ server: pids[scenario.server], engine: scenario.server === 'service-default' ? undefined : engine?.pid });
    const rows: ScenarioReport[] = [];
    const unexpected = new Map<string, Record<string, number>>();
    const note = (name: string, result: LoadResult) => {
      const sum = unexpected.get(name) ?? {};
      for (const [what, count] of Object.entries(result.unexpected)) sum[what] = (sum[what] ?? 0) + count;
      unexpected.set(name, sum);
    };

    if (options.parts.has('service')) {
      const all = scenarios(context);
      for (const scenario of all) {
        await preflight(scenario.name, scenario.load);
        if (scenario.beside) await preflight(scenario.beside.name, scenario.beside.load);
      }
      client = new MongoClient(external ?? engine!.uri, { maxPoolSize: 1 });
      await client.connect();
      const points = await pingVsFindOnePoints(client, `${dbName}_points`);

      if (options.warmupSeconds > 0) {
        log(`warming up (${options.warmupSeconds} s per scenario)...`);
        await measurePingVsFindOne(client, points, Math.ceil(options.engineIterations / 4));
        for (const scenario of all) {
          const round = await measureRound(loadsOf(scenario), options.warmupSeconds, pidOf(scenario));
          noteRound(scenario, round, note);
        }
      }
      const measured = new Map<string, MeasuredRound[]>();
      const engineRounds: Awaited<ReturnType<typeof measurePingVsFindOne>>[] = [];
      for (let r = 1; r <= options.rounds; r++) {
        log(`round ${r} of ${options.rounds} (${options.seconds} s per scenario, ${options.connections} connections)...`);
        engineRounds.push(await measurePingVsFindOne(client, points, options.engineIterations));
        for (const scenario of all) {
          const round = await measureRound(loadsOf(scenario), options.seconds, pidOf(scenario));
          noteRound(scenario, round, note);
          measured.set(scenario.name, [...(measured.get(scenario.name) ?? []), round]);
        }
      }
      rows.push(...loadRows(all, measured, unexpected));
      rows.push(engineRow(engineRounds));
    }

    if (options.parts.has('memory')) {
      const mixed = mixedLoad(context);
      if (options.memoryWarmupSeconds > 0) {
        log(`warming up the memory scenario (${options.memoryWarmupSeconds} s of its load: the heap grows to its working size)...`);
        note('memory', await runLoad(mixed, options.memoryWarmupSeconds));
      }
      log(`memory: ${options.memorySeconds} s of mixed reads and writes, resident memory sampled each second...`);
      rows.push(await memoryRow(service.pid, mixed, options.memorySeconds, serviceStartMiB, note));
      for (const row of rows) if (row.kind === 'memory') row.unexpected = unexpected.get('memory') ?? {};
    }

    if (options.parts.has('growth')) {
      growthClient = await new MongoClient(external ?? engine!.uri, GROWTH_CLIENT_OPTIONS).connect();
      rows.push(...(await growthBench({ db: growthClient.db(dbName), serviceUrl: service.baseUrl, pids: { server: service.pid, engine: engine?.pid }, options, log })));
    }
    log('stopping the processes...');
    return rows;
  } finally {
    await client?.close();
    await growthClient?.close();
    for (const server of servers.reverse()) await server.stop();
    if (external) await dropDatabases(external, [dbName, `${dbName}_points`]);
    await engine?.close();
    rmSync(workDir, { recursive: true, force: true });
  }
}

function loadsOf(scenario: Scenario): Load[] {
  return scenario.beside ? [scenario.load, scenario.beside.load] : [scenario.load];
}

function noteRound(scenario: Scenario, round: MeasuredRound, note: (name: string, result: LoadResult) => void): void {
  note(scenario.name, round.results[0]);
  if (scenario.beside) note(scenario.beside.name, round.results[1]);
}

function loadRows(all: Scenario[], measured: Map<string, MeasuredRound[]>, unexpected: Map<string, Record<string, number>>): ScenarioReport[] {
  const rows: ScenarioReport[] = [];
  for (const scenario of all) {
    const rounds = measured.get(scenario.name) ?? [];
    rows.push(loadRow(scenario.name, rounds.map((round) => round.results[0]), rounds, unexpected.get(scenario.name) ?? {}, scenario.load.connections));
    if (scenario.beside) {
      const beside = loadRow(scenario.beside.name, rounds.map((round) => round.results[1]), undefined, unexpected.get(scenario.beside.name) ?? {}, scenario.beside.load.connections);
      rows.push(beside);
    }
  }
  const reqPerSec = (name: string) => rows.find((row) => row.name === name)?.reqPerSec ?? Number.NaN;
  const baseline = reqPerSec(BASELINE);
  for (const row of rows) {
    row.vsBaseline = row.reqPerSec / baseline;
    const target = all.find((scenario) => scenario.name === row.name)?.target;
    row.ratio = target && target.of !== 'baseline' ? row.reqPerSec / reqPerSec(target.of) : row.vsBaseline;
    row.ratioOf = target?.of ?? 'baseline';
    if (target?.min !== undefined) {
      row.target = target.min;
      row.met = row.ratio >= target.min;
    }
  }
  return rows;
}

/** The engine row: sequential driver calls on one connection, medians over rounds; ratio ping/findOne. */
function engineRow(rounds: Awaited<ReturnType<typeof measurePingVsFindOne>>[]): ScenarioReport {
  const findOneUs = median(rounds.map((round) => round.findOne.p50));
  const pingUs = median(rounds.map((round) => round.ping.p50));
  const ratio = pingUs / findOneUs;
  return {
    name: 'engine findOne({_id}) vs ping (driver, 1 connection)',
    kind: 'engine',
    connections: 1,
    reqPerSec: 1e6 / findOneUs,
    p50Ms: findOneUs / 1000,
    p99Ms: median(rounds.map((round) => round.findOne.p99)) / 1000,
    pingP50Ms: pingUs / 1000,
    ratio,
    ratioOf: 'ping time / findOne time',
    target: ENGINE_TARGET,
    met: ratio >= ENGINE_TARGET,
    unexpected: {},
  };
}

/**
 * The service's resident memory across `seconds` of the mixed load: the
 * median of the first fifth of the samples against that of the last fifth.
 */
async function memoryRow(pid: number, load: Load, seconds: number, serviceStartMiB: number | undefined, note: (name: string, result: LoadResult) => void): Promise<ScenarioReport> {
  const samples: number[] = [];
  const sample = () => {
    const rss = residentMiB(pid);
    if (rss !== undefined) samples.push(rss);
  };
  sample();
  const timer = setInterval(sample, 1000);
  let result: LoadResult;
  try {
    result = await runLoad(load, seconds);
  } finally {
    clearInterval(timer);
  }
  sample();
  note('memory', result);
  const fifth = Math.max(1, Math.floor(samples.length / 5));
  const startMiB = median(samples.slice(0, fifth));
  const endMiB = median(samples.slice(-fifth));
  const ratio = startMiB / endMiB;
  return {
    name: `memory: service RSS over ${seconds} s of mixed load`,
    kind: 'memory',
    connections: load.connections,
    reqPerSec: result.reqPerSec,
    p50Ms: result.p50Ms,
    p99Ms: result.p99Ms,
    ratio,
    ratioOf: 'RSS first fifth / last fifth',
    target: MEMORY_TARGET,
    met: ratio >= MEMORY_TARGET,
    memory: {
      serviceStartMiB: serviceStartMiB === undefined ? undefined : round1(serviceStartMiB),
      startMiB: round1(startMiB),
      endMiB: round1(endMiB),
      maxMiB: round1(Math.max(...samples)),
      samples: samples.length,
    },
    unexpected: {},
  };
}

const round1 = (n: number) => Math.round(n * 10) / 10;

async function dropDatabases(uri: string, names: string[]): Promise<void> {
  const client = new MongoClient(uri);
  try {
    await client.connect();
    for (const name of names) await client.db(name).dropDatabase();
  } catch (err) {
    log(`could not drop the bench databases ${names.join(', ')}: ${(err as Error).message}`);
  } finally {
    await client.close();
  }
}
