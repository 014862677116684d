import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request, type Agent } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { startEngine, type RunningEngine } from '../../src/engine/index.js';
import { exited } from './child-process.js';
import { buildServiceTree } from './test-build.js';

/**
 * The service and its CLI as child processes, from the one test build of the
 * current sources (buildServiceTree: shared with the bench test, built once).
 */
export interface ServiceBuild {
  /** dist/.../src/index.js */
  index: string;
  /** dist/.../src/cli.js */
  cli: string;
}

export function buildService(): ServiceBuild {
  const outDir = buildServiceTree();
  return { index: path.join(outDir, 'src', 'index.js'), cli: path.join(outDir, 'src', 'cli.js') };
}

/**
 * The child's environment: only what is given, plus PATH, so nothing from the
 * test runner (NODE_ENV=test, a MONGODB_URI) leaks in.
 */
export function childEnv(env: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '', ...env };
}

/**
 * A service in its default mode (the embedded engine, data in `dataDir`) on
 * an ephemeral loopback port, with an administrator to sign in as; `extra`
 * adds or replaces variables (e.g. a fixed JWT_SECRET, a limit under test).
 */
export function defaultModeEnv(dataDir: string, admin: { email: string; password: string }, extra: Record<string, string> = {}): Record<string, string> {
  return {
    NODE_ENV: 'development',
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    ADMIN_EMAIL: admin.email,
    ADMIN_PASSWORD: admin.password,
    JWT_SECRET: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'info',
    ...extra,
  };
}

export interface ServiceProcess {
  child: ChildProcess;
  /** e.g. http://127.0.0.1:54321, from the "listening on" log line. */
  baseUrl: string;
  /** Everything the process wrote so far, stdout and stderr. */
  output(): string;
  /** Resolves once `text` appears in the output. */
  waitFor(text: string): Promise<void>;
  /** Exit code once the process has ended (its pipes drained). */
  exit: Promise<number | null>;
}

/**
 * Starts `node index.js` and resolves once it logs the URL it listens on;
 * `wrapper` runs it inside another command (e.g. bash lowering `ulimit -n`).
 */
export function startService(index: string, env: Record<string, string>, cwd: string, wrapper: readonly string[] = []): Promise<ServiceProcess> {
  const command = [...wrapper, process.execPath, index];
  const child = spawn(command[0]!, command.slice(1), { env: childEnv(env), cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const waiters = new Set<{ text: string; resolve: () => void }>();
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const waiter of waiters) {
      if (output.includes(waiter.text)) {
        waiters.delete(waiter);
        waiter.resolve();
      }
    }
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exit = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));

  const waitFor = (text: string) =>
    new Promise<void>((resolve, reject) => {
      if (output.includes(text)) return resolve();
      waiters.add({ text, resolve });
      void exit.then((code) => reject(new Error(`service exited with ${code} before printing "${text}":\n${output}`)));
    });

  return waitFor('listening on http://').then(() => {
    const url = /listening on (http:\/\/\S+?)"/.exec(output)?.[1];
    if (!url) throw new Error(`no URL in the "listening on" line:\n${output}`);
    return { child, baseUrl: url, output: () => output, waitFor, exit };
  });
}

/** SIGTERM, then the exit code; a process that already ended just gives its code. */
export async function stopService(service: ServiceProcess): Promise<number | null> {
  if (service.child.exitCode === null && service.child.signalCode === null) service.child.kill('SIGTERM');
  await exited(service.child);
  return service.exit;
}

/** A service instance on a shared MongoDB (MONGODB_URI), with a first-start administrator. */
export function sharedDatabaseEnv(options: {
  mongoUri: string;
  workDir: string;
  admin: { email: string; password: string };
  jwtSecret: string;
}): Record<string, string> {
  return {
    NODE_ENV: 'development',
    PORT: '0',
    HOST: '127.0.0.1',
    MONGODB_URI: options.mongoUri,
    DATA_DIR: path.join(options.workDir, 'unused-data'),
    ADMIN_EMAIL: options.admin.email,
    ADMIN_PASSWORD: options.admin.password,
    JWT_SECRET: options.jwtSecret,
    // "listening on", which startService waits for, is an info line.
    LOG_LEVEL: 'info',
  };
}

