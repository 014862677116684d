import type { CursorStore } from '../cursors/index.js';
import type { Predicate } from '../query/index.js';
import type { Document } from '../query/types.js';
import type { TtlSweeper } from '../storage/index.js';
import type { Storage } from '../storage/types.js';
import type { FsyncLock } from './fsync-lock.js';

/** Per-connection facts a command may need (hello, connectionStatus, cursors). */
export interface ConnectionInfo {
  id: number;
  remoteAddress: string;
  /** Client metadata from the first hello/isMaster. */
  client?: Document;
}

/** Process-wide engine state shared by all connections. */
export interface EngineState {
  storage: Storage;
  /** Open cursors of all connections (find/aggregate/listCollections/listIndexes). */
  cursors: CursorStore;
  startedAt: Date;
  /** Number of open client connections. */
  connections(): number;
  /** Client connections accepted since start (serverStatus totalCreated). */
  connectionsCreated(): number;
  /** Version string reported by buildInfo/hello (what we claim to be). */
  version: string;
  /** The TTL monitor, which setParameter's ttlMonitorSleepSecs and ttlMonitorEnabled steer (absent: nothing to steer). */
  ttlMonitor?: Pick<TtlSweeper, 'setSleepSeconds' | 'sleepSeconds' | 'setEnabled'>;
  /** db.fsyncLock()'s hold on writes (fsync-lock.ts); made on first use when absent. */
  fsyncLock?: FsyncLock;
  /** Set only while some database profiles (profiler.ts): the dispatcher's one check at level 0. */
  profiling?: ProfileSettings;
}

/** The profiler's settings (profiler.ts): per database the level and filter, slowms and sampleRate for all. */
export interface ProfileSettings {
  slowms: number;
  sampleRate: number;
  /** Databases with a level or a filter set. */
  databases: Map<string, DatabaseProfile>;
}

export interface DatabaseProfile {
  level: number;
  filter?: Document;
  matches?: Predicate;
}

export interface CommandContext {
  engine: EngineState;
  connection: ConnectionInfo;
  /** `$db` of the message. */
  db: string;
}

/**
 * One wire command. `body` is the OP_MSG kind-0 document with every kind-1
 * sequence merged in as an array field (e.g. `documents`, `updates`), or the
 * OP_QUERY query document. The handler returns the reply body WITHOUT `ok`
 * (the dispatcher adds `ok: 1`), or throws a MongoCommandError.
 */
export interface CommandHandler {
  /** Canonical name, as the first key of the body (e.g. "findAndModify"). */
  name: string;
  /** Other spellings accepted as the first key (e.g. "ismaster", "isMaster"). */
  aliases?: string[];
  help: string;
  handle(body: Document, ctx: CommandContext): Promise<Document> | Document;
}
