import { MAX_BSON_OBJECT_SIZE, MAX_MESSAGE_SIZE } from '../wire/index.js';

/**
 * What the engine claims to be, in one place: hello, buildInfo, serverStatus
 * and getParameter all read it. We claim a standalone mongod 7.0 (wire
 * version 21): below 25 the driver keeps using insert/update/delete rather
 * than the client-level bulkWrite command.
 */
export const serverFacts = {
  version: '7.0.0',
  versionArray: [7, 0, 0, 0],
  featureCompatibilityVersion: '7.0',
  gitVersion: 'embedded-engine',
  minWireVersion: 0,
  maxWireVersion: 21,
  maxBsonObjectSize: MAX_BSON_OBJECT_SIZE,
  maxMessageSizeBytes: MAX_MESSAGE_SIZE,
  maxWriteBatchSize: 100_000,
  logicalSessionTimeoutMinutes: 30,
  /** Advertised as connections.available in serverStatus. */
  maxIncomingConnections: 1_000_000,
} as const;

/** Names of the storage implementation, as serverStatus.storageEngine reports it. */
export function storageEngineName(durable: boolean): string {
  return durable ? 'lmdb' : 'inMemory';
}
