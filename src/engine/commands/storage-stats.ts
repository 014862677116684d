import { mongoError } from '../errors.js';
import type { Document } from '../query/types.js';
import { isNumeric, toDouble } from '../query/values.js';
import { isView } from '../reads/index.js';
import type { CollectionInfo, Storage } from '../storage/types.js';

/**
 * Sizes as dbStats, collStats and $collStats report them. Document sizes are
 * exact (the stored BSON bytes); the rest are estimates, since the storage
 * keeps everything in memory and lmdb pages are shared: a collection or index
 * occupies whole 4 KiB pages, an index entry is counted as its key plus a
 * record id (KEY_ENTRY_BYTES).
 */
const PAGE = 4096;
const KEY_ENTRY_BYTES = 24;

const pages = (bytes: number): number => Math.max(PAGE, Math.ceil(bytes / PAGE) * PAGE);

export interface StorageStats {
  count: number;
  size: number;
  avgObjSize: number;
  storageSize: number;
  nindexes: number;
  indexSizes: Record<string, number>;
  totalIndexSize: number;
  totalSize: number;
}

/** Unscaled sizes of one collection; undefined when it does not exist or is a view. */
export function storageStatsOf(storage: Storage, info: CollectionInfo): StorageStats | undefined {
  if (isView(info)) return undefined;
  const sizes = storage.collectionSizes(info.db, info.name);
  if (!sizes) return undefined;
  const indexSizes: Record<string, number> = {};
  for (const spec of info.indexes) indexSizes[spec.name] = pages((sizes.indexEntries[spec.name] ?? 0) * KEY_ENTRY_BYTES);
  const totalIndexSize = Object.values(indexSizes).reduce((a, b) => a + b, 0);
  const storageSize = pages(sizes.dataBytes);
  return {
    count: sizes.count,
    size: sizes.dataBytes,
    avgObjSize: sizes.count === 0 ? 0 : Math.floor(sizes.dataBytes / sizes.count),
    storageSize,
    nindexes: info.indexes.length,
    indexSizes,
    totalIndexSize,
    totalSize: storageSize + totalIndexSize,
  };
}

/**
 * The `scale` option: a positive number by which byte counts are divided
 * (mongod: BadValue "Scale factor must be a positive integer"); fractions are
 * truncated, as mongod does.
 */
export function scaleParam(value: unknown): number {
  if (value === undefined) return 1;
  if (!isNumeric(value)) throw mongoError('TypeMismatch', `scale must be a number, got ${typeof value}`);
  const scale = Math.trunc(toDouble(value));
  if (!(scale >= 1)) throw mongoError('BadValue', 'Scale factor must be a positive integer');
  return scale;
}

/** The storageStats document of $collStats / the collStats command, byte counts divided by `scale`. */
export function scaledStorageStats(stats: StorageStats, info: CollectionInfo, scale: number): Document {
  const scaled = (bytes: number): number => Math.floor(bytes / scale);
  const indexSizes: Document = {};
  for (const [name, bytes] of Object.entries(stats.indexSizes)) indexSizes[name] = scaled(bytes);
  return {
    size: scaled(stats.size),
    count: stats.count,
    avgObjSize: stats.avgObjSize,
    numOrphanDocs: 0,
    storageSize: scaled(stats.storageSize),
    freeStorageSize: 0,
    ...cappedStats(info, scale),
    nindexes: stats.nindexes,
    indexBuilds: [],
    totalIndexSize: scaled(stats.totalIndexSize),
    totalSize: scaled(stats.totalSize),
    indexSizes,
    scaleFactor: scale,
  };
}

/** `capped`, and for a capped collection its `max` documents (0: none given) and `maxSize` bytes, as mongod's collStats. */
function cappedStats(info: CollectionInfo, scale: number): Document {
  if (info.options.capped !== true) return { capped: false };
  const max = info.options.max === undefined || info.options.max === null ? 0 : toDouble(info.options.max);
  return { capped: true, max: max > 0 ? max : max < 0 ? 0x7fffffff : 0, maxSize: Math.floor(toDouble(info.options.size) / scale) };
}

/** Totals over a database, for dbStats and listDatabases. */
export function databaseTotals(storage: Storage, db: string): { collections: number; views: number; objects: number; dataSize: number; storageSize: number; indexes: number; indexSize: number } {
  const totals = { collections: 0, views: 0, objects: 0, dataSize: 0, storageSize: 0, indexes: 0, indexSize: 0 };
  for (const info of storage.collections(db)) {
    const stats = storageStatsOf(storage, info);
    if (!stats) {
      totals.views++;
      continue;
    }
    totals.collections++;
    totals.objects += stats.count;
    totals.dataSize += stats.size;
    totals.storageSize += stats.storageSize;
    totals.indexes += stats.nindexes;
    totals.indexSize += stats.totalIndexSize;
  }
  return totals;
}
