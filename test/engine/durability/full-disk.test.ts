import { MongoClient } from 'mongodb';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mountSmallDisk } from '../../support/small-disk.js';
import { buildEngineCli, exited, startEngineProcess, type EngineProcess } from './engine-process.js';

/**
 * The standalone engine (`npm run engine -- --dbpath`) on a small tmpfs that
 * fills up: the write that meets the full disk is refused with
 * OutOfDiskSpace (14031), as is every later one, while reads are answered;
 * once the disk has space again it stops, having named the cause, with exit
 * 1; a restart finds every acknowledged write and none of the refused.
 */
const disk = mountSmallDisk(16 * 1024);
const skipped = typeof disk === 'string' ? disk : undefined;
if (skipped) console.warn(`full-disk engine test skipped: ${skipped}`);

describe.skipIf(skipped !== undefined)('the standalone engine on a full disk', () => {
  const smallDisk = disk as Exclude<typeof disk, string>;
  let engine: EngineProcess | undefined;
  let client: MongoClient | undefined;

  afterAll(async () => {
    await client?.close().catch(() => undefined);
    if (engine && engine.child.exitCode === null) {
      engine.child.kill('SIGKILL');
      await exited(engine.child);
    }
    smallDisk.unmount();
  });

  it('refuses writes with 14031 from the one that meets it, reads on, exits 1 once space is back; a restart has every acknowledged write', async () => {
    const cli = buildEngineCli();
    const dbPath = path.join(smallDisk.dir, 'db');
    engine = await startEngineProcess(cli, dbPath);
    client = new MongoClient(engine.uri, { serverSelectionTimeoutMS: 5_000 });
    const menus = client.db('app').collection<{ _id: number; text: string }>('menus');
    await menus.insertOne({ _id: 0, text: 'first' });
    const acknowledged = [0];
    smallDisk.fill(256 * 1024);

    let refusal: unknown;
    for (let n = 1; n < 2000 && refusal === undefined; n++) {
      try {
        await menus.insertOne({ _id: n, text: 'x'.repeat(16 * 1024) });
        acknowledged.push(n);
      } catch (err) {
        refusal = err;
      }
    }
    expect(refusal).toMatchObject({ code: 14031, codeName: 'OutOfDiskSpace' });
    await expect(menus.insertOne({ _id: -1, text: 'later' })).rejects.toMatchObject({ code: 14031 });
    expect((await menus.find({}, { projection: { _id: 1 } }).toArray()).map((doc) => doc._id).sort((a, b) => a - b)).toEqual(acknowledged);
    expect(engine.child.exitCode).toBeNull();

    smallDisk.free();
    expect(await exited(engine.child)).toBe(1);
    expect(engine.output()).toMatch(/engine: writing the data files failed: the disk of the data directory is full/);
    expect(engine.output()).not.toMatch(/corrupted size|Unhandled|uncaught/i);
    await client.close();

    engine = await startEngineProcess(cli, dbPath);
    client = new MongoClient(engine.uri, { serverSelectionTimeoutMS: 5_000 });
    const ids = (await client.db('app').collection<{ _id: number }>('menus').find({}, { projection: { _id: 1 } }).toArray()).map((doc) => doc._id);
    expect(ids.sort((a, b) => a - b)).toEqual(acknowledged);
  }, 120_000);
});
