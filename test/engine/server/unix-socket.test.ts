import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { MongoClient } from 'mongodb';
import mongoose from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/database.js';
import { MAX_SOCKET_PATH_BYTES, startEngine, type SocketEngine } from '../../../src/engine/index.js';
import { exited } from '../../support/child-process.js';
import { listeningTcpPorts } from '../../support/listening-sockets.js';
import { buildEngineTree } from '../../support/test-build.js';

/**
 * The engine on a unix domain socket: the driver works through it, only this
 * user can open it (file 0600, directory 0700), no TCP port is opened, a stale
 * socket from a killed engine is replaced, and the socket goes away on close.
 */

let workDir: string;
const silent = () => {};

beforeAll(() => {
  workDir = mkdtempSync(path.join(os.tmpdir(), 'engine-socket-'));
});
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

const mode = (file: string) => statSync(file).mode & 0o777;

async function withClient<T>(uri: string, run: (client: MongoClient) => Promise<T>): Promise<T> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 5000 });
  try {
    await client.connect();
    return await run(client);
  } finally {
    await client.close();
  }
}

/** A socket file with no server behind it, as an engine killed with SIGKILL leaves one. */
async function leaveStaleSocket(file: string): Promise<void> {
  const script = `require('node:net').createServer().listen(${JSON.stringify(file)}, () => console.log('ready'))`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
  child.kill('SIGKILL');
  await exited(child);
  expect(statSync(file).isSocket()).toBe(true);
}

describe('an engine on its default socket under dbPath', () => {
  let dbPath: string;
  let engine: SocketEngine;
  let portsBefore: number[] | undefined;

  beforeAll(async () => {
    dbPath = path.join(workDir, 'data');
    portsBefore = listeningTcpPorts();
    engine = await startEngine({ dbPath, socket: {}, log: silent });
  });
  afterAll(() => engine.close());

  it('listens on dbPath/socket/engine.sock and gives the driver its percent-encoded path', () => {
    expect(engine.socketPath).toBe(path.join(dbPath, 'socket', 'engine.sock'));
    expect(engine.uri).toBe(`mongodb://${encodeURIComponent(engine.socketPath)}/`);
    expect(engine.port).toBeUndefined();
  });

  it('serves inserts, reads, updates and deletes through the real driver', async () => {
    await withClient(engine.uri, async (client) => {
      const menus = client.db('socket_test').collection('menus');
      await menus.insertMany([{ _id: 1 as never, name: 'lunch' }, { _id: 2 as never, name: 'dinner' }]);
      await menus.updateOne({ _id: 1 as never }, { $set: { name: 'brunch' } });
      await menus.deleteOne({ _id: 2 as never });
      expect(await menus.find().toArray()).toEqual([{ _id: 1, name: 'brunch' }]);
    });
  });

  it('makes the socket file 0600 and its directory 0700', () => {
    expect(statSync(engine.socketPath).isSocket()).toBe(true);
    expect(mode(engine.socketPath)).toBe(0o600);
    expect(mode(path.dirname(engine.socketPath))).toBe(0o700);
  });

  it('creates its dbPath 0700 and its data files 0600: they hold password hashes too', () => {
    expect([mode(dbPath), mode(path.join(dbPath, 'engine.mdb')), mode(path.join(dbPath, 'engine.mdb-lock'))]).toEqual([0o700, 0o600, 0o600]);
  });

  it('keeps its data files 0600 in an existing DATA_DIR open to others, tightening files left readable', async () => {
    const openDir = path.join(workDir, 'open-data-dir');
    mkdirSync(openDir, { mode: 0o755 });
    chmodSync(openDir, 0o755);
    const first = await startEngine({ dbPath: openDir, socket: {}, log: silent });
    await first.close();
    chmodSync(path.join(openDir, 'engine.mdb'), 0o644);
    const second = await startEngine({ dbPath: openDir, socket: {}, log: silent });
    try {
      await withClient(second.uri, async (client) => expect(await client.db('admin').command({ ping: 1 })).toEqual({ ok: 1 }));
      expect([mode(path.join(openDir, 'engine.mdb')), mode(path.join(openDir, 'engine.mdb-lock'))]).toEqual([0o600, 0o600]);
    } finally {
      await second.close();
    }
  });

  it('opens no TCP listener (a TCP engine in the same process is seen by the same check)', async () => {
    expect(portsBefore, 'reads /proc (Linux)').toBeDefined();
    expect(listeningTcpPorts()).toEqual(portsBefore);
    const tcp = await startEngine({ inMemory: true, port: 0, log: silent });
    try {
      expect(listeningTcpPorts()).toContain(tcp.port);
    } finally {
      await tcp.close();
    }
  });

  it('refuses a second engine on the same socket path while the first serves', async () => {
    await expect(startEngine({ inMemory: true, socket: { path: engine.socketPath }, log: silent })).rejects.toThrow(/in use by another server/);
    await withClient(engine.uri, async (client) => expect(await client.db('admin').command({ ping: 1 })).toEqual({ ok: 1 }));
  });
});

