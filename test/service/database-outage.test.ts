import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUTAGE_TIMINGS } from '../../src/database.js';
import { exited, startEngineProcess, type EngineProcess } from '../engine/durability/engine-process.js';
import { buildService, callService, sharedDatabaseEnv, startService, stopService, type ServiceProcess } from '../support/service-process.js';

/**
 * The service on a standalone engine that is SIGKILLed and restarted 12 s
 * later, under a light load of writes and reads over both surfaces. While the
 * engine is away every answer is 503 with Retry-After (not a 500), and comes
 * at once (not after seconds in mongoose's buffer or the driver's server
 * selection); once it listens again, writes succeed within a few heartbeats.
 * The bounds are multiples of the service's own heartbeat, with wide margins
 * (the driver's defaults, the cause of the old behaviour, are 10 s each).
 */

const ADMIN = { email: 'outage-admin@example.com', password: `Outage-${randomBytes(6).toString('hex')}!` };
const HEARTBEAT_MS = OUTAGE_TIMINGS.heartbeatFrequencyMS;
// Longer than the driver's default heartbeat (10 s), after which requests used to wait in mongoose's buffer.
const OUTAGE_MS = 12_000;

let workDir: string;
let engineCli: string;
let engine: EngineProcess;
let service: ServiceProcess;
let token: string;

beforeAll(async () => {
  const build = buildService();
  engineCli = path.join(path.dirname(build.index), 'engine', 'cli.js');
  workDir = mkdtempSync(path.join(os.tmpdir(), 'database-outage-'));
  engine = await startEngineProcess(engineCli, path.join(workDir, 'mongo'));
  const env = sharedDatabaseEnv({ mongoUri: `${engine.uri}outage_db`, workDir, admin: ADMIN, jwtSecret: randomBytes(32).toString('hex') });
  service = await startService(build.index, env, workDir);
  token = (await callService(service, 'POST', '/api/v1/auth/login', { body: ADMIN })).body.accessToken;
}, 180_000);

afterAll(async () => {
  if (service) await stopService(service);
  if (engine) {
    engine.child.kill('SIGTERM');
    await exited(engine.child);
  }
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

interface Answer {
  what: string;
  status: number;
  /** GraphQL: extensions.code; REST: the problem's code. */
  code?: string;
  retryAfter: string | null;
  ms: number;
}

let menus = 0;
async function timed(what: string, url: string, init: RequestInit): Promise<Answer> {
  const started = performance.now();
  const response = await fetch(`${service.baseUrl}${url}`, {
    ...init,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
  });
  const body = (await response.json().catch(() => ({}))) as { code?: string; errors?: { extensions?: { code?: string } }[] };
  return { what, status: response.status, code: body.code ?? body.errors?.[0]?.extensions?.code, retryAfter: response.headers.get('retry-after'), ms: performance.now() - started };
}
const restWrite = () =>
  timed('rest write', '/api/v1/restaurant/meal-menus', {
    method: 'POST',
    body: JSON.stringify({ name: `Outage ${(menus += 1)}`, date: '2026-05-05', mealType: 'lunch', tenant_id: 'tenant-outage' }),
  });
const restRead = () => timed('rest read', '/api/v1/restaurant/meal-menus', { method: 'GET' });
const graphqlRead = () => timed('graphql read', '/graphql', { method: 'POST', body: JSON.stringify({ query: '{ mealMenus { nextCursor } }' }) });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the database going away and coming back', () => {
  it('answers 503 with Retry-After at once while it is away, and writes again within a few heartbeats of its return', async () => {
    expect((await restWrite()).status).toBe(201);

    engine.child.kill('SIGKILL');
    await exited(engine.child);
    const killedAt = performance.now();
    const during: Answer[] = [];
    while (performance.now() - killedAt < OUTAGE_MS) {
      during.push(...(await Promise.all([restWrite(), restRead(), graphqlRead()])));
      await sleep(100);
    }

    engine = await startEngineProcess(engineCli, path.join(workDir, 'mongo'), engine.port);
    const backAt = performance.now();
    let written: Answer;
    do written = await restWrite();
    while (written.status !== 201 && performance.now() - backAt < 30_000 && (await sleep(50)) === undefined);
    const backAfterMs = performance.now() - backAt;

    // Every answer of the outage: a 503 with Retry-After on both surfaces, none slower than three heartbeats.
    const unexpected = during.filter((answer) => answer.status !== 503 || answer.code !== 'SERVICE_UNAVAILABLE' || answer.retryAfter !== '1');
    const slowest = Math.max(...during.map((answer) => answer.ms));
    // A 500 is logged with its cause: the lines name what the error mapper did not know as the database being away.
    const internalErrors = service.output().split('\n').filter((line) => /unexpected error/.test(line)).slice(0, 3);
    expect(
      { unexpected: unexpected.slice(0, 3), slow: slowest > 3 * HEARTBEAT_MS },
      `slowest ${Math.round(slowest)} ms; logged 500s: ${internalErrors.join('\n') || 'none'}`,
    ).toEqual({ unexpected: [], slow: false });
    // Served again within four heartbeats of the engine listening (the old behaviour: tens of seconds).
    expect({ status: written.status, late: backAfterMs > 4 * HEARTBEAT_MS }, `back after ${Math.round(backAfterMs)} ms`).toEqual({ status: 201, late: false });
  }, 120_000);
});