/**
 * The environment additions that put a service process's clock `skewMs`
 * ahead (skewed-clock.mjs, preloaded): an instance on a machine whose clock is off.
 */
export function skewedClockEnv(skewMs: number): Record<string, string> {
  const preload = pathToFileURL(path.join(import.meta.dirname, 'skewed-clock.mjs')).href;
  return { NODE_OPTIONS: `--import=${preload}`, CLOCK_SKEW_MS: String(skewMs) };
}

/** One JSON call to a service process. */
export async function callService(
  service: ServiceProcess,
  method: string,
  urlPath: string,
  options: { body?: unknown; token?: string } = {},
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const response = await fetch(`${service.baseUrl}${urlPath}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  return { status: response.status, body: await response.json() };
}

/**
 * One JSON call over `agent` (its own sockets: a test can hold the reader's
 * connection open through a flood, or bound how many it opens); rejects
 * after `timeoutMs` without an answer.
 */
export function callOverAgent(
  service: ServiceProcess,
  agent: Agent,
  method: string,
  urlPath: string,
  { body, token, timeoutMs = 10_000 }: { body?: unknown; token?: string; timeoutMs?: number } = {},
): Promise<{ status: number; body: any }> {
  const url = new URL(urlPath, service.baseUrl);
  const headers = { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) };
  return new Promise((resolve, reject) => {
    const req = request(url, { method, agent, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer to ${method} ${urlPath} in ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

export interface InstancesOnEngine {
  /** The standalone engine (in the test process) the instances share. */
  engine: RunningEngine;
  /** A fresh temp folder: the engine's data and the instances' cwd. */
  workDir: string;
  /** The environment every instance got (start another one with it). */
  env: Record<string, string>;
  services: ServiceProcess[];
  /** Starts one more instance (not in `services`) with `env` plus `extraEnv`; close() stops it too. */
  start(extraEnv?: Record<string, string>): Promise<ServiceProcess>;
  /** Stops the instances still running and the engine, and removes workDir. */
  close(): Promise<void>;
}

/**
 * Several service instances on one standalone engine (MONGODB_URI naming
 * `database`), as when the service runs scaled out. `oneAfterAnother` starts
 * them in turn (the first creates the administrator alone); by default they
 * start at once. A failed start cleans up before it throws.
 */
export async function startInstancesOnEngine(options: {
  /** Prefix of the temp folder. */
  name: string;
  database: string;
  admin: { email: string; password: string };
  jwtSecret: string;
  count?: number;
  oneAfterAnother?: boolean;
}): Promise<InstancesOnEngine> {
  const build = buildService();
  const workDir = mkdtempSync(path.join(os.tmpdir(), `${options.name}-`));
  const services: ServiceProcess[] = [];
  const more: ServiceProcess[] = [];
  let engine: RunningEngine | undefined;
  const close = async () => {
    for (const service of [...services, ...more]) await stopService(service);
    await engine?.close();
    rmSync(workDir, { recursive: true, force: true });
  };
  try {
    engine = await startEngine({ dbPath: path.join(workDir, 'mongo') });
    const env = sharedDatabaseEnv({ mongoUri: `${engine.uri}${options.database}`, workDir, admin: options.admin, jwtSecret: options.jwtSecret });
    const start = () => startService(build.index, env, workDir);
    const count = options.count ?? 2;
    if (options.oneAfterAnother) {
      for (let i = 0; i < count; i += 1) services.push(await start());
    } else {
      // allSettled: every start has ended (and is kept, to be stopped) before a failure throws.
      const started = await Promise.allSettled(Array.from({ length: count }, start));
      for (const outcome of started) if (outcome.status === 'fulfilled') services.push(outcome.value);
      const failed = started.find((outcome) => outcome.status === 'rejected');
      if (failed) throw failed.reason;
    }
    const startMore = async (extraEnv: Record<string, string> = {}) => {
      const service = await startService(build.index, { ...env, ...extraEnv }, workDir);
      more.push(service);
      return service;
    };
    return { engine, workDir, env, services, start: startMore, close };
  } catch (err) {
    await close();
    throw err;
  }
}
