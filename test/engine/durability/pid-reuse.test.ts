import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEngine } from '../../../src/engine/index.js';
import { buildEngineCli, exited, startEngineProcess } from './engine-process.js';

/**
 * A crashed engine restarts when the new process has the dead one's pid, as
 * PID 1 of a container has on every start: a lock naming our own pid, which
 * this process did not take, is stale (issue 27, item 6).
 */
describe('durability: the dbPath lock of a dead process that had our pid', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'engine-pid-reuse-'));
    dirs.push(dir);
    return dir;
  };
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  const holderPid = (dbPath: string) => readFileSync(path.join(dbPath, 'engine.lock'), 'utf8').split('\n')[0];

  // The lock file: the pid, then (from /proc) the process's start time; an earlier process with our pid started at another time.
  it.each([
    ['our own pid alone', `${process.pid}\n`],
    ['our own pid and another start time', `${process.pid}\n12345\n`],
  ])('takes over a lock file that names %s', async (_name, lock) => {
    const dbPath = tempDir();
    writeFileSync(path.join(dbPath, 'engine.lock'), lock);
    const engine = await startEngine({ dbPath, port: 0 });
    try {
      expect(holderPid(dbPath)).toBe(String(process.pid));
      // Our own pid on a lock this process holds still means in use.
      await expect(startEngine({ dbPath, port: 0 })).rejects.toThrow(/in use by process/);
    } finally {
      await engine.close();
    }
  });

  it('still refuses a lock that names another running process', async () => {
    const dbPath = tempDir();
    writeFileSync(path.join(dbPath, 'engine.lock'), `${process.ppid}\n`);
    await expect(startEngine({ dbPath, port: 0 })).rejects.toThrow(`in use by process ${process.ppid}`);
  });

  // PID 1 of a fresh PID namespace each start, as in a container; needs root and unshare.
  const UNSHARE = ['unshare', '--pid', '--fork', '--mount-proc', '--kill-child=SIGKILL'];
  const namespaces = process.getuid?.() === 0 && spawnSync(UNSHARE[0], [...UNSHARE.slice(1), 'true']).status === 0;
  if (!namespaces) console.warn('pid-reuse: skipping the PID-namespace run (needs root and unshare --pid --fork)');

  it.runIf(namespaces)('restarts as PID 1 of a new PID namespace after a SIGKILL as PID 1', async () => {
    const cli = buildEngineCli();
    const dbPath = tempDir();
    const first = await startEngineProcess(cli, dbPath, 0, UNSHARE);
    expect(holderPid(dbPath)).toBe('1');
    // unshare killed: its child (the engine, PID 1 inside) gets SIGKILL, leaving the lock behind.
    first.child.kill('SIGKILL');
    await exited(first.child);
    const second = await startEngineProcess(cli, dbPath, 0, UNSHARE);
    try {
      expect(second.uri).toMatch(/^mongodb:\/\//);
    } finally {
      second.child.kill('SIGKILL');
      await exited(second.child);
    }
  }, 60_000);
});
