import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { MongoClient } from 'mongodb';
import type { AppConfig } from './config.js';
import { startEmbeddedEngine } from './database.js';

/**
 * `backup <dir>` and `restore <dir>` of the embedded engine (no MONGODB_URI).
 * A backup is the engine's own (its createBackup command, storage/backup.ts):
 * the engine holding DATA_DIR writes it, one point in time while writes go on.
 * The CLI asks the service's engine over its unix socket (DATA_DIR/socket/engine.sock);
 * when no service runs, it starts the engine on DATA_DIR itself for the backup.
 */
export const backupUsage = `  npm run cli -- backup <dir>
      Online backup of every database of the embedded engine (DATA_DIR) into <dir>,
      which must not exist or be empty; the service may run and take writes meanwhile.
  npm run cli -- restore <dir> [--data-dir <dir>]
      Restores a complete backup into DATA_DIR (or --data-dir), which must not exist
      or be empty; a backup without its manifest, or not matching it, is refused.`;

/** Exit codes: 0 done, 1 refused or failed (the message says why), 2 bad usage. */
export async function runBackupCommand(command: 'backup' | 'restore', argv: string[], config: Pick<AppConfig, 'mongodbUri' | 'dataDir'>): Promise<number> {
  let parsed: { values: { 'data-dir'?: string }; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv, options: { 'data-dir': { type: 'string' } }, allowPositionals: true, strict: true });
  } catch (err) {
    console.error(`${(err as Error).message}\n${backupUsage}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 1 || positionals[0] === '' || (command === 'backup' && values['data-dir'] !== undefined)) {
    console.error(backupUsage);
    return 2;
  }
  const target = path.resolve(positionals[0]!);
  if (command === 'restore') return restore(target, path.resolve(values['data-dir'] ?? config.dataDir));
  if (config.mongodbUri) {
    console.error('backup covers the embedded engine only: with MONGODB_URI set, back up that server with its own tools (mongodump, or a snapshot of its volume)');
    return 1;
  }
  if (!isAbsentOrEmpty(target)) {
    console.error(`Refusing to back up into ${target}: it exists and is not an empty directory (a backup goes into a new or empty one)`);
    return 1;
  }
  return backup(target, path.resolve(config.dataDir));
}

async function backup(target: string, dataDir: string): Promise<number> {
  const socket = path.join(dataDir, 'socket', 'engine.sock');
  let client = await connectIfServing(`mongodb://${encodeURIComponent(socket)}/`);
  let engine: Awaited<ReturnType<typeof startEmbeddedEngine>> | undefined;
  if (!client) {
    if (!existsSync(path.join(dataDir, 'engine.mdb'))) {
      console.error(`Nothing to back up: no engine answers on ${socket} and ${dataDir} holds no engine data`);
      return 1;
    }
    // No engine answers on DATA_DIR's socket: this process runs it for the backup (the lock refuses if one holds DATA_DIR elsewhere).
    try {
      engine = await startEmbeddedEngine({ dbPath: dataDir, socket: {}, log: () => undefined });
    } catch (err) {
      console.error(`No engine answers on ${socket}, and DATA_DIR cannot be opened here: ${(err as Error).message}`);
      return 1;
    }
    client = await MongoClient.connect(engine.uri, { serverSelectionTimeoutMS: 5_000 });
  }
  try {
    const reply = await client.db('admin').command({ createBackup: 1, backupDir: target });
    console.log(JSON.stringify({ backupDir: reply.backupDir, startedAt: reply.startedAt, finishedAt: reply.finishedAt, files: reply.files }));
    return 0;
  } catch (err) {
    console.error(`The backup failed: ${(err as Error).message}`);
    return 1;
  } finally {
    await client.close();
    await engine?.close();
  }
}

/** A client of the engine serving `uri`, or undefined when none answers there (no service runs on DATA_DIR). */
async function connectIfServing(uri: string): Promise<MongoClient | undefined> {
  try {
    // A command of any length: the backup takes as long as copying the data file.
    return await MongoClient.connect(uri, { serverSelectionTimeoutMS: 2_000 });
  } catch {
    return undefined;
  }
}

async function restore(backupDir: string, dataDir: string): Promise<number> {
  const { BackupRefused, restoreEngineBackup } = await import('./engine/index.js');
  try {
    const manifest = await restoreEngineBackup(backupDir, dataDir);
    console.log(JSON.stringify({ restoredInto: dataDir, backupStartedAt: manifest.startedAt, files: manifest.files.map(({ name, bytes }) => ({ name, bytes })) }));
    return 0;
  } catch (err) {
    if (!(err instanceof BackupRefused)) throw err;
    console.error(`Refusing to restore: ${err.message}`);
    return 1;
  }
}

function isAbsentOrEmpty(dir: string): boolean {
  try {
    return readdirSync(dir).length === 0;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT';
  }
}
