import { writeFileSync } from 'node:fs';
import os from 'node:os';
import type { LoadResult, MeasuredRound } from './load.js';
import { median } from './measure.js';

/** p99 may be at most this many times p50 at the bench's concurrency (issue 12). */
export const TAIL_LIMIT = 5;

/**
 * One scenario of the service-level bench, as printed and as written by
 * `--json FILE` (a list of these). `ratio` is what `target` applies to, read
 * higher-is-better: to the baseline for most load scenarios, to the JWT read
 * for the key read, ping/findOne for the engine, RSS start/end for memory
 * (`ratioOf` says which).
 */
export interface ScenarioReport {
  name: string;
  /** rss: resident memory before and after the growth part (no load of its own). */
  kind: 'load' | 'engine' | 'memory' | 'rss';
  connections: number;
  /** Median over rounds. For the engine: sequential findOne calls per second on one connection. */
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  ratio: number;
  ratioOf: string;
  target?: number;
  met?: boolean;
  /** Load scenarios: this scenario's req/s over the baseline's, same run. */
  vsBaseline?: number;
  p99OverP50?: number;
  /** p99 <= 5x p50. */
  p99Met?: boolean;
  /** CPU time per request, in microseconds, of the server process (service or baseline) and of the engine process. */
  cpuUsPerRequest?: { server?: number; engine?: number };
  roundsReqPerSec?: number[];
  pingP50Ms?: number;
  memory?: { serviceStartMiB?: number; startMiB: number; endMiB: number; maxMiB: number; samples: number };
  /** The growth part's RSS rows: before the growth, after its writes, after its large runs; how long the writes took. */
  rss?: { beforeMiB?: number; afterWritesMiB?: number; afterMiB?: number; writeSeconds: number };
  /** Answers other than the expected one (status -> count, connection errors, timeouts, GraphQL errors); empty when all were as expected. */
  unexpected: Record<string, number>;
}

const fixed = (n: number | undefined, digits: number) => (n === undefined || !Number.isFinite(n) ? '-' : n.toFixed(digits));
const grouped = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '-');
const unexpectedCount = (row: ScenarioReport) => Object.values(row.unexpected).reduce((sum, n) => sum + n, 0);

function cpuCell(row: ScenarioReport): string {
  const cpu = row.cpuUsPerRequest;
  if (!cpu || (cpu.server === undefined && cpu.engine === undefined)) return '-';
  return `${grouped(cpu.server ?? Number.NaN)} + ${grouped(cpu.engine ?? Number.NaN)}`;
}

function targetCell(row: ScenarioReport): string {
  if (row.target === undefined) return row.kind === 'load' && Number.isFinite(row.ratio) && row.ratioOf !== 'baseline' ? `${fixed(row.ratio, 2)} (${row.ratioOf}), reported` : '';
  const of = row.ratioOf === 'baseline' ? '' : ` (${row.ratioOf})`;
  return `${fixed(row.ratio, 2)} >= ${fixed(row.target, 2)}${of} ${row.met ? 'met' : 'NOT MET'}`;
}

function tailCell(row: ScenarioReport): string {
  if (row.p99OverP50 === undefined) return '-';
  return `${fixed(row.p99OverP50, 1)}${row.p99Met ? '' : ' > 5 !'}`;
}

