import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exited } from '../support/child-process.js';
import { buildService, sharedDatabaseEnv, startService, stopService, type ServiceBuild, type ServiceProcess } from '../support/service-process.js';
import { buildEngineCli, startEngineProcess, type EngineProcess } from '../engine/durability/engine-process.js';
import { delay, knob, LONG, seededRandom, signIn, tryCall, userBody, warnings } from './reliability.js';
import { missingWrites, raceForEmail, startWriteLoad } from './write-load.js';

/**
 * kill -9 at a random moment under a REST write load (menus and users), then a
 * restart on the same data, over and over: every acknowledged (2xx) write is
 * still there, the service starts as cleanly as the first time (no repair, no
 * warning it did not give then), and the unique email index still holds, for
 * the records written before the crash and under a race after it.
 *
 * First the service with its embedded engine (one process: the kill takes
 * both), then a standalone engine shared through MONGODB_URI, killed under a
 * running service that must carry on once the engine is back.
 *
 * Knobs: RELIABILITY_CRASH_ROUNDS (short 3, long 200), RELIABILITY_ENGINE_CRASH_ROUNDS
 * (short 2, long 20), RELIABILITY_SEED to replay the kill moments.
 */

const SERVICE_ROUNDS = knob('RELIABILITY_CRASH_ROUNDS', 3, 200);
const ENGINE_ROUNDS = knob('RELIABILITY_ENGINE_CRASH_ROUNDS', 2, 20);
const ADMIN = { email: 'crash-admin@example.com', password: `Cr4sh-${randomBytes(6).toString('hex')}!` };
const JWT_SECRET = randomBytes(32).toString('hex');
const ROUND_TIMEOUT = 120_000;

let build: ServiceBuild;
let workDir: string;
const random = seededRandom('crash-recovery');

beforeAll(() => {
  build = buildService();
  workDir = mkdtempSync(path.join(os.tmpdir(), 'crash-recovery-'));
}, 180_000);

afterAll(() => {
  rmSync(workDir, { recursive: true, force: true });
});

describe(`SIGKILL of the service and its embedded engine, ${SERVICE_ROUNDS} rounds`, () => {
  const env = () => ({
    NODE_ENV: 'development',
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: path.join(workDir, 'embedded'),
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    JWT_SECRET,
    LOG_LEVEL: 'info',
  });
  // Everything acknowledged so far, and what the last round added.
  const all = { menus: [] as string[], users: [] as { id: string; email: string }[] };
  let lastRound = { menus: [] as string[], users: [] as { id: string; email: string }[] };
  let cleanStartWarnings: string[] = [];
  let session: { token: string; adminId: string };
  let service: ServiceProcess | undefined;

  afterAll(async () => {
    if (service) await stopService(service);
  });

  for (let round = 0; round < SERVICE_ROUNDS; round++) {
    it(`round ${round + 1}: restarts cleanly with every acknowledged write, then is killed under load`, async () => {
      service = await startService(build.index, env(), workDir);
      const { baseUrl } = service;
      if (round === 0) {
        cleanStartWarnings = warnings(service.output());
        session = await signIn(baseUrl, ADMIN);
      } else {
        // The store opened without repair: nothing to warn about that a clean start did not.
        expect(warnings(service.output()).filter((warning) => !cleanStartWarnings.includes(warning))).toEqual([]);
      }
      const { token, adminId } = session;

      expect(await missingWrites(baseUrl, token, lastRound)).toEqual([]);
      const survivor = lastRound.users[0] ?? all.users.at(-1);
      if (survivor) {
        const again = await tryCall(baseUrl, 'POST', '/api/v1/access-control/users', { body: userBody(survivor.email, adminId), token });
        expect(again?.status).toBe(409);
      }
      expect(await raceForEmail(baseUrl, token, adminId, `race-${round}@example.com`)).toEqual([201, 409, 409, 409]);

      const load = startWriteLoad({ baseUrl, token, adminId, tag: `s${round}`, stopOnFailure: true });
      // A random moment in the write stream, once it has acknowledged something to lose.
      await load.untilAcknowledged(1);
      await delay(random.between(0, 1500));
      service.child.kill('SIGKILL');
      await exited(service.child);
      await load.done;
      service = undefined;

      // Whatever was answered before the kill was a success.
      expect(load.refusals).toEqual([]);
      lastRound = { menus: load.menus, users: load.users };
      all.menus.push(...load.menus);
      all.users.push(...load.users);
    }, ROUND_TIMEOUT);
  }

  it('after the last kill, finds every write acknowledged in every round', async () => {
    service = await startService(build.index, env(), workDir);
    expect(warnings(service.output()).filter((warning) => !cleanStartWarnings.includes(warning))).toEqual([]);
    expect(await missingWrites(service.baseUrl, session.token, all)).toEqual([]);
    console.info(`crash-recovery (embedded): ${SERVICE_ROUNDS} kills, ${all.menus.length} menus and ${all.users.length} users acknowledged, all found`);
    expect(await stopService(service)).toBe(0);
    service = undefined;
  }, ROUND_TIMEOUT + (LONG ? 600_000 : 0));
});

