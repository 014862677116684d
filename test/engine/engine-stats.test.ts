import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { afterEach, describe, expect, it } from 'vitest';
import { startEngine } from '../../src/engine/index.js';

/**
 * The engine's read-only observation (the service's metrics read it):
 * documents held, write-ahead log bytes on disk, and each log sync's
 * duration, on disk and in memory.
 */
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The bytes of the log segments beside the lmdb file, as the directory holds them now. */
function segmentBytes(dbPath: string): number {
  return readdirSync(dbPath)
    .filter((name) => name.includes('.wal-'))
    .reduce((sum, name) => sum + (statSync(path.join(dbPath, name), { throwIfNoEntry: false })?.size ?? 0), 0);
}

describe('engine stats', () => {
  it('on disk: counts documents, sees the log on disk and times each sync', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'engine-stats-'));
    dirs.push(dir);
    const dbPath = path.join(dir, 'data');
    const engine = await startEngine({ dbPath, port: 0, log: () => undefined });
    const client = new MongoClient(engine.uri);
    const syncs: number[] = [];
    const stop = engine.onWalSync((seconds) => syncs.push(seconds));
    try {
      const menus = client.db('app').collection<{ _id: number }>('menus');
      let sawLog = false;
      // A checkpoint removes the segments it holds every 100 ms: one of these reads finds one before it does.
      for (let i = 0; i < 20 && !sawLog; i++) {
        await menus.insertOne({ _id: i }, { writeConcern: { w: 1, j: true } });
        const { walBytes } = engine.stats();
        sawLog = walBytes > 0 && walBytes <= segmentBytes(dbPath) + 1_000_000;
      }
      expect(sawLog).toBe(true);
      await client.db('other').collection('x').insertMany([{ a: 1 }, { a: 2 }]);
      const inserted = await menus.countDocuments();
      expect(engine.stats().documents).toBe(inserted + 2);
      // Each `j: true` write waited for a sync, which the listener was told of.
      expect(syncs.length).toBeGreaterThanOrEqual(1);
      expect(syncs.every((seconds) => seconds >= 0 && seconds < 60)).toBe(true);
      const told = syncs.length;
      stop();
      await menus.insertOne({ _id: 1000 }, { writeConcern: { w: 1, j: true } });
      expect(syncs.length).toBe(told);
    } finally {
      await client.close();
      await engine.close();
    }
  });

  it('in memory: documents, and no log', async () => {
    const engine = await startEngine({ inMemory: true, port: 0, log: () => undefined });
    const client = new MongoClient(engine.uri);
    try {
      await client.db('app').collection('menus').insertMany([{ a: 1 }, { a: 2 }, { a: 3 }]);
      expect(engine.stats()).toEqual({ documents: 3, walBytes: 0 });
    } finally {
      await client.close();
      await engine.close();
    }
  });
});
