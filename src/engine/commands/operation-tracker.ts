import type { Document } from '../query/types.js';
import type { CommandContext, EngineState } from './types.js';

/**
 * What mongod keeps about operations and a tool can ask for: the operations
 * in progress ($currentOp, currentOp) and per-collection latency totals
 * ($collStats latencyStats, `db.coll.latencyStats()`). Kept per engine, in
 * memory, filled by the dispatcher around every command.
 */

interface LatencyTotals {
  latency: number;
  ops: number;
}

interface CollectionLatency {
  reads: LatencyTotals;
  writes: LatencyTotals;
  commands: LatencyTotals;
  transactions: LatencyTotals;
}

interface RunningOp {
  opid: number;
  command: Document;
  ns: string;
  op: string;
  startedAt: Date;
  connectionId: number;
  client: string;
  appName?: string;
}

interface EngineOperations {
  nextOpId: number;
  /** serverStatus opcounters: operations by kind since start. */
  opcounters: Record<string, number>;
  running: Map<number, RunningOp>;
  latency: Map<string, CollectionLatency>;
}

const READS = new Set(['find', 'getMore', 'aggregate', 'count', 'distinct']);
const WRITES = new Set(['insert', 'update', 'delete', 'findAndModify', 'findandmodify']);

const perEngine = new WeakMap<EngineState, EngineOperations>();

function operationsOf(engine: EngineState): EngineOperations {
  let ops = perEngine.get(engine);
  if (!ops) {
    const opcounters = { insert: 0, query: 0, update: 0, delete: 0, getmore: 0, command: 0 };
    perEngine.set(engine, (ops = { nextOpId: 1, opcounters, running: new Map(), latency: new Map() }));
  }
  return ops;
}

/** The namespace a command works on (`db.coll`), else `db.$cmd`. */
export function namespaceOfCommand(name: string, body: Document, db: string): string {
  const target = name === 'getMore' ? body.collection : body[name];
  return typeof target === 'string' && target !== '' ? `${db}.${target}` : `${db}.$cmd`;
}

/** mongod's `op` field: query, getmore, insert, update, remove or command. */
export function opType(name: string): string {
  if (name === 'find') return 'query';
  if (name === 'getMore') return 'getmore';
  if (name === 'insert' || name === 'update') return name;
  if (name === 'delete') return 'remove';
  return 'command';
}

/** Registers a command as running; the returned function ends it and records its latency. */
export function beginOperation(name: string, body: Document, ctx: CommandContext): () => void {
  const ops = operationsOf(ctx.engine);
  const opid = ops.nextOpId++;
  const ns = namespaceOfCommand(name, body, ctx.db);
  const appName = (ctx.connection.client?.application as Document | undefined)?.name;
  ops.running.set(opid, {
    opid,
    command: body,
    ns,
    op: opType(name),
    startedAt: new Date(),
    connectionId: ctx.connection.id,
    client: ctx.connection.remoteAddress,
    ...(typeof appName === 'string' ? { appName } : {}),
  });
  const kind = opType(name);
  ops.opcounters[kind === 'remove' ? 'delete' : kind] = (ops.opcounters[kind === 'remove' ? 'delete' : kind] ?? 0) + 1;
  const started = process.hrtime.bigint();
  return () => {
    ops.running.delete(opid);
    if (ns.endsWith('.$cmd')) return;
    const micros = Number((process.hrtime.bigint() - started) / 1000n);
    let totals = ops.latency.get(ns);
    if (!totals) {
      totals = { reads: zero(), writes: zero(), commands: zero(), transactions: zero() };
      ops.latency.set(ns, totals);
    }
    const bucket = READS.has(name) ? totals.reads : WRITES.has(name) ? totals.writes : totals.commands;
    bucket.latency += micros;
    bucket.ops += 1;
  };
}

function zero(): LatencyTotals {
  return { latency: 0, ops: 0 };
}

/** `$collStats: {latencyStats}`: totals in microseconds since start (histograms are not kept). */
export function latencyStatsOf(engine: EngineState, ns: string): Document {
  const totals = operationsOf(engine).latency.get(ns);
  const out: Document = {};
  for (const kind of ['reads', 'writes', 'commands', 'transactions'] as const) {
    const t = totals?.[kind] ?? zero();
    out[kind] = { latency: t.latency, ops: t.ops };
  }
  return out;
}

/** Drops the latency totals of a collection, or of every collection of a database (drop, dropDatabase). */
export function forgetLatency(engine: EngineState, db: string, coll?: string): void {
  const latency = operationsOf(engine).latency;
  if (coll !== undefined) latency.delete(`${db}.${coll}`);
  else for (const ns of [...latency.keys()]) if (ns.startsWith(`${db}.`)) latency.delete(ns);
}

/** The operations in progress, as `$currentOp` documents. */
export function currentOperations(engine: EngineState, host: string): Document[] {
  const now = Date.now();
  return [...operationsOf(engine).running.values()].map((op) => {
    const elapsedMs = now - op.startedAt.getTime();
    return {
      type: 'op',
      host,
      desc: `conn${op.connectionId}`,
      connectionId: op.connectionId,
      client: op.client,
      ...(op.appName ? { appName: op.appName } : {}),
      active: true,
      currentOpTime: new Date(now).toISOString(),
      opid: op.opid,
      secs_running: Math.floor(elapsedMs / 1000),
      microsecs_running: elapsedMs * 1000,
      op: op.op,
      ns: op.ns,
      command: op.command,
      numYields: 0,
      waitingForLock: false,
    };
  });
}

/** serverStatus `opcounters` (insert counts commands, not documents, here). */
export function opcountersOf(engine: EngineState): Document {
  return { ...operationsOf(engine).opcounters };
}

/** True when `opid` names an operation in progress (killOp). */
export function isRunning(engine: EngineState, opid: number): boolean {
  return operationsOf(engine).running.has(opid);
}
