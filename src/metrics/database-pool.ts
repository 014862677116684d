import mongoose from 'mongoose';

/** The driver's connection pool as metrics read it: its connections now, and the waits since observed. */
export interface DatabasePoolObservation {
  connections(): { used: number; idle: number; waiting: number };
  waits(): { checkouts: number; seconds: number; timeouts: number };
  close(): void;
}

/** What this module reads of a pool (the driver's ConnectionPool getters). */
interface PoolCounts {
  totalConnectionCount: number;
  currentCheckedOutCount: number;
  waitQueueSize: number;
}

/**
 * The pool of the process's mongoose connection: connection counts read at
 * scrape from the driver's pools (one per server; the driver gives no public
 * total, so its topology's servers are read), and checkout waits summed by
 * the pool's events (`durationMS`), which cost a few additions per database
 * command. The listeners go with `close()`.
 */
export function observeDatabasePool(connection: mongoose.Connection = mongoose.connection): DatabasePoolObservation {
  const waits = { checkouts: 0, seconds: 0, timeouts: 0 };
  const client = clientOf(connection);
  const checkedOut = (event: { durationMS?: number }) => {
    waits.checkouts += 1;
    waits.seconds += (event.durationMS ?? 0) / 1000;
  };
  const failed = (event: { reason?: string }) => {
    if (event.reason === 'timeout') waits.timeouts += 1;
  };
  client?.on('connectionCheckedOut', checkedOut);
  client?.on('connectionCheckOutFailed', failed);
  return {
    connections() {
      let used = 0;
      let total = 0;
      let waiting = 0;
      for (const pool of poolsOf(clientOf(connection))) {
        used += pool.currentCheckedOutCount;
        total += pool.totalConnectionCount;
        waiting += pool.waitQueueSize;
      }
      return { used, idle: Math.max(0, total - used), waiting };
    },
    waits: () => waits,
    close() {
      client?.off('connectionCheckedOut', checkedOut);
      client?.off('connectionCheckOutFailed', failed);
    },
  };
}

function clientOf(connection: mongoose.Connection): mongoose.mongo.MongoClient | undefined {
  try {
    return connection.getClient();
  } catch {
    return undefined;
  }
}

/** The pools of the client's known servers (internal to the driver, pinned in package.json; none when not connected). */
function poolsOf(client: mongoose.mongo.MongoClient | undefined): PoolCounts[] {
  const servers = (client as unknown as { topology?: { s?: { servers?: Map<string, { pool?: PoolCounts }> } } } | undefined)?.topology?.s?.servers;
  if (!servers) return [];
  const pools: PoolCounts[] = [];
  for (const server of servers.values()) if (server.pool) pools.push(server.pool);
  return pools;
}
