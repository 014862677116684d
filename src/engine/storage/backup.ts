import { createHash } from 'node:crypto';
import { copyFileSync, createReadStream, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { mongoError } from '../errors.js';

/**
 * An online backup of the durable storage: a directory holding a consistent
 * copy of the lmdb file (lmdb's own copy, made inside one read transaction
 * after a checkpoint that holds every change reported before the backup
 * began) and, written last, a manifest naming each file with its size and
 * sha256. A directory without the manifest, or whose files do not match it,
 * is an incomplete backup (the engine stopped during the copy): restore
 * refuses it.
 */
export const BACKUP_MANIFEST = 'backup-manifest.json';
const FORMAT = 'engine-backup/1';

export interface BackupManifest {
  format: typeof FORMAT;
  /** When the backup began: it holds every write acknowledged before then. */
  startedAt: string;
  finishedAt: string;
  files: Array<{ name: string; bytes: number; sha256: string }>;
}

/** `dir` must be absolute (as Percona's createBackup asks) and absent or empty; it is created 0700. */
export function prepareBackupDir(dir: string): void {
  if (!dir.startsWith('/')) throw mongoError('InvalidPath', 'Destination path must be absolute');
  let entries: string[] | undefined;
  try {
    entries = readdirSync(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR') throw mongoError('InvalidPath', `Destination ${dir} is not a directory`);
    if (code !== 'ENOENT') throw err;
  }
  if (entries !== undefined && entries.length > 0) throw mongoError('InvalidPath', `Destination directory ${dir} is not empty: a backup goes into a new or empty directory`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/** Syncs the copied files, then writes the manifest (synced, renamed into place): the backup is complete from then on. */
export async function finishBackup(dir: string, files: string[], startedAt: Date): Promise<BackupManifest> {
  const listed: BackupManifest['files'] = [];
  for (const file of files) {
    await syncFile(file);
    listed.push({ name: basename(file), bytes: statSync(file).size, sha256: await sha256Of(file) });
  }
  const manifest: BackupManifest = { format: FORMAT, startedAt: startedAt.toISOString(), finishedAt: new Date().toISOString(), files: listed };
  const temporary = join(dir, `${BACKUP_MANIFEST}.tmp`);
  writeFileSync(temporary, `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
  await syncFile(temporary);
  renameSync(temporary, join(dir, BACKUP_MANIFEST));
  await syncFile(dir);
  return manifest;
}

export class BackupRefused extends Error {}

/** Reads the manifest and checks every file it names (size, sha256); throws BackupRefused saying what is wrong. */
export async function verifyBackup(dir: string): Promise<BackupManifest> {
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(readFileSync(join(dir, BACKUP_MANIFEST), 'utf8')) as BackupManifest;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      throw new BackupRefused(`${dir} is not a complete backup: it has no ${BACKUP_MANIFEST} (the backup did not finish, or this is not a backup directory)`);
    }
    throw new BackupRefused(`${dir} is not a complete backup: its ${BACKUP_MANIFEST} cannot be read (${(err as Error).message})`);
  }
  if (manifest?.format !== FORMAT || !Array.isArray(manifest.files) || manifest.files.length === 0) {
    throw new BackupRefused(`${dir}/${BACKUP_MANIFEST} is not a manifest this engine knows (format ${String(manifest?.format)}, expected ${FORMAT})`);
  }
  for (const { name, bytes, sha256 } of manifest.files) {
    const file = join(dir, basename(name));
    let size: number;
    try {
      size = statSync(file).size;
    } catch {
      throw new BackupRefused(`${dir} is not a complete backup: ${name} is missing`);
    }
    if (size !== bytes || (await sha256Of(file)) !== sha256) {
      throw new BackupRefused(`${dir} is damaged: ${name} does not match its checksum in ${BACKUP_MANIFEST}`);
    }
  }
  return manifest;
}

/**
 * Copies a verified backup's files into `dbPath`, which must be absent or
 * empty (a restore never mixes with other data), each synced before the
 * call returns; files are created 0600 in a 0700 directory, as the engine's own.
 */
export async function restoreBackup(backupDir: string, dbPath: string): Promise<BackupManifest> {
  const manifest = await verifyBackup(backupDir);
  let entries: string[] = [];
  try {
    entries = readdirSync(dbPath);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (entries.length > 0) throw new BackupRefused(`The data directory ${dbPath} is not empty: a backup is restored only into a new or empty directory`);
  mkdirSync(dbPath, { recursive: true, mode: 0o700 });
  for (const { name } of manifest.files) {
    const target = join(dbPath, basename(name));
    copyFileSync(join(backupDir, basename(name)), target);
    await syncFile(target);
  }
  await syncFile(dbPath);
  return manifest;
}

/** Off the event loop: syncing a large copy takes a while, and the engine serves writes meanwhile. */
async function syncFile(file: string): Promise<void> {
  const handle = await open(file, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
