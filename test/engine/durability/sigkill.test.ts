import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEngineCli, exited, startEngineProcess, type EngineProcess } from './engine-process.js';

/**
 * Every write the engine acknowledged survives kill -9 of the engine
 * process, and so do the catalog and the indexes.
 */
describe('durability: acknowledged writes survive SIGKILL', () => {
  const KILL_AFTER = 150;
  let cli: string;
  let dbPath: string;
  const acknowledged: number[] = [];
  let restarted: EngineProcess;
  let client: MongoClient;

  beforeAll(async () => {
    cli = buildEngineCli();
    dbPath = mkdtempSync(path.join(os.tmpdir(), 'engine-sigkill-'));

    const first = await startEngineProcess(cli, dbPath);
    const writer = new MongoClient(first.uri, { serverSelectionTimeoutMS: 1500, connectTimeoutMS: 1500 });
    const users = writer.db('app').collection<{ _id: number; email: string }>('users');
    await users.createIndex({ email: 1 }, { unique: true });
    for (let i = 0; i < KILL_AFTER * 4; i++) {
      // Kill while the next insert is already on the wire.
      const pending = users.insertOne({ _id: i, email: `user${i}@example.com` }, { writeConcern: { w: 1, j: true } });
      if (i === KILL_AFTER) first.child.kill('SIGKILL');
      try {
        await pending;
        acknowledged.push(i);
      } catch {
        break;
      }
    }
    await exited(first.child);
    await writer.close(true);

    restarted = await startEngineProcess(cli, dbPath);
    client = new MongoClient(restarted.uri, { serverSelectionTimeoutMS: 5000 });
  }, 120_000);

  afterAll(async () => {
    await client?.close();
    restarted?.child.kill('SIGTERM');
    if (restarted) await exited(restarted.child);
    rmSync(dbPath, { recursive: true, force: true });
  });

  it('acknowledged inserts up to the kill', () => {
    expect(acknowledged.length).toBeGreaterThanOrEqual(KILL_AFTER);
  });

  it('was killed in the middle of the stream', () => {
    expect(acknowledged.length).toBeLessThan(KILL_AFTER * 4);
  });

  it('finds every acknowledged document after a restart', async () => {
    const ids = await client.db('app').collection('users').distinct('_id');
    expect(ids).toEqual(expect.arrayContaining(acknowledged));
  });

  it('keeps the unique index in the catalog', async () => {
    const indexes = await client.db('app').collection('users').listIndexes().toArray();
    expect(indexes).toContainEqual(expect.objectContaining({ name: 'email_1', key: { email: 1 }, unique: true }));
  });

  it('still enforces the unique index', async () => {
    const error = await client.db('app').collection<{ _id: number; email: string }>('users').insertOne({ _id: -1, email: 'user0@example.com' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 11000 });
  });

  it('shuts down cleanly with exit code 0 on SIGTERM', async () => {
    const spare = await startEngineProcess(cli, mkdtempSync(path.join(os.tmpdir(), 'engine-sigterm-')));
    spare.child.kill('SIGTERM');
    expect(await exited(spare.child)).toBe(0);
  });
});
