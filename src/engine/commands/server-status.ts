import os from 'node:os';
import { Long } from 'bson';
import { serverFacts, storageEngineName } from '../standalone/index.js';
import { opcountersOf } from './operation-tracker.js';
import type { CommandHandler } from './types.js';

const MB = 1024 * 1024;

export const serverStatusCommand: CommandHandler = {
  name: 'serverStatus',
  aliases: ['serverstatus'],
  help: 'process, connection, memory and engine statistics',
  handle(_body, ctx) {
    const { engine } = ctx;
    const uptimeMs = Date.now() - engine.startedAt.getTime();
    const current = engine.connections();
    const memory = process.memoryUsage();
    const storage = engine.storage;
    const databases = storage.databases();
    return {
      host: os.hostname(),
      version: engine.version,
      process: 'mongod',
      pid: Long.fromNumber(process.pid),
      uptime: Math.floor(uptimeMs / 1000),
      uptimeMillis: Long.fromNumber(uptimeMs),
      uptimeEstimate: Long.fromNumber(Math.floor(uptimeMs / 1000)),
      localTime: new Date(),
      connections: {
        current,
        available: serverFacts.maxIncomingConnections - current,
        totalCreated: engine.connectionsCreated(),
      },
      opcounters: opcountersOf(engine),
      mem: { bits: 64, resident: Math.round(memory.rss / MB), virtual: Math.round(memory.rss / MB), supported: true },
      storageEngine: { name: storageEngineName(storage.durable), persistent: storage.durable },
      engine: {
        durable: storage.durable,
        databases: databases.length,
        collections: databases.reduce((sum, db) => sum + storage.collections(db).length, 0),
        openCursors: engine.cursors.size,
        heapUsedMB: Math.round(memory.heapUsed / MB),
      },
    };
  },
};
