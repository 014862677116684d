import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEngineCli, exited } from '../durability/engine-process.js';

/** `npm run engine -- ...` validates its arguments before starting anything. */
describe('engine command line', () => {
  let cli: string;
  beforeAll(() => {
    cli = buildEngineCli();
  }, 120_000);

  const run = (...args: string[]) => spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', timeout: 20_000 });

  it('requires --dbpath or --in-memory', () => {
    const result = run('--port', '0');
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('--dbpath <dir> is required');
  });

  it('rejects a port outside 0-65535', () => {
    const result = run('--port', '70000', '--in-memory');
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('--port must be an integer from 0 to 65535');
  });

  it('rejects --dbpath together with --in-memory', () => {
    const result = run('--dbpath', '/tmp/x', '--in-memory');
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('not both');
  });

  it('rejects an unknown option', () => {
    const result = run('--in-memory', '--bogus');
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('bogus');
  });

  it('rejects --port or --host together with --socket', () => {
    const result = run('--in-memory', '--socket', '--port', '1234');
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('give no --port or --host with them');
  });
});

interface RunningCli {
  child: ChildProcess;
  uri: string;
  stderr(): string;
}

/** Starts the engine command and resolves with the URI of its "engine listening on" line. */
function startCli(cli: string, args: string[]): Promise<RunningCli> {
  const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const uri = /engine listening on (mongodb:\/\/\S+)/.exec(stdout)?.[1];
      if (uri) resolve({ child, uri, stderr: () => stderr });
    });
    child.once('exit', (code) => reject(new Error(`engine exited with ${code} before listening: ${stdout}${stderr}`)));
  });
}

async function ping(uri: string): Promise<unknown> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 5000 });
  try {
    return await client.db('admin').command({ ping: 1 });
  } finally {
    await client.close();
  }
}

/** The engine has no authentication: the command says what it is exposed to. */
describe('engine command line: exposure', () => {
  let cli: string;
  let workDir: string;
  const running: ChildProcess[] = [];
  beforeAll(() => {
    cli = buildEngineCli();
    workDir = mkdtempSync(path.join(os.tmpdir(), 'engine-cli-'));
  }, 120_000);
  afterAll(async () => {
    for (const child of running) {
      child.kill('SIGKILL');
      await exited(child);
    }
    rmSync(workDir, { recursive: true, force: true });
  });
  const start = async (...args: string[]) => {
    const started = await startCli(cli, args);
    running.push(started.child);
    return started;
  };

  it('on TCP (the default) warns that anyone on the machine can read and write all data', async () => {
    const engine = await start('--in-memory', '--port', '0');
    expect(engine.uri).toMatch(/^mongodb:\/\/127\.0\.0\.1:\d+\/$/);
    expect(engine.stderr()).toMatch(/WARNING: no authentication; any process of any user on this machine can connect to port \d+ and read and write all data/);
    expect(engine.stderr()).toContain('Use --socket');
    engine.child.kill('SIGTERM');
    expect(await exited(engine.child)).toBe(0);
  });

  describe('--socket', () => {
    const dbPath = () => path.join(workDir, 'data');
    const socketFile = () => path.join(dbPath(), 'socket', 'engine.sock');

    it('listens on dbPath/socket/engine.sock, 0600, and says only this user can connect', async () => {
      const engine = await start('--dbpath', dbPath(), '--socket');
      expect(engine.uri).toBe(`mongodb://${encodeURIComponent(socketFile())}/`);
      expect(statSync(socketFile()).mode & 0o777).toBe(0o600);
      expect(engine.stderr()).toContain(`listening only on the unix socket ${socketFile()}`);
      expect(engine.stderr()).toContain('only this user (and root) can connect');
      expect(await ping(engine.uri)).toEqual({ ok: 1 });

      // Killed: the socket file stays behind...
      engine.child.kill('SIGKILL');
      await exited(engine.child);
      expect(statSync(socketFile()).isSocket()).toBe(true);
    });

    it('starts again over the socket a killed engine left, and removes it on SIGTERM', async () => {
      const engine = await start('--dbpath', dbPath(), '--socket');
      expect(await ping(engine.uri)).toEqual({ ok: 1 });
      engine.child.kill('SIGTERM');
      expect(await exited(engine.child)).toBe(0);
      expect(existsSync(socketFile())).toBe(false);
    });

    it('--socket-path puts the socket where asked', async () => {
      const file = path.join(workDir, 'private', 'tool.sock');
      const engine = await start('--in-memory', '--socket-path', file);
      expect(engine.uri).toBe(`mongodb://${encodeURIComponent(file)}/`);
      expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
      expect(await ping(engine.uri)).toEqual({ ok: 1 });
      engine.child.kill('SIGTERM');
      expect(await exited(engine.child)).toBe(0);
    });
  });
});
