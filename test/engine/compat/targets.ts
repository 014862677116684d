import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { startEngine } from '../../../src/engine/index.js';

/**
 * The servers a compat table runs against: always the engine, in memory and
 * on durable (lmdb) storage in a temporary directory; also a real MongoDB when
 * MONGO_COMPAT_URL is set, so the same expectations are checked against mongod.
 */
export interface CompatTarget {
  name: string;
  /** Starts (or reaches) the server; returns its URI and how to stop it. */
  start(): Promise<{ uri: string; close(): Promise<void> }>;
}

export function compatTargets(): CompatTarget[] {
  const targets: CompatTarget[] = [
    {
      name: 'engine',
      start: async () => {
        const engine = await startEngine({ inMemory: true, port: 0 });
        return { uri: engine.uri, close: () => engine.close() };
      },
    },
    {
      name: 'engine-lmdb',
      start: async () => {
        const dir = mkdtempSync(path.join(tmpdir(), 'engine-compat-'));
        const engine = await startEngine({ dbPath: dir, port: 0 });
        return {
          uri: engine.uri,
          close: async () => {
            await engine.close();
            rmSync(dir, { recursive: true, force: true });
          },
        };
      },
    },
  ];
  const url = process.env.MONGO_COMPAT_URL;
  if (url) targets.push({ name: 'mongod', start: async () => ({ uri: url, close: async () => {} }) });
  return targets;
}

/** A connected client and its target, for tests that need more than one case table. */
export async function connectTarget(target: CompatTarget): Promise<{ client: MongoClient; close(): Promise<void> }> {
  const server = await target.start();
  const client = await new MongoClient(server.uri).connect();
  return {
    client,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}
