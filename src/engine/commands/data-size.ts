import { mongoError } from '../errors.js';
import { isView } from '../reads/index.js';
import type { CommandHandler } from './types.js';

/**
 * dataSize: `{dataSize: 'db.coll'}`: the BSON bytes and number of the
 * collection's documents (a missing collection is 0). Key ranges
 * (`keyPattern`, `min`, `max`) are not supported.
 */
export const dataSizeCommand: CommandHandler = {
  name: 'dataSize',
  aliases: ['datasize'],
  help: "bytes of a collection's documents: {dataSize: 'db.coll'}",
  handle(body, ctx) {
    const ns = body[Object.keys(body)[0]!];
    if (typeof ns !== 'string') throw mongoError('TypeMismatch', "BSON field 'dataSize.dataSize' is the wrong type, expected type 'string'");
    if (body.keyPattern !== undefined || body.min !== undefined || body.max !== undefined) {
      throw mongoError('CommandNotSupported', 'dataSize over a key range (keyPattern, min, max) is not supported by this engine');
    }
    const dot = ns.indexOf('.');
    if (dot <= 0) throw mongoError('InvalidNamespace', `Invalid namespace specified '${ns}'`);
    const [db, coll] = [ns.slice(0, dot), ns.slice(dot + 1)];
    const info = ctx.engine.storage.collection(db, coll);
    const sizes = info && !isView(info) ? ctx.engine.storage.collectionSizes(db, coll) : undefined;
    return { size: sizes?.dataBytes ?? 0, numObjects: sizes?.count ?? 0, millis: 0 };
  },
};
