import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import { createDispatcher, FsyncLock, type EngineState } from './commands/index.js';
import { CursorStore } from './cursors/index.js';
import { lockDbPath, type DbPathLock } from './db-path-lock.js';
import { claimSocketPath, startWireServer, type ClaimedSocketPath, type ListenAt, type SocketOptions, type WireServer } from './server/index.js';
import { serverFacts } from './standalone/index.js';
import {
  createMemoryStorage,
  describeFailure,
  mustStopNow,
  openLmdbStorage,
  restoreBackup,
  startTtlSweeper,
  waitsForSpace,
  whenSpaceIsBack,
  type BackupManifest,
  type Storage,
  type StorageStats,
} from './storage/index.js';

export { MAX_SOCKET_PATH_BYTES, type SocketOptions } from './server/index.js';
/** What the engine holds, read at once: documents and write-ahead log bytes (for the service's metrics). */
export type EngineStats = StorageStats;
export { BACKUP_MANIFEST, BackupRefused, type BackupManifest } from './storage/index.js';

/**
 * The engine's only public entry: a MongoDB-wire-compatible server that the
 * official driver (and mongoose) connect to like a standalone mongod.
 *
 * The engine has no authentication. On TCP anyone who can reach the port can
 * read and write everything; on a unix socket (`socket`) only this user can
 * connect, and no port is opened.
 */
interface CommonEngineOptions {
  /** How often expired TTL documents are removed (mongod: 60 s). */
  ttlMonitorIntervalMs?: number;
  /** Where the engine's one-line diagnostics go; default stderr. */
  log?: (line: string) => void;
}

interface TcpListenOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  socket?: undefined;
}

interface SocketListenOptions {
  /** Listen on a unix domain socket (file 0600 in a 0700 directory) instead of TCP. */
  socket: SocketOptions;
  host?: undefined;
  port?: undefined;
}

type StorageOptions = { dbPath: string } | { inMemory: true };

/** An engine on TCP. */
export type StartEngineOptions = CommonEngineOptions & TcpListenOptions & StorageOptions;
/** An engine on a unix domain socket. */
export type StartSocketEngineOptions = CommonEngineOptions & SocketListenOptions & StorageOptions;
export type EngineOptions = StartEngineOptions | StartSocketEngineOptions;

interface EngineHandle {
  /** The connection string for the driver: mongodb://127.0.0.1:27017/ or mongodb://%2F...%2Fengine.sock/ */
  uri: string;
  /** Stops accepting, closes connections and cursors, flushes and closes storage; removes its socket. */
  close(): Promise<void>;
  /**
   * Resolves once the storage could not write to disk (a full disk): every
   * write is refused from then on (OutOfDiskSpace, 14031), reads are still
   * answered, and the engine has logged the cause. It takes writes again only
   * after a restart (which replays what was acknowledged). When its memory
   * could not be brought back to what the disk holds (a refused collection
   * or index change), the engine stops serving at once (closes) instead.
   */
  failed: Promise<Error>;
  /** After `failed`: whether the engine stays read-only until its disk has space again (else a restart is due at once). */
  waitsForSpace(): boolean;
  /**
   * After `failed`: resolves once a restart can take writes again: when the
   * data directory's disk has space again (polled each second) if
   * `waitsForSpace()`, else at once.
   */
  whenSpaceIsBack(): Promise<void>;
  /** Documents held and write-ahead log bytes on disk, now (read-only; for metrics). */
  stats(): EngineStats;
  /** Calls `listener` with each write-ahead log sync's duration in seconds (never, in memory); returns its removal. */
  onWalSync(listener: (seconds: number) => void): () => void;
}

export interface TcpEngine extends EngineHandle {
  host: string;
  port: number;
  socketPath?: undefined;
}

export interface SocketEngine extends EngineHandle {
  /** Absolute path of the socket file. */
  socketPath: string;
  host?: undefined;
  port?: undefined;
}

export type RunningEngine = TcpEngine | SocketEngine;

/** Name of the lmdb file inside dbPath (dbPath is a directory, as mongod's is). */
const DATA_FILE = 'engine.mdb';