describe('socket life cycle', () => {
  it('removes the socket file on close and keeps the data for the next start', async () => {
    const dbPath = path.join(workDir, 'cycle');
    const first = await startEngine({ dbPath, socket: {}, log: silent });
    await withClient(first.uri, (client) => client.db('cycle').collection('c').insertOne({ kept: true }));
    await first.close();
    expect(existsSync(first.socketPath)).toBe(false);

    const second = await startEngine({ dbPath, socket: {}, log: silent });
    try {
      expect(second.socketPath).toBe(first.socketPath);
      const found = await withClient(second.uri, (client) => client.db('cycle').collection('c').findOne({}, { projection: { _id: 0 } }));
      expect(found).toEqual({ kept: true });
    } finally {
      await second.close();
    }
  });

  it('replaces a stale socket left by a killed process', async () => {
    const dbPath = path.join(workDir, 'stale');
    mkdirSync(path.join(dbPath, 'socket'), { recursive: true, mode: 0o700 });
    const file = path.join(dbPath, 'socket', 'engine.sock');
    await leaveStaleSocket(file);
    const engine = await startEngine({ dbPath, socket: {}, log: silent });
    try {
      expect(engine.socketPath).toBe(file);
      await withClient(engine.uri, async (client) => expect(await client.db('admin').command({ ping: 1 })).toEqual({ ok: 1 }));
    } finally {
      await engine.close();
    }
  });

  it('closes group and other access on its own socket directory', async () => {
    const dbPath = path.join(workDir, 'loose');
    mkdirSync(path.join(dbPath, 'socket'), { recursive: true });
    chmodSync(path.join(dbPath, 'socket'), 0o777);
    const engine = await startEngine({ dbPath, socket: {}, log: silent });
    try {
      expect(mode(path.dirname(engine.socketPath))).toBe(0o700);
    } finally {
      await engine.close();
    }
  });
});

describe('a dbPath too long for a socket path', () => {
  it('falls back to a private temporary directory, removed on close', async () => {
    const deep = path.join(workDir, 'd'.repeat(60), 'e'.repeat(60));
    expect(Buffer.byteLength(path.join(deep, 'socket', 'engine.sock'))).toBeGreaterThan(MAX_SOCKET_PATH_BYTES);
    const engine = await startEngine({ dbPath: deep, socket: {}, log: silent });
    const dir = path.dirname(engine.socketPath);
    try {
      expect(dir.startsWith(`${os.tmpdir()}${path.sep}`)).toBe(true);
      expect(mode(dir)).toBe(0o700);
      expect(mode(engine.socketPath)).toBe(0o600);
      await withClient(engine.uri, (client) => client.db('long').collection('c').insertOne({ ok: true }));
    } finally {
      await engine.close();
    }
    expect(existsSync(dir)).toBe(false);
  });

  it('refuses an explicit socket path that is too long, naming the limit', async () => {
    const file = path.join(workDir, 'x'.repeat(120), 'engine.sock');
    await expect(startEngine({ inMemory: true, socket: { path: file }, log: silent })).rejects.toThrow(
      new RegExp(`holds at most ${MAX_SOCKET_PATH_BYTES}`),
    );
  });
});

describe('an explicit socket path', () => {
  it('creates its directory 0700 and serves there', async () => {
    const file = path.join(workDir, 'explicit', 'my.sock');
    const engine = await startEngine({ inMemory: true, socket: { path: file }, log: silent });
    try {
      expect(engine.socketPath).toBe(file);
      expect(mode(path.dirname(file))).toBe(0o700);
      await withClient(engine.uri, async (client) => expect(await client.db('admin').command({ ping: 1 })).toEqual({ ok: 1 }));
    } finally {
      await engine.close();
    }
  });

  it('refuses a directory other users can enter, and leaves its mode alone', async () => {
    const dir = path.join(workDir, 'shared');
    mkdirSync(dir);
    chmodSync(dir, 0o755);
    await expect(startEngine({ inMemory: true, socket: { path: path.join(dir, 'e.sock') }, log: silent })).rejects.toThrow(
      /open to other users \(mode 755\)/,
    );
    expect(mode(dir)).toBe(0o755);
  });

  it('refuses a path the driver would not take for a socket (no .sock)', async () => {
    await expect(startEngine({ inMemory: true, socket: { path: path.join(workDir, 'explicit', 'engine') }, log: silent })).rejects.toThrow(
      /must end with \.sock/,
    );
  });

  it('refuses to replace a file that is not a socket, and keeps it', async () => {
    const file = path.join(workDir, 'explicit', 'notes.sock');
    writeFileSync(file, 'mine');
    await expect(startEngine({ inMemory: true, socket: { path: file }, log: silent })).rejects.toThrow(/is not a socket/);
    expect(statSync(file).isFile()).toBe(true);
  });
});

describe("openDatabase's embedded default (no MONGODB_URI)", () => {
  // The engine runs in a thread of its own, started from the built entry.
  let engineThreadEntry: URL;
  beforeAll(() => {
    engineThreadEntry = pathToFileURL(path.join(buildEngineTree(), 'src', 'engine', 'thread', 'engine-thread-entry.js'));
  }, 240_000);

  it('connects mongoose over a socket under DATA_DIR and opens no TCP port', async () => {
    const dataDir = path.join(workDir, 'service-data');
    const portsBefore = listeningTcpPorts();
    const logged: unknown[] = [];
    const logger = { info: (fields: unknown) => logged.push(fields) } as never;
    const database = await openDatabase({ dataDir, mongodbUri: null }, logger, undefined, engineThreadEntry);
    try {
      const socketPath = path.join(dataDir, 'socket', 'engine.sock');
      expect(database.uri).toBe(`mongodb://${encodeURIComponent(socketPath)}/`);
      expect(logged).toContainEqual({ embedded: true, engine: database.uri });
      await mongoose.connection.db!.collection('probe').insertOne({ through: 'socket' });
      expect(await mongoose.connection.db!.collection('probe').countDocuments()).toBe(1);
      expect(listeningTcpPorts()).toEqual(portsBefore);
    } finally {
      await database.close();
    }
  });
});
