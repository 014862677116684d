/// <reference path="../test/reliability/autocannon.d.ts" />
import autocannon, { type AutocannonRequest } from 'autocannon';
import { cpuTimeUs } from './processes.js';

/** What the bench uses of autocannon 9 beyond test/reliability's declaration. */
declare module 'autocannon' {
  interface AutocannonOptions {
    /** A body for which this returns false counts as a mismatch (a GraphQL answer with errors). */
    verifyBody?: (body: string) => boolean;
    /** Milliseconds between samples (default 1000). */
    sampleInt?: number;
  }
  interface AutocannonResult {
    mismatches: number;
    /** Seconds the run took. */
    duration: number;
  }
}

/** One load: autocannon against one server, `connections` connections each cycling through `requests`. */
export interface Load {
  url: string;
  requests: AutocannonRequest[];
  connections: number;
  /** The status every answer must have (200, or 201 for a creation). */
  expectedStatus: number;
  verifyBody?: (body: string) => boolean;
  /** Run before each round of this load, outside its timing and CPU figures (the refresh scenario's sign-ins). */
  prepare?: () => Promise<void>;
}

/** One load's outcome over one round. */
export interface LoadResult {
  requests: number;
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers other than the expected status, by status; plus connection errors, timeouts and bodies that failed verifyBody. */
  unexpected: Record<string, number>;
}

export interface MeasuredRound {
  results: LoadResult[];
  /** CPU time the server process and the engine process spent during the round, in microseconds (undefined: not measurable). */
  serverCpuUs?: number;
  engineCpuUs?: number;
}

/** Runs loads at once for `seconds`, measuring the CPU time of the server and engine processes over the round. */
export async function measureRound(loads: Load[], seconds: number, pids: { server: number; engine?: number }): Promise<MeasuredRound> {
  for (const load of loads) await load.prepare?.();
  const serverBefore = cpuTimeUs(pids.server);
  const engineBefore = cpuTimeUs(pids.engine);
  const results = await Promise.all(loads.map((load) => runLoad(load, seconds)));
  const serverAfter = cpuTimeUs(pids.server);
  const engineAfter = cpuTimeUs(pids.engine);
  const delta = (before?: number, after?: number) => (before === undefined || after === undefined ? undefined : after - before);
  return { results, serverCpuUs: delta(serverBefore, serverAfter), engineCpuUs: delta(engineBefore, engineAfter) };
}

export async function runLoad(load: Load, seconds: number): Promise<LoadResult> {
  const result = await autocannon({
    url: load.url,
    connections: load.connections,
    duration: seconds,
    requests: load.requests,
    verifyBody: load.verifyBody,
    timeout: 30,
    // autocannon stops (and counts requests) only on a sample tick: 200 ms ticks let a short run end on time.
    sampleInt: 200,
  });
  const unexpected: Record<string, number> = {};
  for (const [status, { count }] of Object.entries(result.statusCodeStats ?? {})) {
    if (Number(status) !== load.expectedStatus && Number(count) > 0) unexpected[status] = Number(count);
  }
  if (result.errors > 0) unexpected['connection errors'] = result.errors;
  if (result.timeouts > 0) unexpected.timeouts = result.timeouts;
  if (result.mismatches > 0) unexpected['bodies with errors'] = result.mismatches;
  return {
    requests: result.requests.total,
    reqPerSec: result.requests.total / (result.duration || seconds),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    unexpected,
  };
}

/**
 * One request of the load, checked before any load runs: a scenario that only
 * fails is not worth measuring. `check`, when given, must hold of its body.
 */
export async function preflight(name: string, load: Load, check?: (body: string) => boolean): Promise<void> {
  await load.prepare?.();
  const first = load.requests[0];
  const raw = { method: first.method ?? 'GET', path: first.path ?? '/', headers: first.headers, body: first.body };
  const request = first.setupRequest ? first.setupRequest(raw, {}) : raw;
  if (!request) throw new Error(`${name}: no request to send`);
  const response = await fetch(`${load.url}${request.path}`, { method: request.method, headers: request.headers, body: request.body });
  const body = await response.text();
  if (response.status !== load.expectedStatus || (load.verifyBody && !load.verifyBody(body)) || (check && !check(body))) {
    throw new Error(`${name}: ${request.method} ${request.path} answered ${response.status} (expected ${load.expectedStatus}): ${body.slice(0, 500)}`);
  }
}
