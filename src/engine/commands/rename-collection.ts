import { mongoError } from '../errors.js';
import { assertValidCollectionName, optionalBool } from '../params/index.js';
import { isView } from '../reads/index.js';
import { flushWrites } from '../writes/index.js';
import { forgetLatency } from './operation-tracker.js';
import type { CommandHandler } from './types.js';

/** `db.coll` -> [db, coll]; the collection part may contain dots. */
function splitNamespace(value: unknown, field: string): [string, string] {
  if (typeof value !== 'string') throw mongoError('TypeMismatch', `BSON field 'renameCollection.${field}' is the wrong type, expected type 'string'`);
  const dot = value.indexOf('.');
  if (dot <= 0 || dot === value.length - 1) throw mongoError('InvalidNamespace', `Invalid namespace specified '${value}'`);
  const coll = value.slice(dot + 1);
  assertValidCollectionName(coll);
  return [value.slice(0, dot), coll];
}

/**
 * renameCollection (`db.coll.renameCollection(name, dropTarget)`), on admin:
 * `{renameCollection: 'db.from', to: 'db.to', dropTarget}`. The storage has
 * no rename, so the collection is copied (options, indexes, documents) and
 * the source dropped: it takes time in the collection's size, and a crash
 * midway can leave both (never neither).
 */
export const renameCollectionCommand: CommandHandler = {
  name: 'renameCollection',
  help: "rename a collection: {renameCollection: 'db.from', to: 'db.to', dropTarget: <bool>} on admin",
  async handle(body, ctx) {
    if (ctx.db !== 'admin') throw mongoError('Unauthorized', 'renameCollection may only be run against the admin database.');
    const [fromDb, fromColl] = splitNamespace(body.renameCollection, 'renameCollection');
    const [toDb, toColl] = splitNamespace(body.to, 'to');
    const dropTarget = optionalBool(body, 'renameCollection', 'dropTarget') ?? false;
    const { storage, cursors } = ctx.engine;
    const source = storage.collection(fromDb, fromColl);
    if (!source) throw mongoError('NamespaceNotFound', `Source collection ${fromDb}.${fromColl} does not exist`);
    if (isView(source)) throw mongoError('CommandNotSupportedOnView', `cannot rename view: ${fromDb}.${fromColl}`);
    if (fromDb === toDb && fromColl === toColl) throw mongoError('IllegalOperation', "Can't rename a collection to itself");
    const target = storage.collection(toDb, toColl);
    if (target && !dropTarget) throw mongoError('NamespaceExists', 'target namespace exists');

    if (target) {
      storage.dropCollection(toDb, toColl);
      cursors.killNamespace(toDb, toColl);
    }
    storage.createCollection(toDb, toColl, source.options);
    for (const index of source.indexes) if (index.name !== '_id_') storage.createIndex(toDb, toColl, index);
    for (const doc of storage.scan(fromDb, fromColl)) storage.insert(toDb, toColl, doc);
    storage.dropCollection(fromDb, fromColl);
    cursors.killNamespace(fromDb, fromColl);
    forgetLatency(ctx.engine, fromDb, fromColl);
    await flushWrites(storage, body);
    return {};
  },
};
