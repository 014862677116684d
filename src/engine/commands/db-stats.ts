import { statfsSync } from 'node:fs';
import type { Document } from '../query/types.js';
import { databaseTotals, scaleParam } from './storage-stats.js';
import type { CommandHandler } from './types.js';

/** dbStats (`db.stats()`): counts and sizes of the database's collections, views and indexes. */
export const dbStatsCommand: CommandHandler = {
  name: 'dbStats',
  aliases: ['dbstats'],
  help: 'database statistics: {dbStats: 1, scale: <n>, freeStorage: <bool>}',
  handle(body, ctx) {
    const scale = scaleParam(body.scale);
    const t = databaseTotals(ctx.engine.storage, ctx.db);
    const scaled = (bytes: number): number => bytes / scale;
    const reply: Document = {
      db: ctx.db,
      collections: t.collections,
      views: t.views,
      objects: t.objects,
      avgObjSize: t.objects === 0 ? 0 : t.dataSize / t.objects,
      dataSize: scaled(t.dataSize),
      storageSize: scaled(t.storageSize),
      indexes: t.indexes,
      indexSize: scaled(t.indexSize),
      totalSize: scaled(t.storageSize + t.indexSize),
      scaleFactor: scale,
    };
    Object.assign(reply, fileSystemSizes(scale));
    return reply;
  },
};

/** fsUsedSize/fsTotalSize of the file system the process runs from (mongod: its dbPath's). */
function fileSystemSizes(scale: number): Document {
  try {
    const fs = statfsSync(process.cwd());
    const total = fs.blocks * fs.bsize;
    return { fsUsedSize: (total - fs.bfree * fs.bsize) / scale, fsTotalSize: total / scale };
  } catch {
    return {};
  }
}
