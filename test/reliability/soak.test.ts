import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon, { type AutocannonRequest, type AutocannonResult } from 'autocannon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RATE_WINDOW_SECONDS } from '../../src/auth/api-key-check.js';
import { exited } from '../support/child-process.js';
import { buildService, sharedDatabaseEnv, startService, stopService, type ServiceProcess } from '../support/service-process.js';
import { buildEngineCli, startEngineProcess, type EngineProcess } from '../engine/durability/engine-process.js';
import { knob, LONG, residentKiB, tryCall } from './reliability.js';

/**
 * A soak on loopback: three callers at once for RELIABILITY_SOAK_SECONDS
 * (short 10, long 300), each on its own connections, mixing reads and writes
 * (create a menu, change its portions, read it, list a page):
 * - a user with an access token (JWT),
 * - an API key whose hourly limit is far above the run,
 * - an API key with a small limit, which must get exactly that many 2xx, then 429s.
 * Nothing else may come back: no 5xx, no connection errors, no timeouts.
 * p99 latency is printed (never asserted: times say more about the machine
 * than the service). The service's resident memory is sampled each second
 * and must be flat after warm-up.
 *
 * The service runs on a standalone engine process (MONGODB_URI): the embedded
 * engine keeps its data in memory, so in one process memory would grow with
 * the menus written, and a leak would hide behind it.
 */

const SECONDS = knob('RELIABILITY_SOAK_SECONDS', 10, 300);
const CONNECTIONS = knob('RELIABILITY_SOAK_CONNECTIONS', 3, 4);
const SMALL_LIMIT = 40;
const ADMIN = { email: 'soak-admin@example.com', password: `S0ak-${randomBytes(6).toString('hex')}!` };
const JWT_SECRET = randomBytes(32).toString('hex');
/**
 * Long run: the median RSS of the last fifth within 10% of the median of the
 * fifth right after warm-up. Short run: a few seconds on a 2-core machine
 * shared with other test files is mostly warm-up (V8 still sizing its heap,
 * JIT), and neighbours change our GC timing; there a growth of 50% is allowed
 * and the numbers are printed, so only a gross leak fails it.
 */
const RSS_GROWTH_ALLOWED = LONG ? 1.1 : 1.5;

let workDir: string;
let engine: EngineProcess;
let service: ServiceProcess;
const results: Record<string, AutocannonResult> = {};
const rssSamples: number[] = [];

/** The mixed sequence each connection cycles through; its headers carry the caller's credential. */
function mixedRequests(credential: Record<string, string>, tag: string): AutocannonRequest[] {
  const headers = { ...credential, 'content-type': 'application/json' };
  return [
    {
      method: 'POST',
      path: '/api/v1/restaurant/meal-menus',
      headers,
      body: JSON.stringify({ name: `Soak ${tag}`, date: '2026-05-01', mealType: 'dinner', estimatedPortions: 5, tenant_id: 'tenant-soak' }),
      onResponse: (status, body, context) => {
        context.menuId = status === 201 ? JSON.parse(body).id : undefined;
      },
    },
    {
      method: 'PATCH',
      headers,
      // Back to the start of the sequence when the create was refused (the small key past its limit).
      setupRequest: (request, context) =>
        context.menuId ? { ...request, path: `/api/v1/restaurant/meal-menus/${context.menuId}/estimated-portions/7` } : false,
    },
    { method: 'GET', headers, setupRequest: (request, context) => ({ ...request, path: `/api/v1/restaurant/meal-menus/${context.menuId}` }) },
    { method: 'GET', headers, path: '/api/v1/restaurant/meal-menus?limit=20' },
  ];
}

