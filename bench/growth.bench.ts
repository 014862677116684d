/// <reference path="../test/reliability/autocannon.d.ts" />
import type { AutocannonRequest } from 'autocannon';
import type { Db } from 'mongodb';
import { GROWTH_ADMIN_EMAIL, GROWTH_TENANT, GrowthSeeder, crewWord, menuName } from './growth-seed.js';
import { measureRound, preflight, type Load, type LoadResult, type MeasuredRound } from './load.js';
import type { BenchOptions } from './options.js';
import { residentMiB } from './processes.js';
import { PASSWORD, signIn } from './seed.js';
import { loadRow, type ScenarioReport } from './service-report.js';

/**
 * The growth part (`--only growth`, opt-in): is the cost of a read, a list
 * page, a users search and an audit-event page flat as a tenant's data grows?
 * Each is measured (warm-up, then interleaved rounds, as the service part)
 * with GROWTH_BASE records of each kind in the growth tenant, then again once
 * the tenant holds `--growth-records` (default 1,000,000) of each; target:
 * the large figure at least 0.9 of the small one. The service's and the
 * engine's resident memory before the growth, after its writes and after the
 * large runs are reported (no target).
 */
export const GROWTH_BASE = 1000;
const GROWTH_TARGET = 0.9;

export interface GrowthSetup {
  /** The service's database, through the driver. */
  db: Db;
  serviceUrl: string;
  pids: { server: number; engine?: number };
  options: BenchOptions;
  log: (text: string) => void;
}

interface GrowthScenario {
  name: string;
  load: Load;
  /** Checked on one answer before the scenario runs: the service answers the written records correctly. */
  check: (body: string) => boolean;
}

interface Page {
  items?: Array<Record<string, unknown>>;
}

const count = (n: number) => n.toLocaleString('en-US');

export async function growthBench({ db, serviceUrl, pids, options, log }: GrowthSetup): Promise<ScenarioReport[]> {
  const total = Math.max(options.growthRecords, GROWTH_BASE);
  const seeder = await GrowthSeeder.create(db, total, PASSWORD);
  log(`growth: writing ${count(GROWTH_BASE)} menus, users and audit events in tenant ${GROWTH_TENANT}...`);
  await seeder.growTo(GROWTH_BASE, log);
  const firstPositions = Array.from({ length: GROWTH_BASE }, (_, n) => n);
  const small = await measurePhase(
    growthScenarios(serviceUrl, await signIn(serviceUrl, GROWTH_ADMIN_EMAIL), seeder.ids.menuIds, firstPositions, count(GROWTH_BASE)),
    pids,
    options,
    log,
  );
  const before = rssOf(pids);
  log(`growth: writing up to ${count(total)} of each kind (batches of 2,000 through the driver)...`);
  const seedSeconds = await seeder.growTo(total, log);
  log(`growth: the writes took ${seedSeconds.toFixed(0)} s`);
  const seeded = rssOf(pids);
  // A new sign-in: the first token may have expired during the writes.
  const token = await signIn(serviceUrl, GROWTH_ADMIN_EMAIL);
  const large = await measurePhase(growthScenarios(serviceUrl, token, seeder.ids.sampledMenuIds, seeder.ids.sampled, count(total)), pids, options, log);
  const after = rssOf(pids);

  for (const [i, row] of large.entries()) {
    row.ratio = row.reqPerSec / small[i].reqPerSec;
    row.ratioOf = small[i].name;
    row.target = GROWTH_TARGET;
    row.met = row.ratio >= GROWTH_TARGET;
  }
  return [
    ...small,
    ...large,
    rssRow(`growth: service RSS after the ${count(total)}-record runs vs before`, before.service, seeded.service, after.service, seedSeconds),
    rssRow(`growth: engine RSS after the ${count(total)}-record runs vs before`, before.engine, seeded.engine, after.engine, seedSeconds),
  ];
}

