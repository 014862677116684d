import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The bench's child processes (the service and the baseline, each on its own
 * process as deployed) and what /proc says about a process: CPU time and
 * resident memory. The bench runs from dist/bench, beside dist/src.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
export const SERVICE_ENTRY = path.resolve(here, '../src/index.js');
export const BASELINE_ENTRY = path.resolve(here, 'baseline-server.js');
export const RECEIVER_ENTRY = path.resolve(here, 'webhook-receiver.js');

export interface ServerProcess {
  name: string;
  pid: number;
  baseUrl: string;
  /** What it wrote so far (stdout and stderr), for error messages. */
  output(): string;
  stop(): Promise<void>;
}

/** A TCP port free right now on 127.0.0.1 (the service logs nothing at LOG_LEVEL=warn, so we choose its port). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject).listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** `node <entry>` with exactly `env` (plus PATH); resolves once `readyPath` answers 200. */
export async function startServer(
  name: string,
  entry: string,
  env: Record<string, string>,
  port: number,
  readyPath: string,
  { discardStdout = false }: { discardStdout?: boolean } = {},
): Promise<ServerProcess> {
  // A server logging each request writes its stdout to /dev/null: reading it here would cost the load generator's CPU.
  const child = spawn(process.execPath, [entry], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', discardStdout ? 'ignore' : 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)));
  child.stderr!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const baseUrl = `http://127.0.0.1:${port}`;
  const server: ServerProcess = { name, pid: child.pid!, baseUrl, output: () => output, stop: () => stopChild(child, exited) };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${name} exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${output}`);
    try {
      const response = await fetch(`${baseUrl}${readyPath}`);
      await response.arrayBuffer();
      if (response.status === 200) return server;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await server.stop();
      throw new Error(`${name} did not answer ${readyPath} within 60 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const forced = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(forced);
}

/** Clock ticks per second of /proc/<pid>/stat times (100 on Linux almost everywhere). */
const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** User + system CPU time of a process (all its threads) in microseconds; undefined once it is gone. */
export function cpuTimeUs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces), from field 3 on: utime is 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS) * 1e6;
  } catch {
    return undefined;
  }
}

/** Resident memory of a process in MiB; undefined once it is gone. */
export function residentMiB(pid: number): number | undefined {
  try {
    const kib = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kib === undefined ? undefined : Number(kib) / 1024;
  } catch {
    return undefined;
  }
}
