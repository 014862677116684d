import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient, MongoServerError } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKUP_MANIFEST, BackupRefused, restoreEngineBackup, startEngine, type RunningEngine } from '../../../src/engine/index.js';

/**
 * The engine's createBackup command (Percona Server for MongoDB's hot backup
 * shape) and the restore of what it wrote: one point in time holding every
 * acknowledged write, taken while writes go on; an incomplete or damaged
 * backup, or a data directory in use, is refused. The service-level proof
 * (CLI, write load, SIGKILL mid-backup) is test/reliability/online-backup.test.ts.
 */
describe('engine: createBackup and restore', () => {
  let workDir: string;
  let engine: RunningEngine;
  let client: MongoClient;

  beforeAll(async () => {
    workDir = mkdtempSync(path.join(os.tmpdir(), 'engine-backup-'));
    engine = await startEngine({ dbPath: path.join(workDir, 'data'), port: 0 });
    client = await new MongoClient(engine.uri).connect();
  });

  afterAll(async () => {
    await client?.close();
    await engine?.close();
    rmSync(workDir, { recursive: true, force: true });
  });

  const admin = () => client.db('admin');
  const dir = (name: string) => path.join(workDir, name);
  const codeOf = (run: Promise<unknown>) =>
    run.then(
      () => 'ok',
      (err: unknown) => (err instanceof MongoServerError ? `${err.code} ${err.codeName}` : String(err)),
    );

  it('refuses another database than admin, a relative or missing path, and a directory that is not empty', async () => {
    mkdirSync(dir('full'));
    writeFileSync(path.join(dir('full'), 'x'), 'x');
    expect(await codeOf(client.db('app').command({ createBackup: 1, backupDir: dir('a') }))).toBe('13 Unauthorized');
    expect(await codeOf(admin().command({ createBackup: 1, backupDir: 'relative/dir' }))).toBe('30 InvalidPath');
    expect(await codeOf(admin().command({ createBackup: 1 }))).toBe('30 InvalidPath');
    expect(await codeOf(admin().command({ createBackup: 1, backupDir: dir('full') }))).toBe('30 InvalidPath');
    expect(await codeOf(admin().command({ createBackup: 1, archive: dir('a.tar') }))).toBe('115 CommandNotSupported');
  });

  it('an in-memory engine has nothing to back up', async () => {
    const memory = await startEngine({ inMemory: true, port: 0 });
    const memoryClient = await new MongoClient(memory.uri).connect();
    try {
      expect(await codeOf(memoryClient.db('admin').command({ createBackup: 1, backupDir: dir('memory') }))).toBe('115 CommandNotSupported');
    } finally {
      await memoryClient.close();
      await memory.close();
    }
  });

  it('backs up every database while writes go on; the restored copy holds every write acknowledged before, with its indexes', async () => {
    const users = client.db('app').collection<{ _id: number; email: string }>('users');
    const menus = client.db('other').collection<{ _id: number; n: number }>('menus');
    await users.createIndex({ email: 1 }, { unique: true });
    await users.insertMany(Array.from({ length: 500 }, (_, i) => ({ _id: i, email: `u${i}@example.com` })));
    await menus.insertMany(Array.from({ length: 500 }, (_, i) => ({ _id: i, n: i })));

    // Acknowledged from the write-ahead log, lmdb has it only after a checkpoint: the backup must take one.
    await users.insertOne({ _id: 500, email: 'last-before@example.com' });
    let writing = true;
    let written = 0;
    const writer = (async () => {
      while (writing) await menus.insertOne({ _id: 1_000 + written++, n: -1 });
    })();
    const reply = await admin().command({ createBackup: 1, backupDir: dir('backup') });
    writing = false;
    await writer;
    expect(reply).toMatchObject({ ok: 1, backupDir: dir('backup'), files: [{ name: 'engine.mdb' }] });
    expect(written).toBeGreaterThan(0);

    const manifest = await restoreEngineBackup(dir('backup'), dir('restored'));
    expect(manifest.files.map((file) => file.name)).toEqual(['engine.mdb']);
    const restored = await startEngine({ dbPath: dir('restored'), port: 0 });
    const restoredClient = await new MongoClient(restored.uri).connect();
    try {
      const restoredUsers = restoredClient.db('app').collection<{ _id: number; email: string }>('users');
      expect(await restoredUsers.countDocuments()).toBe(501);
      expect(await restoredUsers.findOne({ email: 'last-before@example.com' })).toEqual({ _id: 500, email: 'last-before@example.com' });
      const restoredMenus = restoredClient.db('other').collection<{ _id: number; n: number }>('menus');
      expect(await restoredMenus.countDocuments({ n: { $gte: 0 } })).toBe(500);
      // One point in time: of the inserts made one after another during the backup, a prefix.
      const during = (await restoredMenus.find({ n: -1 }).sort({ _id: 1 }).toArray()).map((menu) => menu._id);
      expect(during).toEqual(Array.from({ length: during.length }, (_, i) => 1_000 + i));
      expect(during.length).toBeLessThanOrEqual(written);
      // The unique index is there and agrees with the documents.
      expect((await restoredUsers.indexes()).map((index) => index.name)).toEqual(['_id_', 'email_1']);
      expect(await restoredUsers.findOne({ email: 'u42@example.com' })).toEqual({ _id: 42, email: 'u42@example.com' });
      expect(await codeOf(restoredUsers.insertOne({ _id: 9_999, email: 'u7@example.com' }))).toContain('11000');
    } finally {
      await restoredClient.close();
      await restored.close();
    }
  });

  it('refuses to restore an incomplete or damaged backup, or into a data directory that is not empty', async () => {
    const refusal = (run: Promise<unknown>) =>
      run.then(
        () => 'restored',
        (err: unknown) => (err instanceof BackupRefused ? err.message : `not a refusal: ${String(err)}`),
      );
    await admin().command({ createBackup: 1, backupDir: dir('second') });
    expect(await refusal(restoreEngineBackup(dir('second'), dir('restored')))).toBe(
      `The data directory ${dir('restored')} is not empty: a backup is restored only into a new or empty directory`,
    );

    const data = path.join(dir('second'), 'engine.mdb');
    const bytes = readFileSync(data);
    bytes[bytes.length - 1] ^= 0xff;
    writeFileSync(data, bytes);
    expect(await refusal(restoreEngineBackup(dir('second'), dir('from-damaged')))).toBe(
      `${dir('second')} is damaged: engine.mdb does not match its checksum in ${BACKUP_MANIFEST}`,
    );

    rmSync(path.join(dir('second'), BACKUP_MANIFEST));
    expect(await refusal(restoreEngineBackup(dir('second'), dir('from-incomplete')))).toBe(
      `${dir('second')} is not a complete backup: it has no ${BACKUP_MANIFEST} (the backup did not finish, or this is not a backup directory)`,
    );
  });
});