/** The table, and a loud line for each scenario that got answers it did not expect. */
export function printServiceTable(rows: ScenarioReport[], settings: string): void {
  const header = ['scenario', 'req/s', 'vs baseline', 'p50 ms', 'p99 ms', 'p99/p50', 'CPU us/req (server + engine)', 'target', 'unexpected answers'];
  const lines = rows.map((row) => [
    row.name,
    grouped(row.reqPerSec),
    row.vsBaseline === undefined ? '-' : fixed(row.vsBaseline, 2),
    fixed(row.p50Ms, row.p50Ms < 1 ? 3 : 1),
    fixed(row.p99Ms, row.p99Ms < 1 ? 3 : 1),
    tailCell(row),
    cpuCell(row),
    targetCell(row),
    unexpectedCount(row) === 0 ? '0' : `!! ${unexpectedCount(row)}`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const format = (cells: string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  console.log(`service bench: ${settings}; ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), node ${process.version}`);
  console.log(format(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const line of lines) console.log(format(line));
  const memory = rows.find((row) => row.memory)?.memory;
  if (memory) {
    console.log(`memory: service RSS ${fixed(memory.serviceStartMiB, 0)} MiB when ready, ${fixed(memory.startMiB, 0)} -> ${fixed(memory.endMiB, 0)} MiB across the memory run (max ${fixed(memory.maxMiB, 0)})`);
  }
  for (const row of rows.filter((r) => r.rss)) {
    const rss = row.rss!;
    console.log(`${row.name}: ${fixed(rss.beforeMiB, 0)} MiB before, ${fixed(rss.afterWritesMiB, 0)} after the writes (${rss.writeSeconds} s), ${fixed(rss.afterMiB, 0)} after the runs`);
  }
  for (const row of rows.filter((r) => unexpectedCount(r) > 0)) {
    const what = Object.entries(row.unexpected).map(([kind, count]) => `${kind}: ${count}`).join(', ');
    console.log(`!! ${row.name}: ${unexpectedCount(row)} unexpected answers (${what}); its numbers measure errors, not the service`);
  }
}

export function writeJson(file: string, rows: ScenarioReport[]): void {
  const round = (n: number | undefined, digits = 3) => (n === undefined || !Number.isFinite(n) ? undefined : Number(n.toFixed(digits)));
  const out = rows.map((row) => ({
    ...row,
    reqPerSec: round(row.reqPerSec, 1),
    p50Ms: round(row.p50Ms),
    p99Ms: round(row.p99Ms),
    ratio: round(row.ratio),
    target: round(row.target),
    vsBaseline: round(row.vsBaseline),
    p99OverP50: round(row.p99OverP50, 2),
    pingP50Ms: round(row.pingP50Ms),
    cpuUsPerRequest: row.cpuUsPerRequest && { server: round(row.cpuUsPerRequest.server, 0), engine: round(row.cpuUsPerRequest.engine, 0) },
  }));
  writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
}

export const hasUnexpected = (rows: ScenarioReport[]) => rows.some((row) => unexpectedCount(row) > 0);

/** A load scenario's row: medians over its rounds; CPU per request from the rounds' process times (none for a load run beside another). */
export function loadRow(name: string, results: LoadResult[], rounds: MeasuredRound[] | undefined, unexpected: Record<string, number>, connections: number): ScenarioReport {
  const p50Ms = median(results.map((result) => result.p50Ms));
  const p99Ms = median(results.map((result) => result.p99Ms));
  const perRequest = (pick: (round: MeasuredRound) => number | undefined) => {
    const values = (rounds ?? []).flatMap((round) => {
      const cpu = pick(round);
      return cpu === undefined || round.results[0].requests === 0 ? [] : [cpu / round.results[0].requests];
    });
    return values.length > 0 ? median(values) : undefined;
  };
  const p99OverP50 = p99Ms / p50Ms;
  return {
    name,
    kind: 'load',
    connections,
    reqPerSec: median(results.map((result) => result.reqPerSec)),
    p50Ms,
    p99Ms,
    p99OverP50,
    p99Met: p99OverP50 <= TAIL_LIMIT,
    cpuUsPerRequest: rounds ? { server: perRequest((round) => round.serverCpuUs), engine: perRequest((round) => round.engineCpuUs) } : undefined,
    roundsReqPerSec: results.map((result) => Math.round(result.reqPerSec)),
    ratio: Number.NaN,
    ratioOf: 'baseline',
    unexpected,
  };
}
