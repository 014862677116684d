import mongoose, { type Connection } from 'mongoose';
import { afterAll, beforeAll } from 'vitest';
import { startEngine, type RunningEngine } from '../../../src/engine/index.js';

/**
 * A mongoose connection to `dbName` on an in-memory engine, open from
 * `beforeAll` to `afterAll` of the file or `describe` that calls it: what a
 * test of mongoose models on the engine needs.
 *
 * The connection is returned at once and opened in `beforeAll`, so models can
 * be declared on it anywhere; hooks run in the order they are registered, so
 * a `beforeAll` declared after this call (seeding, indexes) finds it open.
 */
export function mongooseOnEngine(dbName: string): Connection {
  const conn = mongoose.createConnection();
  let engine: RunningEngine | undefined;
  beforeAll(async () => {
    engine = await startEngine({ inMemory: true, port: 0 });
    await conn.openUri(engine.uri, { dbName });
  });
  afterAll(async () => {
    await conn.close();
    await engine?.close();
  });
  return conn;
}
