import { mongoError } from '../errors.js';
import { collectionParam, commandOptions } from '../params/index.js';
import { bucketsOwner, viewOptions } from '../reads/index.js';
import { assertExpireNeedsTimeSeries, assertValidValidator, cappedOptions, defaultTimeSeriesIndex, flushWrites, sameTimeSeries, timeSeriesOptions, withPreAndPostImages } from '../writes/index.js';
import { clusteredCreateOptions } from './clustered-index.js';
import type { CommandHandler } from './types.js';

/** create: an empty collection with its options kept as given, or a view (viewOn); 48 when it exists. */
export const createCommand: CommandHandler = {
  name: 'create',
  help: 'create a collection: {create: <name>, capped, validator, collation, viewOn, pipeline, clusteredIndex, ...}',
  async handle(body, ctx) {
    const name = collectionParam(body, 'create');
    const options = commandOptions(body, 'create');
    const storage = ctx.engine.storage;
    // A time-series collection's buckets namespace is taken (derived from it: reads/time-series-buckets.ts).
    if (bucketsOwner(storage, ctx.db, name)) throw mongoError('NamespaceExists', `Collection ${ctx.db}.${name} already exists.`);
    if (options.timeseries !== undefined) {
      const stored = timeSeriesOptions(options);
      // Repeating a time-series create with the same options is not an error in mongod.
      if (sameTimeSeries(storage.collection(ctx.db, name), stored)) return {};
      storage.createCollection(ctx.db, name, stored);
      // mongod 6.3+ indexes {metaField: 1, timeField: 1} with the collection.
      const index = defaultTimeSeriesIndex(stored);
      if (index) storage.createIndex(ctx.db, name, index);
    } else if (options.viewOn !== undefined) {
      storage.createCollection(ctx.db, name, viewOptions(storage, ctx.db, name, clusteredCreateOptions(options)));
    } else {
      const stored = withPreAndPostImages(cappedOptions(clusteredCreateOptions(options)), ctx.db);
      assertExpireNeedsTimeSeries(stored);
      assertValidValidator(stored);
      storage.createCollection(ctx.db, name, stored);
    }
    await flushWrites(ctx.engine.storage, body);
    return {};
  },
};
