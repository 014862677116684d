import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEngineCli, exited, startEngineProcess, type EngineProcess } from './engine-process.js';

/**
 * An engine that runs out of file descriptors (connections held open) can
 * open no new write-ahead log segment: the writes wait and are acknowledged
 * once descriptors are free again, and the engine takes writes as before,
 * without a restart (issue 27, item 7: every later write failed with
 * EMFILE until a restart, and SIGTERM then exited 1).
 */
describe('durability: running out of file descriptors', () => {
  const DESCRIPTORS = 100;
  let dbPath: string;
  let engine: EngineProcess;
  let client: MongoClient;
  const held: Socket[] = [];

  beforeAll(async () => {
    const cli = buildEngineCli();
    dbPath = mkdtempSync(path.join(os.tmpdir(), 'engine-emfile-'));
    engine = await startEngineProcess(cli, dbPath, 0, ['bash', '-c', `ulimit -n ${DESCRIPTORS} && exec "$0" "$@"`]);
    client = new MongoClient(engine.uri, { maxPoolSize: 1, serverSelectionTimeoutMS: 20_000 });
    await client.db('app').collection('menus').insertOne({ _id: 'before' } as never);
  }, 120_000);

  afterAll(async () => {
    held.forEach((socket) => socket.destroy());
    await client?.close(true);
    if (engine && engine.child.exitCode === null) {
      engine.child.kill('SIGKILL');
      await exited(engine.child);
    }
    rmSync(dbPath, { recursive: true, force: true });
  });

  /** Opens connections to the engine until it has no descriptor left (it then closes new ones at once). */
  async function exhaustDescriptors(): Promise<void> {
    for (let i = 0; i < DESCRIPTORS * 2; i++) {
      const socket = connect(engine.port, '127.0.0.1');
      socket.on('error', () => undefined);
      await new Promise((resolve) => socket.once('connect', resolve).once('close', resolve));
      held.push(socket);
    }
    // Accepted ones stay; the ones the engine could not keep are closed by now.
    await new Promise((resolve) => setTimeout(resolve, 300));
  }

  it('acknowledges a write made while out of descriptors once they are freed, and keeps taking writes', async () => {
    const menus = client.db('app').collection<{ _id: string }>('menus');
    // A checkpoint (every 100 ms) has rotated the log since the first write: the next write needs a new segment file.
    await new Promise((resolve) => setTimeout(resolve, 400));
    await exhaustDescriptors();
    let settled: 'acknowledged' | Error | undefined;
    const during = menus.insertOne({ _id: 'during' }).then(
      () => (settled = 'acknowledged'),
      (err: Error) => (settled = err),
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    // Not refused while out of descriptors: it waits for one.
    expect(settled instanceof Error ? settled.message : settled).toBeUndefined();

    held.splice(0).forEach((socket) => socket.destroy());
    await during;
    expect(settled).toBe('acknowledged');
    await menus.insertOne({ _id: 'after' });
    expect((await menus.find().toArray()).map((menu) => menu._id).sort()).toEqual(['after', 'before', 'during']);
  });

  it('then exits 0 on SIGTERM, its log checkpointed', async () => {
    await client.close();
    engine.child.kill('SIGTERM');
    expect(await exited(engine.child)).toBe(0);
    expect(readdirSync(dbPath).filter((name) => name.includes('.wal-'))).toEqual([]);
  });
});
