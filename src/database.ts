import mongoose from 'mongoose';
import type { AppConfig } from './config.js';
import type { EngineOptions, RunningEngine } from './engine/index.js';
import { startEngineThread, type EngineThread, type EngineThreadOptions } from './engine/thread/index.js';
import type { Logger } from './logger.js';
import { traceDatabaseCommands } from './shared/index.js';

export interface Database {
  /** The connection string in use (engine or MONGODB_URI). */
  uri: string;
  /** Disconnects mongoose, then stops the engine when we started it. */
  close(): Promise<void>;
  /** Resolves once the embedded engine can no longer write its files (a full disk); never with MONGODB_URI. */
  failed: Promise<Error>;
  /** After `failed`: whether the engine stays read-only until its disk has space again (else a restart is due at once). */
  waitsForSpace(): boolean;
  /** After `failed`: resolves once a restart can take writes again (the engine's disk has space again, or at once). */
  whenSpaceIsBack(): Promise<void>;
  /** The embedded engine's read-only observation (metrics); null with MONGODB_URI. */
  engine: Pick<EngineThread, 'stats' | 'onWalSync'> | null;
}

/** Database name used when the URI names none (always, for the embedded engine). */
export const DEFAULT_DB_NAME = 'admin_gateway';

export async function startEmbeddedEngine(options: EngineOptions): Promise<RunningEngine> {
  // Loaded on demand: with MONGODB_URI the engine (and lmdb) stays out of the process.
  const { startEngine } = await import('./engine/index.js');
  return startEngine(options);
}

/**
 * MONGODB_URI when set, else the embedded engine on DATA_DIR; then mongoose
 * connects and every model's collection and indexes exist before the first request.
 * The embedded engine has no authentication, so by default it listens on a unix
 * socket only this user can open (DATA_DIR/socket/engine.sock, or a private temp
 * directory when that path is too long), never on a TCP port. It runs in a
 * worker thread of its own (engine/thread/): its work does not wait behind
 * the requests' on the thread that answers them, nor theirs behind its.
 * `engineThreadEntry`: the built thread entry, for a test that runs from the sources.
 */
export async function openDatabase(
  config: Pick<AppConfig, 'mongodbUri' | 'dataDir'> & Partial<Pick<AppConfig, 'tracing'>>,
  logger: Logger,
  engineOptions: EngineThreadOptions = { dbPath: config.dataDir, socket: {} },
  engineThreadEntry?: URL,
): Promise<Database> {
  const engine = config.mongodbUri ? null : await startEngineThread(engineOptions, engineThreadEntry);
  const uri = config.mongodbUri ?? engine!.uri;
  try {
    await connectMongoose(uri, undefined, { traced: Boolean(config.tracing?.endpoint) });
  } catch (err) {
    await engine?.close();
    throw err;
  }
  // The engine's URI is a socket path or a loopback port, never a credential; MONGODB_URI may hold one.
  logger.info(engine ? { embedded: true, engine: engine.uri } : { embedded: false }, 'database connected');
  return {
    uri,
    engine,
    failed: engine?.failed ?? new Promise<never>(() => undefined),
    waitsForSpace: () => engine?.waitsForSpace() ?? false,
    whenSpaceIsBack: () => engine?.whenSpaceIsBack() ?? Promise.resolve(),
    async close() {
      await mongoose.disconnect();
      await engine?.close();
    },
  };
}

/**
 * How the service notices the database going and coming back. A heartbeat
 * every second (the driver's default is 10 s): within about a second of an
 * outage new requests get 503 at once (http/use-database-gate.ts), and within
 * about a second of its return they are served again (while every request is
 * refused, nothing asks the driver for an earlier check). An operation caught
 * in flight waits at most one heartbeat in mongoose's buffer (default 10 s,
 * several times over for a request of several operations), or one for a
 * server in the driver's server selection (default 30 s), before it is a 503.
 */
export const OUTAGE_TIMINGS = { heartbeatFrequencyMS: 1000, bufferTimeoutMS: 1000, serverSelectionTimeoutMS: 1000 };

/** How long start-up waits for the database to answer: its first server selection is tried again until then. */
const STARTUP_WAIT_MS = 10_000;

export interface ConnectOptions {
  /**
   * A span per database command of a request (shared/traced-commands.ts), when tracing is
   * on: the driver reports commands only on connections opened with `monitorCommands`.
   */
  traced?: boolean;
}

export async function connectMongoose(uri: string, dbName = uriDatabase(uri) ?? DEFAULT_DB_NAME, options: ConnectOptions = {}): Promise<void> {
  mongoose.set('strictQuery', true);
  mongoose.set('sanitizeFilter', true); // a `$`-keyed filter value matches literally unless marked mongoose.trusted
  const deadline = Date.now() + STARTUP_WAIT_MS;
  for (;;) {
    try {
      await mongoose.connect(uri, { dbName, ...OUTAGE_TIMINGS, monitorCommands: options.traced === true });
      break;
    } catch (err) {
      // A database still starting (a container beside ours) gets the whole start-up wait, not one selection's.
      if (!(err instanceof mongoose.mongo.MongoServerSelectionError) || Date.now() >= deadline) throw err;
    }
  }
  if (options.traced) traceDatabaseCommands(mongoose.connection.getClient());
  await Promise.all(Object.values(mongoose.models).map((model) => model.init()));
}

function uriDatabase(uri: string): string | undefined {
  return /^mongodb(?:\+srv)?:\/\/[^/]+\/([^?]+)/.exec(uri)?.[1];
}