describe(`SIGKILL of a standalone engine under a running service (MONGODB_URI), ${ENGINE_ROUNDS} rounds`, () => {
  let cli: string;
  let engine: EngineProcess | undefined;
  let service: ServiceProcess;
  let session: { token: string; adminId: string };
  const dbPath = () => path.join(workDir, 'standalone');

  beforeAll(async () => {
    cli = buildEngineCli();
    engine = await startEngineProcess(cli, dbPath());
    service = await startService(
      build.index,
      sharedDatabaseEnv({ mongoUri: `mongodb://127.0.0.1:${engine.port}/crash_db`, workDir, admin: ADMIN, jwtSecret: JWT_SECRET }),
      workDir,
    );
    session = await signIn(service.baseUrl, ADMIN);
  }, 180_000);

  afterAll(async () => {
    if (service) await stopService(service);
    if (engine) {
      engine.child.kill('SIGTERM');
      await exited(engine.child);
    }
  });

  for (let round = 0; round < ENGINE_ROUNDS; round++) {
    it(`round ${round + 1}: the service carries on after the engine restarts, with every acknowledged write`, async () => {
      const { token, adminId } = session;
      const { port } = engine!;
      const load = startWriteLoad({ baseUrl: service.baseUrl, token, adminId, tag: `e${round}`, stopOnFailure: false });
      await load.untilAcknowledged(1);
      await delay(random.between(0, 1500));
      engine!.child.kill('SIGKILL');
      await exited(engine!.child);
      engine = undefined;
      // The service answers errors (or holds requests) while the engine is away; it must not die.
      await delay(300);
      engine = await startEngineProcess(cli, dbPath(), port);
      await waitUntilReady(service, engine);
      await load.stop();

      expect(service.child.exitCode).toBeNull();
      expect(await missingWrites(service.baseUrl, token, load)).toEqual([]);
      expect(await raceForEmail(service.baseUrl, token, adminId, `engine-race-${round}@example.com`)).toEqual([201, 409, 409, 409]);
      // A refusal while the engine was away is a 5xx, never a 4xx blaming the caller.
      expect(load.refusals.filter((refusal) => !/^5\d\d /.test(refusal))).toEqual([]);
      console.info(
        `engine round ${round + 1}: ${load.menus.length + load.users.length} acknowledged and found, ${load.refusals.length} refused and ${load.unanswered} unanswered while the engine was away`,
      );
    }, ROUND_TIMEOUT);
  }
});

/** Polls /readyz (a database ping) until it answers 200. */
async function waitUntilReady(service: ServiceProcess, engine: EngineProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if ((await tryCall(service.baseUrl, 'GET', '/readyz'))?.status === 200) return;
    await delay(200);
  }
  const healthz = await tryCall(service.baseUrl, 'GET', '/healthz');
  throw new Error(
    `the service did not become ready again after the engine restarted (/healthz: ${healthz?.status ?? 'no answer'}); its last output:\n${service.output().slice(-4000)}\nthe engine's (exit code ${engine.child.exitCode}):\n${engine.output().slice(-3000)}`,
  );
}
