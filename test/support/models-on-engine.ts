import mongoose from 'mongoose';
import { afterAll, beforeAll } from 'vitest';
import { connectMongoose, startEmbeddedEngine } from '../../src/database.js';

/**
 * The service's own models (mongoose's default connection) on an in-memory
 * engine, database `dbName`, from `beforeAll` to `afterAll` of the file that
 * calls it: for tests that call a service or a model without HTTP.
 */
export function serviceModelsOnEngine(dbName: string): void {
  let engine: Awaited<ReturnType<typeof startEmbeddedEngine>> | undefined;
  beforeAll(async () => {
    engine = await startEmbeddedEngine({ inMemory: true, port: 0 });
    await connectMongoose(engine.uri, dbName);
  });
  afterAll(async () => {
    await mongoose.disconnect();
    await engine?.close();
  });
}
