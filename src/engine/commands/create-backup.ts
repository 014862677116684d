import { mongoError } from '../errors.js';
import type { CommandHandler } from './types.js';

/**
 * createBackup: an online backup of every database into an empty directory,
 * as Percona Server for MongoDB's hot backup takes it
 * (`{createBackup: 1, backupDir: <absolute path>}` on admin). The engine
 * writes it itself (storage/backup.ts): one point in time, holding every
 * write acknowledged before the command began; writes go on meanwhile. The
 * directory gets a manifest last: one without it is an incomplete backup.
 * Percona's `archive` and `s3` destinations are not supported.
 */
export const createBackupCommand: CommandHandler = {
  name: 'createBackup',
  help: 'online backup of every database: {createBackup: 1, backupDir: <absolute path of a new or empty directory>} on admin',
  async handle(body, ctx) {
    if (ctx.db !== 'admin') throw mongoError('Unauthorized', 'createBackup may only be run against the admin database.');
    if (body.archive !== undefined || body.s3 !== undefined) throw mongoError('CommandNotSupported', 'createBackup writes into backupDir only (archive and s3 are not supported)');
    const dir = body.backupDir;
    if (typeof dir !== 'string' || dir === '') throw mongoError('InvalidPath', 'Destination path must be absolute');
    const manifest = await ctx.engine.storage.backup(dir);
    return { backupDir: dir, startedAt: manifest.startedAt, finishedAt: manifest.finishedAt, files: manifest.files.map(({ name, bytes }) => ({ name, bytes })) };
  },
};
