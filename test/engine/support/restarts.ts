import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { afterEach } from 'vitest';
import { startEngine } from '../../../src/engine/index.js';

export interface Restarts {
  /** A fresh lmdb dbPath (not yet created: the engine creates it, as mongod's dbpath is a directory), removed after the test. */
  dbPath(): string;
  /** An engine started on `dbPath` with a connected client for the time of `run`, then closed: each call is one restart. */
  withClient<T>(dbPath: string, run: (client: MongoClient) => Promise<T>, options?: { ttlMonitorIntervalMs?: number }): Promise<T>;
}

/** What a test of durability across clean restarts needs; call it inside a `describe`. */
export function restarts(prefix: string): Restarts {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return {
    dbPath() {
      const dir = mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
      dirs.push(dir);
      return path.join(dir, 'data');
    },
    async withClient(dbPath, run, options = {}) {
      const engine = await startEngine({ ...options, dbPath, port: 0 });
      const client = new MongoClient(engine.uri);
      try {
        return await run(client);
      } finally {
        await client.close();
        await engine.close();
      }
    },
  };
}
