import { mongoError } from '../errors.js';
import { collectionParam, namespaceOf } from '../params/index.js';
import { bucketStats, isView } from '../reads/index.js';
import { isTimeSeries } from '../writes/index.js';
import { scaledStorageStats, scaleParam, storageStatsOf } from './storage-stats.js';
import type { CommandHandler } from './types.js';

/** collStats, the command `$collStats: {storageStats}` replaced (deprecated in 6.2, still answered). */
export const collStatsCommand: CommandHandler = {
  name: 'collStats',
  aliases: ['collstats'],
  help: 'collection statistics: {collStats: <collection>, scale: <n>}',
  handle(body, ctx) {
    const coll = collectionParam(body, Object.keys(body)[0]!);
    const scale = scaleParam(body.scale);
    const ns = namespaceOf(ctx.db, coll);
    const info = ctx.engine.storage.collection(ctx.db, coll);
    if (info && isView(info)) throw mongoError('CommandNotSupportedOnView', `Namespace ${ns} is a view, not a collection`);
    const stats = info && storageStatsOf(ctx.engine.storage, info);
    if (!stats) throw mongoError('NamespaceNotFound', `Collection [${ns}] not found.`);
    const reply = { ns, ...scaledStorageStats(stats, info!, scale) };
    // A time-series collection's buckets, as mongod reports them (derived: time-series-buckets.ts).
    return isTimeSeries(info) ? { ...reply, timeseries: bucketStats(ctx.engine.storage, info!) } : reply;
  },
};
