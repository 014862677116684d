import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, watch } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exited, runNode, type NodeRun } from '../support/child-process.js';
import { buildService, childEnv, startService, stopService, type ServiceBuild, type ServiceProcess } from '../support/service-process.js';
import { signIn, tryCall, userBody } from './reliability.js';
import { missingWrites, raceForEmail, startWriteLoad, type WriteLoad } from './write-load.js';

/**
 * Online backups of the embedded engine, through the CLI, against the real
 * service process: backup #1 runs under a REST write load and holds every
 * write acknowledged before it began; backup #2 is cut short by SIGKILL of
 * the service (the engine writes the backup) and is refused by restore;
 * backup #1 restored into a new data directory serves every one of those
 * writes, with the unique email index agreeing with the documents.
 */

const ADMIN = { email: 'backup-admin@example.com', password: `B4ckup-${randomBytes(6).toString('hex')}!` };
const JWT_SECRET = randomBytes(32).toString('hex');
const MANIFEST = 'backup-manifest.json';

let build: ServiceBuild;
let workDir: string;
let service: ServiceProcess | undefined;

beforeAll(() => {
  build = buildService();
  workDir = mkdtempSync(path.join(os.tmpdir(), 'online-backup-'));
}, 180_000);

afterAll(async () => {
  if (service) await stopService(service);
  rmSync(workDir, { recursive: true, force: true });
});

const dir = (name: string) => path.join(workDir, name);

function env(dataDir: string): Record<string, string> {
  return { NODE_ENV: 'development', PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, JWT_SECRET, LOG_LEVEL: 'info' };
}

function cli(args: string[], dataDir: string): Promise<NodeRun> {
  return runNode(build.cli, args, { env: childEnv({ NODE_ENV: 'development', DATA_DIR: dataDir, JWT_SECRET }), cwd: workDir });
}

/** Resolves once `name` appears in `folder` (the engine has begun writing the backup there). */
function appears(folder: string, name: string): Promise<void> {
  return new Promise((resolve) => {
    const watcher = watch(folder, () => {
      if (!existsSync(path.join(folder, name))) return;
      watcher.close();
      resolve();
    });
    if (existsSync(path.join(folder, name))) {
      watcher.close();
      resolve();
    }
  });
}

describe('backup and restore of the embedded engine while the service takes writes', () => {
  const before = { menus: [] as string[], users: [] as { id: string; email: string }[] };
  let load: WriteLoad;
  let session: { token: string; adminId: string };

  it('backup #1 completes under a write load, which goes on meanwhile', async () => {
    service = await startService(build.index, env(dir('data')), workDir);
    session = await signIn(service.baseUrl, ADMIN);
    load = startWriteLoad({ baseUrl: service.baseUrl, token: session.token, adminId: session.adminId, tag: 'b', stopOnFailure: true });
    await load.untilAcknowledged(300);

    // Every write answered before the backup command was sent.
    before.menus = [...load.menus];
    before.users = [...load.users];
    const backup = await cli(['backup', dir('backup-1')], dir('data'));
    expect(backup.stderr).toBe('');
    expect(backup.code).toBe(0);
    const reply = JSON.parse(backup.stdout.trim().split('\n').at(-1)!);
    expect(reply).toMatchObject({ backupDir: dir('backup-1'), files: [{ name: 'engine.mdb' }] });
    expect(readdirSync(dir('backup-1')).sort()).toEqual(['backup-manifest.json', 'engine.mdb']);
    // Writers were not held back for the backup's length.
    const acknowledgedSince = load.menus.length + load.users.length - (before.menus.length + before.users.length);
    expect(acknowledgedSince).toBeGreaterThan(0);
    expect(load.refusals).toEqual([]);
    const size = statSync(path.join(dir('backup-1'), 'engine.mdb')).size;
    console.info(
      `backup #1: ${before.menus.length + before.users.length} writes acknowledged before it, ${acknowledgedSince} during the CLI run; ` +
        `${Math.round(size / 1024)} KiB in ${Date.parse(reply.finishedAt) - Date.parse(reply.startedAt)} ms in the engine`,
    );
  }, 180_000);

  it('backup refuses a directory that is not empty, with the service running', async () => {
    const again = await cli(['backup', dir('backup-1')], dir('data'));
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`Refusing to back up into ${dir('backup-1')}: it exists and is not an empty directory`);
  }, 60_000);

  it('backup #2 is cut short by SIGKILL of the service: no manifest, and the CLI says the backup failed', async () => {
    mkdirSync(dir('backup-2'));
    const started = appears(dir('backup-2'), 'engine.mdb');
    const backup = cli(['backup', dir('backup-2')], dir('data'));
    await started;
    service!.child.kill('SIGKILL');
    await exited(service!.child);
    service = undefined;
    await load.done;

    const { code, stderr } = await backup;
    expect(existsSync(path.join(dir('backup-2'), MANIFEST)), 'the backup finished before the kill reached the service').toBe(false);
    expect(code).toBe(1);
    expect(stderr).toContain('The backup failed');
  }, 120_000);

  it('restore refuses the incomplete backup #2, leaving the data directory untouched', async () => {
    const restore = await cli(['restore', dir('backup-2'), '--data-dir', dir('from-backup-2')], dir('data'));
    expect(restore.code).toBe(1);
    expect(restore.stderr).toContain(`Refusing to restore: ${dir('backup-2')} is not a complete backup: it has no ${MANIFEST}`);
    expect(existsSync(dir('from-backup-2'))).toBe(false);
  }, 60_000);

  it('with no service running, backup opens DATA_DIR itself (the killed service left its lock and socket); an empty DATA_DIR has nothing to back up', async () => {
    const offline = await cli(['backup', dir('backup-3')], dir('data'));
    expect(offline.stderr).toBe('');
    expect(offline.code).toBe(0);
    expect(readdirSync(dir('backup-3')).sort()).toEqual(['backup-manifest.json', 'engine.mdb']);

    const nothing = await cli(['backup', dir('backup-4')], dir('no-data'));
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toContain(`Nothing to back up: no engine answers on ${path.join(dir('no-data'), 'socket', 'engine.sock')} and ${dir('no-data')} holds no engine data`);
    expect(existsSync(dir('no-data'))).toBe(false);
  }, 60_000);

  it('restore of backup #1 into a new data directory serves every write acknowledged before it began, its indexes agreeing', async () => {
    const restore = await cli(['restore', dir('backup-1')], dir('restored'));
    expect(restore.stderr).toBe('');
    expect(restore.code).toBe(0);
    // Never over existing data.
    const over = await cli(['restore', dir('backup-1')], dir('restored'));
    expect(over.code).toBe(1);
    expect(over.stderr).toContain(`The data directory ${dir('restored')} is not empty`);

    service = await startService(build.index, env(dir('restored')), workDir);
    const { token, adminId } = await signIn(service.baseUrl, ADMIN);
    expect(before.menus.length + before.users.length).toBeGreaterThanOrEqual(300);
    expect(await missingWrites(service.baseUrl, token, before)).toEqual([]);
    // The unique email index holds every restored user: creating one again is a conflict...
    for (const { email } of before.users.slice(0, 5)) {
      const duplicate = await tryCall(service.baseUrl, 'POST', '/api/v1/access-control/users', { body: userBody(email, adminId), token });
      expect(duplicate?.status).toBe(409);
    }
    // ...and takes new ones, once each.
    expect(await raceForEmail(service.baseUrl, token, adminId, 'after-restore@example.com')).toEqual([201, 409, 409, 409]);
    expect(await stopService(service)).toBe(0);
    service = undefined;
  }, 180_000);
});
