import { optionalBool, optionalDocument } from '../params/index.js';
import { compileFilter } from '../query/index.js';
import type { Storage } from '../storage/types.js';
import { databaseTotals } from './storage-stats.js';
import type { CommandHandler } from './types.js';

/**
 * Databases that hold at least one collection, with sizeOnDisk as dbStats
 * estimates it (whole pages of data and index entries), so a database with
 * collections is never reported as empty.
 */

export const listDatabasesCommand: CommandHandler = {
  name: 'listDatabases',
  help: 'databases with their (estimated) sizes; nameOnly and filter are supported',
  handle(body, ctx) {
    const nameOnly = optionalBool(body, 'listDatabases', 'nameOnly') ?? false;
    const filter = optionalDocument(body, 'listDatabases', 'filter');
    const matches = filter ? compileFilter(filter) : () => true;
    const infos = ctx.engine.storage
      .databases()
      .map((name) => describe(ctx.engine.storage, name))
      .filter((info) => matches(info));
    if (nameOnly) return { databases: infos.map(({ name }) => ({ name })) };
    const totalSize = infos.reduce((sum, info) => sum + info.sizeOnDisk, 0);
    return { databases: infos, totalSize, totalSizeMb: Math.floor(totalSize / (1024 * 1024)) };
  },
};

function describe(storage: Storage, name: string): { name: string; sizeOnDisk: number; empty: boolean } {
  const totals = databaseTotals(storage, name);
  const sizeOnDisk = totals.storageSize + totals.indexSize;
  return { name, sizeOnDisk, empty: storage.collections(name).length === 0 };
}