beforeAll(async () => {
  const build = buildService();
  workDir = mkdtempSync(path.join(os.tmpdir(), 'soak-'));
  engine = await startEngineProcess(buildEngineCli(), path.join(workDir, 'engine'));
  service = await startService(
    build.index,
    // LOG_LEVEL info, as deployed: one request log line per request is part of the load.
    sharedDatabaseEnv({ mongoUri: `mongodb://127.0.0.1:${engine.port}/soak_db`, workDir, admin: ADMIN, jwtSecret: JWT_SECRET }),
    workDir,
  );
  const { baseUrl } = service;
  const token = (await tryCall(baseUrl, 'POST', '/api/v1/auth/login', { body: ADMIN }))!.body.accessToken as string;
  const createKey = async (name: string, rateLimit: number) => {
    const created = await tryCall(baseUrl, 'POST', '/api/v1/api-keys', { token, body: { name, scopes: ['menus:read', 'menus:write'], rateLimit } });
    expect(created?.status).toBe(201);
    return String(created!.body.key);
  };
  const [steadyKey, smallKey] = [await createKey('soak steady', 1_000_000), await createKey('soak small', SMALL_LIMIT)];

  // A key's limit counts per window aligned to the clock (an hour): a run that crossed into the next
  // window would rightly let SMALL_LIMIT more through (a CI run at 05:00 let 55). It starts in a
  // window that outlasts it.
  const windowMs = RATE_WINDOW_SECONDS * 1000;
  const left = windowMs - (Date.now() % windowMs);
  if (left < (SECONDS + 30) * 1000) await new Promise((resolve) => setTimeout(resolve, left + 1000));

  const pid = service.child.pid!;
  const sampler = setInterval(() => {
    const kib = residentKiB(pid);
    if (kib !== undefined) rssSamples.push(kib);
  }, 1000);
  const run = (credential: Record<string, string>, tag: string) =>
    autocannon({ url: baseUrl, connections: CONNECTIONS, duration: SECONDS, timeout: 30, requests: mixedRequests(credential, tag) });
  try {
    [results.jwt, results.steadyKey, results.smallKey] = await Promise.all([
      run({ authorization: `Bearer ${token}` }, 'jwt'),
      run({ 'x-api-key': steadyKey }, 'steady'),
      // As Bearer: both ways of carrying a key are in the load.
      run({ authorization: `Bearer ${smallKey}` }, 'small'),
    ]);
  } finally {
    clearInterval(sampler);
  }
  for (const [caller, result] of Object.entries(results)) {
    console.info(
      `soak ${caller}: ${result.requests.total} requests in ${SECONDS}s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms, statuses ${JSON.stringify(countsByStatus(result))}`,
    );
  }
}, 120_000 + (2 * SECONDS + 31) * 1000);

afterAll(async () => {
  if (service) await stopService(service);
  if (engine) {
    engine.child.kill('SIGTERM');
    await exited(engine.child);
  }
  rmSync(workDir, { recursive: true, force: true });
});

function countsByStatus(result: AutocannonResult): Record<string, number> {
  return Object.fromEntries(Object.entries(result.statusCodeStats).map(([status, { count }]) => [status, Number(count)]));
}

describe(`a ${SECONDS}-second soak with JWT and API key callers`, () => {
  it.each(['jwt', 'steadyKey'])('answers the %s caller with 2xx only: no error, no timeout', (caller) => {
    const result = results[caller]!;
    expect(result.requests.total).toBeGreaterThan(0);
    expect(Object.keys(countsByStatus(result)).filter((status) => !/^2\d\d$/.test(status))).toEqual([]);
    expect([result.errors, result.timeouts]).toEqual([0, 0]);
  });

  it(`lets exactly ${SMALL_LIMIT} requests of the small key through, then answers 429 only`, () => {
    const result = results.smallKey!;
    const counts = countsByStatus(result);
    const successes = Object.entries(counts).filter(([status]) => /^2\d\d$/.test(status)).reduce((sum, [, count]) => sum + count, 0);
    expect(successes).toBe(SMALL_LIMIT);
    expect(Object.keys(counts).filter((status) => !/^2\d\d$/.test(status))).toEqual(['429']);
    expect([result.errors, result.timeouts]).toEqual([0, 0]);
  });

  it('keeps the service process and its engine alive', () => {
    expect(service.child.exitCode).toBeNull();
    expect(engine.child.exitCode).toBeNull();
  });

  it('keeps resident memory flat after warm-up', async () => {
    // Warm-up: the first fifth of the run (at least 3 s).
    const warm = Math.max(3, Math.floor(rssSamples.length / 5));
    const window = Math.max(2, Math.floor(rssSamples.length / 5));
    const early = median(rssSamples.slice(warm, warm + window));
    const late = median(rssSamples.slice(-window));
    console.info(
      `soak memory (VmRSS): after warm-up ${Math.round(early / 1024)} MiB, at the end ${Math.round(late / 1024)} MiB (${((late / early - 1) * 100).toFixed(1)}%), ${rssSamples.length} samples`,
    );
    expect(rssSamples.length).toBeGreaterThanOrEqual(warm + window);
    expect(late).toBeLessThanOrEqual(early * RSS_GROWTH_ALLOWED);
    // And the service still answers once the load is gone.
    expect((await tryCall(service.baseUrl, 'GET', '/readyz'))?.status).toBe(200);
  });
});

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}
