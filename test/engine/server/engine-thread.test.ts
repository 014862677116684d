import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import mongoose from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/database.js';
import { startEngineThread } from '../../../src/engine/thread/index.js';
import { ROOT, buildEngineTree } from '../../support/test-build.js';

/**
 * The service's embedded engine runs in a worker thread (src/engine/thread/):
 * it answers while the service's own thread is busy, its figures reach the
 * service's thread, and a thread that cannot start is a clear start-up error.
 */

let workDir: string;
let entry: URL;
const logger = { info: () => undefined } as never;

beforeAll(() => {
  workDir = mkdtempSync(path.join(os.tmpdir(), 'engine-thread-'));
  entry = pathToFileURL(path.join(buildEngineTree(), 'src', 'engine', 'thread', 'engine-thread-entry.js'));
}, 240_000);
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

/** Pings `uri` from another process until it is killed; prints the time of each answer (ms since the epoch). */
function pingFromAnotherProcess(uri: string) {
  const script = `
    const { MongoClient } = require('mongodb');
    const client = new MongoClient(process.argv[1], { serverSelectionTimeoutMS: 5000 });
    (async () => {
      await client.connect();
      console.log('ready');
      for (;;) { await client.db('admin').command({ ping: 1 }); console.log(Date.now()); }
    })();`;
  const child = spawn(process.execPath, ['-e', script, uri], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: string[] = [];
  let partial = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const text = partial + chunk.toString();
    const parts = text.split('\n');
    partial = parts.pop()!;
    lines.push(...parts);
  });
  const ready = new Promise<void>((resolve) => {
    const check = setInterval(() => {
      if (lines.includes('ready')) {
        clearInterval(check);
        resolve();
      }
    }, 20);
  });
  return { ready, answersBetween: (from: number, to: number) => lines.map(Number).filter((t) => t >= from && t <= to).length, stop: () => child.kill() };
}

describe('the embedded engine in its own thread', () => {
  it("answers other clients while the service's thread is blocked", async () => {
    const database = await openDatabase({ dataDir: path.join(workDir, 'blocked'), mongodbUri: null }, logger, undefined, entry);
    const pinger = pingFromAnotherProcess(database.uri);
    try {
      await pinger.ready;
      await new Promise((resolve) => setTimeout(resolve, 200));
      // This thread does nothing else for 1.5 s: an engine on it could answer nobody meanwhile.
      const from = Date.now();
      while (Date.now() - from < 1500);
      const to = Date.now();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(pinger.answersBetween(from + 100, to - 100)).toBeGreaterThan(10);
    } finally {
      pinger.stop();
      await database.close();
    }
  });

  it("gives its figures to the service's thread: documents and each WAL sync", async () => {
    const database = await openDatabase({ dataDir: path.join(workDir, 'figures'), mongodbUri: null }, logger, undefined, entry);
    try {
      const syncs: number[] = [];
      database.engine!.onWalSync((seconds) => syncs.push(seconds));
      const before = (await database.engine!.stats()).documents;
      await mongoose.connection.db!.collection('probe').insertMany([{ n: 1 }, { n: 2 }, { n: 3 }]);
      await expect.poll(() => syncs.length, { timeout: 5000 }).toBeGreaterThan(0);
      expect([(await database.engine!.stats()).documents - before, syncs.every((s) => s >= 0 && s < 60)]).toEqual([3, true]);
    } finally {
      await database.close();
    }
  });

  it('refuses to start, saying why, when its thread cannot run', async () => {
    await expect(startEngineThread({ inMemory: true, port: 0 }, new URL('./no-such-entry.js', entry))).rejects.toThrow(/Cannot find module|no-such-entry/);
  });

  it('refuses to start, with the engine\'s reason, on a data directory another engine holds', async () => {
    const dbPath = path.join(workDir, 'held');
    const first = await startEngineThread({ dbPath, port: 0 }, entry);
    try {
      await expect(startEngineThread({ dbPath, port: 0 }, entry)).rejects.toThrow(/lock|in use|another/i);
    } finally {
      await first.close();
    }
  });
});