function growthScenarios(url: string, accessToken: string, menuIds: string[], positions: number[], size: string): GrowthScenario[] {
  const headers = { authorization: `Bearer ${accessToken}` };
  const load = (request: AutocannonRequest, verifyBody: (body: string) => boolean): Load => ({ url, requests: [request], connections: 0, expectedStatus: 200, verifyBody });
  const cycling = (paths: string[]): AutocannonRequest => {
    let n = 0;
    return { method: 'GET', headers, setupRequest: (request) => ({ ...request, path: paths[n++ % paths.length] }) };
  };
  const crews = [...new Set(positions.map(crewWord))];
  const page = (body: string) => (JSON.parse(body) as Page).items ?? [];
  const isGrowthPage = (body: string) => page(body).length === 20 && page(body).every((item) => item.tenant_id === GROWTH_TENANT);
  return [
    {
      name: `growth: REST GET meal-menus/{id}, ${size} menus`,
      load: load(cycling(menuIds.map((id) => `/api/v1/restaurant/meal-menus/${id}`)), (body) => body.includes('"Growth menu ')),
      check: (body) => {
        const menu = JSON.parse(body) as Record<string, unknown>;
        return menu.id === menuIds[0] && menu.name === menuName(positions[0]) && menu.tenant_id === GROWTH_TENANT;
      },
    },
    {
      name: `growth: REST list of meal-menus, a page of 20, ${size} menus`,
      load: load(cycling(['/api/v1/restaurant/meal-menus?limit=20']), (body) => body.includes('"Growth menu ')),
      check: isGrowthPage,
    },
    {
      name: `growth: REST users search, a page of 20, ${size} users`,
      load: load(cycling(crews.map((crew) => `/api/v1/access-control/users?search=${crew}&limit=20`)), (body) => body.includes('"Growth"')),
      check: (body) => page(body).length === 20 && page(body).every((user) => user.firstName === crews[0]),
    },
    {
      name: `growth: REST audit-events, a page of 20, ${size} events`,
      load: load(cycling(['/api/v1/audit-events?limit=20']), (body) => body.includes('"actor"')),
      check: isGrowthPage,
    },
  ];
}

/** One answer of each checked, a warm-up, then the scenarios in interleaved rounds; one row each. */
async function measurePhase(all: GrowthScenario[], pids: GrowthSetup['pids'], options: BenchOptions, log: GrowthSetup['log']): Promise<ScenarioReport[]> {
  for (const scenario of all) {
    scenario.load.connections = options.connections;
    await preflight(scenario.name, scenario.load, scenario.check);
  }
  const unexpected = new Map<string, Record<string, number>>();
  const note = (name: string, result: LoadResult) => {
    const sum = unexpected.get(name) ?? {};
    for (const [what, n] of Object.entries(result.unexpected)) sum[what] = (sum[what] ?? 0) + n;
    unexpected.set(name, sum);
  };
  if (options.warmupSeconds > 0) {
    for (const scenario of all) note(scenario.name, (await measureRound([scenario.load], options.warmupSeconds, pids)).results[0]);
  }
  const measured = new Map<string, MeasuredRound[]>();
  for (let r = 1; r <= options.rounds; r++) {
    log(`growth: round ${r} of ${options.rounds} (${all[0].name.split(', ').at(-1)})...`);
    for (const scenario of all) {
      const round = await measureRound([scenario.load], options.seconds, pids);
      note(scenario.name, round.results[0]);
      measured.set(scenario.name, [...(measured.get(scenario.name) ?? []), round]);
    }
  }
  return all.map((scenario) => {
    const rounds = measured.get(scenario.name) ?? [];
    const row = loadRow(scenario.name, rounds.map((round) => round.results[0]), rounds, unexpected.get(scenario.name) ?? {}, options.connections);
    row.ratioOf = 'reported';
    return row;
  });
}

function rssOf(pids: GrowthSetup['pids']): { service?: number; engine?: number } {
  return { service: residentMiB(pids.server), engine: pids.engine === undefined ? undefined : residentMiB(pids.engine) };
}

/** Resident memory before the growth against after its large runs (and after its writes); reported, no target. */
function rssRow(name: string, beforeMiB: number | undefined, seededMiB: number | undefined, afterMiB: number | undefined, seedSeconds: number): ScenarioReport {
  const round1 = (n: number | undefined) => (n === undefined ? undefined : Math.round(n * 10) / 10);
  return {
    name,
    kind: 'rss',
    connections: 0,
    reqPerSec: Number.NaN,
    p50Ms: Number.NaN,
    p99Ms: Number.NaN,
    ratio: beforeMiB !== undefined && afterMiB !== undefined ? beforeMiB / afterMiB : Number.NaN,
    ratioOf: 'RSS before / after',
    rss: { beforeMiB: round1(beforeMiB), afterWritesMiB: round1(seededMiB), afterMiB: round1(afterMiB), writeSeconds: Math.round(seedSeconds) },
    unexpected: {},
  };
}
