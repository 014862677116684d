import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { createDispatcher, type EngineState } from './commands/index.js';
import { CursorStore } from './cursors/index.js';
import { lockDbPath, type DbPathLock } from './db-path-lock.js';
import { startWireServer, type WireServer } from './server/index.js';
import { serverFacts } from './standalone/index.js';
import { createMemoryStorage, openLmdbStorage, startTtlSweeper, type Storage } from './storage/index.js';

/**
 * The engine's only public entry: a MongoDB-wire-compatible server that the
 * official driver (and mongoose) connect to like a standalone mongod.
 */
interface CommonEngineOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** How often expired TTL documents are removed (mongod: 60 s). */
  ttlMonitorIntervalMs?: number;
  /** Where the engine's one-line diagnostics go; default stderr. */
  log?: (line: string) => void;
}

export type StartEngineOptions = CommonEngineOptions & ({ dbPath: string } | { inMemory: true });

export interface RunningEngine {
  /** e.g. mongodb://127.0.0.1:27017/ */
  uri: string;
  host: string;
  port: number;
  /** Stops accepting, closes connections and cursors, flushes and closes storage. */
  close(): Promise<void>;
}

/** Name of the lmdb file inside dbPath (dbPath is a directory, as mongod's is). */
const DATA_FILE = 'engine.mdb';

export async function startEngine(opts: StartEngineOptions): Promise<RunningEngine> {
  const host = opts.host ?? '127.0.0.1';
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const { storage, lock } = openStorage(opts);
  const sweeper = startTtlSweeper(storage, { intervalMs: opts.ttlMonitorIntervalMs ?? 60_000 });
  const cursors = new CursorStore();

  let server: WireServer | undefined;
  const engine: EngineState = {
    storage,
    cursors,
    startedAt: new Date(),
    version: serverFacts.version,
    connections: () => server?.connectionCount() ?? 0,
    connectionsCreated: () => server?.connectionsCreated() ?? 0,
  };
  try {
    server = await startWireServer({ host, port: opts.port ?? 0, engine, dispatch: createDispatcher({ log }), log });
  } catch (err) {
    sweeper.stop();
    cursors.close();
    await storage.close();
    lock?.release();
    throw err;
  }

  const running = server;
  let closing: Promise<void> | undefined;
  return {
    uri: `mongodb://${formatHost(host)}:${running.port}/`,
    host,
    port: running.port,
    close() {
      closing ??= (async () => {
        await running.close();
        sweeper.stop();
        cursors.close();
        await storage.close();
        lock?.release();
      })();
      return closing;
    },
  };
}

function openStorage(opts: StartEngineOptions): { storage: Storage; lock?: DbPathLock } {
  if ('inMemory' in opts && opts.inMemory) return { storage: createMemoryStorage() };
  const dbPath = (opts as { dbPath: string }).dbPath;
  mkdirSync(dbPath, { recursive: true });
  const lock = lockDbPath(dbPath);
  try {
    return { storage: openLmdbStorage(path.join(dbPath, DATA_FILE)), lock };
  } catch (err) {
    lock.release();
    throw err;
  }
}

/** IPv6 literals need brackets in a URI. */
function formatHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}
