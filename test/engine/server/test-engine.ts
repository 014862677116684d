import { MongoClient } from 'mongodb';
import { startEngine, type TcpEngine } from '../../../src/engine/index.js';

/** An in-memory engine on an ephemeral port whose log lines are kept for assertions. */
export interface TestEngine {
  engine: TcpEngine;
  logs: string[];
  /** A connected driver client, closed by `stop()`. */
  client(options?: ConstructorParameters<typeof MongoClient>[1]): Promise<MongoClient>;
  stop(): Promise<void>;
}

export async function startTestEngine(): Promise<TestEngine> {
  const logs: string[] = [];
  const engine = await startEngine({ inMemory: true, port: 0, log: (line) => logs.push(line) });
  const clients: MongoClient[] = [];
  return {
    engine,
    logs,
    async client(options) {
      const client = new MongoClient(engine.uri, { serverSelectionTimeoutMS: 5000, ...options });
      clients.push(client);
      await client.connect();
      return client;
    },
    async stop() {
      await Promise.all(clients.map((c) => c.close()));
      await engine.close();
    },
  };
}