export function startEngine(opts: StartSocketEngineOptions): Promise<SocketEngine>;
export function startEngine(opts: StartEngineOptions): Promise<TcpEngine>;
export function startEngine(opts: EngineOptions): Promise<RunningEngine>;
export async function startEngine(opts: EngineOptions): Promise<RunningEngine> {
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const dbPath = 'dbPath' in opts ? opts.dbPath : undefined;
  const { storage, lock } = openStorage(opts, log);
  const fsyncLock = new FsyncLock();
  const sweeper = startTtlSweeper(storage, { intervalMs: opts.ttlMonitorIntervalMs ?? 60_000, paused: () => fsyncLock.locked });
  const cursors = new CursorStore();
  // An insert into a capped collection wakes the tailable cursors awaiting data there.
  storage.onCappedInsert((db, coll) => cursors.insertedInto(`${db}.${coll}`));

  let server: WireServer | undefined;
  let socket: ClaimedSocketPath | undefined;
  const engine: EngineState = {
    storage,
    cursors,
    startedAt: new Date(),
    version: serverFacts.version,
    connections: () => server?.connectionCount() ?? 0,
    connectionsCreated: () => server?.connectionsCreated() ?? 0,
    ttlMonitor: sweeper,
    fsyncLock,
  };
  try {
    // Claimed after the dbPath lock: a socket file under dbPath is then known to be no other engine's.
    socket = opts.socket ? await claimSocketPath(opts.socket, dbPath) : undefined;
    const listen: ListenAt = socket ? { socketPath: socket.path } : { host: opts.host ?? '127.0.0.1', port: opts.port ?? 0 };
    server = await startWireServer({ listen, engine, dispatch: createDispatcher({ log }), log });
  } catch (err) {
    socket?.release();
    sweeper.stop();
    cursors.close();
    await storage.close();
    lock?.release();
    throw err;
  }

  const running = server;
  let failure: Error | undefined;
  const failed = storage.failed.then((error) => {
    failure = error;
    if (!mustStopNow(error)) {
      log(`engine: writing the data files failed: ${describeFailure(error)}`);
      return error;
    }
    log(`engine: writing the data files failed, and a refused change could not be taken back from memory: stopping at once (${describeFailure(error)})`);
    // Its reads would differ from the disk: no more answers; a restart reads the disk again.
    void close().catch(() => undefined);
    return error;
  });
  const waits = () => failure !== undefined && waitsForSpace(failure);
  const spaceBack = () => (dbPath === undefined || !waits() ? Promise.resolve() : whenSpaceIsBack(dbPath));
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      // Writes an fsync lock holds end now: the in-flight commands the server waits for must finish.
      fsyncLock.shutdown();
      await running.close();
      socket?.release();
      sweeper.stop();
      cursors.close();
      await storage.close();
      lock?.release();
    })();
    return closing;
  };
  const address = running.address;
  const observed = { stats: () => storage.stats(), onWalSync: (listener: (seconds: number) => void) => storage.onWalSync(listener) };
  if ('socketPath' in address) {
    return { uri: `mongodb://${encodeURIComponent(address.socketPath)}/`, socketPath: address.socketPath, close, failed, waitsForSpace: waits, whenSpaceIsBack: spaceBack, ...observed };
  }
  return { uri: `mongodb://${formatHost(address.host)}:${address.port}/`, host: address.host, port: address.port, close, failed, waitsForSpace: waits, whenSpaceIsBack: spaceBack, ...observed };
}

function openStorage(opts: StorageOptions, log: (line: string) => void): { storage: Storage; lock?: DbPathLock } {
  if ('inMemory' in opts && opts.inMemory) return { storage: createMemoryStorage() };
  const dbPath = (opts as { dbPath: string }).dbPath;
  // 0700 when the engine creates it: the data files hold everything, password hashes included.
  mkdirSync(dbPath, { recursive: true, mode: 0o700 });
  const lock = lockDbPath(dbPath);
  try {
    const dataFile = path.join(dbPath, DATA_FILE);
    const privateFiles = [dataFile, `${dataFile}-lock`];
    // Created 0600 before lmdb opens them (it would follow the umask, often 0644), and
    // tightened when they already exist: a DATA_DIR open to others must not expose the data.
    for (const file of privateFiles) if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
    const storage = openLmdbStorage(dataFile, { log });
    for (const file of privateFiles) chmodSync(file, 0o600);
    return { storage, lock };
  } catch (err) {
    lock.release();
    throw err;
  }
}

/**
 * Restores a backup made by the createBackup command into `dbPath` (absent
 * or empty; BackupRefused otherwise, or when the backup is incomplete or
 * damaged): an engine started there holds what the backup holds.
 */
export function restoreEngineBackup(backupDir: string, dbPath: string): Promise<BackupManifest> {
  return restoreBackup(backupDir, dbPath);
}

/** IPv6 literals need brackets in a URI. */
function formatHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}
