import { mongoError } from '../errors.js';
import { collectionParam, missingField, namespaceOf, wrongType } from '../params/index.js';
import { isNumeric } from '../query/index.js';
import type { Document } from '../query/types.js';
import { isView } from '../reads/index.js';
import { cappedOptions, flushWrites } from '../writes/index.js';
import type { CommandContext, CommandHandler } from './types.js';

/** The `size` of convertToCapped / cloneCollectionAsCapped: required, a number (then checked as create's). */
function sizeParam(body: Document, command: string): unknown {
  const size = body.size;
  if (size === undefined) throw missingField(command, 'size');
  if (!isNumeric(size)) throw wrongType(command, 'size', size, 'double');
  return size;
}

/** The source collection, which must exist and not be a view. */
function sourceCollection(ctx: CommandContext, coll: string, command: string): void {
  const info = ctx.engine.storage.collection(ctx.db, coll);
  if (!info) throw mongoError('NamespaceNotFound', `source collection ${namespaceOf(ctx.db, coll)} does not exist`);
  if (isView(info)) throw mongoError('CommandNotSupportedOnView', `${command} not supported on view: ${namespaceOf(ctx.db, coll)}`);
}

/**
 * convertToCapped: the collection becomes capped at `size` bytes, keeping its
 * newest documents that fit. As in mongod (which copies it into a new capped
 * collection), only the `_id` index stays and its open cursors die.
 */
export const convertToCappedCommand: CommandHandler = {
  name: 'convertToCapped',
  help: 'make a collection capped: {convertToCapped: <collection>, size: <bytes>}',
  async handle(body, ctx) {
    const coll = collectionParam(body, 'convertToCapped');
    const size = sizeParam(body, 'convertToCapped');
    sourceCollection(ctx, coll, 'convertToCapped');
    const { storage, cursors } = ctx.engine;
    const info = storage.collection(ctx.db, coll)!;
    const { max: _max, ...options } = info.options;
    for (const index of info.indexes) if (index.name !== '_id_') storage.dropIndex(ctx.db, coll, index.name);
    storage.setCollectionOptions(ctx.db, coll, cappedOptions({ ...options, capped: true, size }));
    cursors.killNamespace(ctx.db, coll);
    await flushWrites(storage, body);
    return {};
  },
};

/** cloneCollectionAsCapped: a new capped collection of `size` bytes holding the newest documents of another that fit. */
export const cloneCollectionAsCappedCommand: CommandHandler = {
  name: 'cloneCollectionAsCapped',
  help: 'copy a collection into a new capped one: {cloneCollectionAsCapped: <from>, toCollection: <to>, size: <bytes>}',
  async handle(body, ctx) {
    const from = collectionParam(body, 'cloneCollectionAsCapped');
    if (body.toCollection === undefined) throw missingField('cloneCollectionAsCapped', 'toCollection');
    if (typeof body.toCollection !== 'string') throw wrongType('cloneCollectionAsCapped', 'toCollection', body.toCollection, 'string');
    const to: string = body.toCollection;
    const size = sizeParam(body, 'cloneCollectionAsCapped');
    sourceCollection(ctx, from, 'cloneCollectionAsCapped');
    const storage = ctx.engine.storage;
    if (storage.collection(ctx.db, to)) {
      throw mongoError(
        'NamespaceExists',
        `cloneCollectionAsCapped failed - destination collection ${namespaceOf(ctx.db, to)} already exists. source collection: ${namespaceOf(ctx.db, from)}`,
      );
    }
    storage.createCollection(ctx.db, to, cappedOptions({ capped: true, size }));
    // In natural order: the capped copy keeps the newest that fit.
    for (const doc of storage.scan(ctx.db, from)) storage.insert(ctx.db, to, doc);
    await flushWrites(storage, body);
    return {};
  },
};
