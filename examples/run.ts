/**
 * `npm run example` (after codegen and the builds): starts the built service
 * (dist/src/index.js) on the embedded engine, with its data in a fresh
 * temporary folder, on a free loopback port and with a first administrator;
 * runs the typed client's tour (tour.ts) against it; stops it with SIGTERM
 * and removes the folder. Exit 0 when the tour passed and the service
 * stopped cleanly; 1 with the reason (and the service's last log lines) otherwise.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runTour } from './tour.js';

/** This file runs as dist/examples/run.js. */
const ROOT = path.resolve(import.meta.dirname, '../..');
const SERVICE_ENTRY = path.join(ROOT, 'dist', 'src', 'index.js');
/** The first administrator the service creates on its empty database (an example's, not a secret). */
const ADMIN = { email: 'admin@example.com', password: 'Adm1nPassw0rd!' };
const START_TIMEOUT_MS = 60_000;
/** The service ends its own drain within 30 s (docs/operations.md); a little more, then it is killed. */
const STOP_TIMEOUT_MS = 40_000;
/** How much of the service's log a failure shows. */
const LOG_TAIL_LINES = 40;

interface ServiceProcess {
  child: ChildProcess;
  /** The service's URL, once it logs `listening on …`; rejects when it exits or takes too long first. */
  listening: Promise<string>;
  /** The exit code once the process has ended (null: ended by a signal). */
  exit: Promise<number | null>;
}

class ExampleFailure extends Error {}

/** The service's last log lines (its log redacts secrets), shown when the run fails. */
const log: string[] = [];

/** Starts the service; the caller stops it (stopService) whatever happens next. */
function startService(dataDir: string): ServiceProcess {
  // Only these variables: a MONGODB_URI or NODE_ENV of the caller's shell must not reach it.
  const env = {
    PATH: process.env.PATH ?? '',
    NODE_ENV: 'development',
    HOST: '127.0.0.1',
    PORT: '0',
    DATA_DIR: dataDir,
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    JWT_SECRET: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'info',
  };
  const child = spawn(process.execPath, [SERVICE_ENTRY], { cwd: dataDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exit = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const listening = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new ExampleFailure(`the service did not listen within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
    let pending = '';
    const onData = (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        log.push(line);
        if (log.length > LOG_TAIL_LINES) log.shift();
        const url = listeningUrl(line);
        if (url) {
          clearTimeout(timer);
          resolve(url);
        }
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('error', (err) => reject(new ExampleFailure(`the service could not be started: ${err.message}`)));
    void exit.then((code) => {
      clearTimeout(timer);
      if (pending) log.push(pending);
      reject(new ExampleFailure(`the service exited (code ${code}) before listening`));
    });
  });
  return { child, listening, exit };
}

/** The URL of the service's `listening on http://…` log line (pino JSON), if this is it. */
function listeningUrl(line: string): string | undefined {
  try {
    const { msg } = JSON.parse(line) as { msg?: unknown };
    return typeof msg === 'string' ? /^listening on (http:\/\/\S+)$/.exec(msg)?.[1] : undefined;
  } catch {
    return undefined;
  }
}

/** SIGTERM, then the exit code; killed (and a failure) when the drain overruns. */
async function stopService(service: ServiceProcess): Promise<number | null> {
  if (service.child.exitCode === null && service.child.signalCode === null) service.child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const overrun = new Promise<'overrun'>((resolve) => (timer = setTimeout(() => resolve('overrun'), STOP_TIMEOUT_MS)));
  const outcome = await Promise.race([service.exit, overrun]);
  clearTimeout(timer);
  if (outcome !== 'overrun') return outcome;
  service.child.kill('SIGKILL');
  await service.exit;
  throw new ExampleFailure(`the service did not stop within ${STOP_TIMEOUT_MS / 1000} s of SIGTERM and was killed`);
}

async function main(): Promise<number> {
  if (!existsSync(SERVICE_ENTRY)) {
    console.error(`npm run example failed: ${path.relative(ROOT, SERVICE_ENTRY)} is missing; build it with \`npm run build\` (npm run example does)`);
    return 1;
  }
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'admin-gateway-example-'));
  let service: ServiceProcess | undefined;
  // Ctrl-C reaches the service too (same process group) and it drains; here, wait for it and
  // clean up (a second Ctrl-C changes nothing, as for the service).
  const interrupted = new Promise<never>((_, reject) =>
    process.on('SIGINT', () => reject(new ExampleFailure('interrupted'))).on('SIGTERM', () => reject(new ExampleFailure('terminated'))),
  );
  try {
    service = startService(dataDir);
    const baseUrl = await Promise.race([service.listening, interrupted]);
    console.log(`Typed client tour against ${baseUrl} (a new service on the embedded engine, data in a temporary folder)`);
    await Promise.race([runTour({ baseUrl, admin: ADMIN }), interrupted]);
    const code = await stopService(service);
    service = undefined;
    if (code !== 0) throw new ExampleFailure(`the service stopped with exit code ${code}, not 0`);
    rmSync(dataDir, { recursive: true, force: true });
    console.log('Tour done; the service stopped cleanly (exit 0) and its temporary data was removed.');
    return 0;
  } catch (err) {
    console.error(`npm run example failed: ${reason(err)}`);
    if (log.length > 0) console.error(`The service's last log lines:\n${log.join('\n')}`);
    return 1;
  } finally {
    if (service) await stopService(service).catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** What went wrong, in a sentence: a step of the runner, or the tour's own check or call (with fetch's cause). */
function reason(err: unknown): string {
  if (err instanceof ExampleFailure) return err.message;
  if (!(err instanceof Error)) return `the tour failed: ${String(err)}`;
  const cause = err.cause instanceof Error ? ` (${err.cause.message})` : '';
  return `the tour failed: ${err.message}${cause}`;
}

process.exitCode = await main();
