import { mongoError } from '../errors.js';
import { collectionParam, missingField } from '../params/index.js';
import { isPlainObject } from '../query/values.js';
import { assertNotBuckets, assertNotView, sameKeyPattern } from '../reads/index.js';
import type { CollectionInfo } from '../storage/types.js';
import { flushWrites } from '../writes/index.js';
import { clusteredIndexOf } from './clustered-index.js';
import type { CommandHandler } from './types.js';

/** The names `index` designates: a name, "*" (all but `_id_`), a key pattern, or a list of names. */
function targetNames(info: CollectionInfo, index: unknown): string[] {
  if (index === '*') return info.indexes.filter((ix) => ix.name !== '_id_').map((ix) => ix.name);
  if (typeof index === 'string') return [index];
  if (Array.isArray(index) && index.every((n) => typeof n === 'string')) return index as string[];
  if (isPlainObject(index)) {
    const found = info.indexes.find((ix) => sameKeyPattern(ix.key, index));
    if (!found) throw mongoError('IndexNotFound', `can't find index with key: ${JSON.stringify(index)}`);
    return [found.name];
  }
  throw mongoError('TypeMismatch', "BSON field 'dropIndexes.index' is the wrong type, expected types '[string, object]'");
}

/** dropIndexes: drops the named indexes; all must exist or none is dropped. */
export const dropIndexesCommand: CommandHandler = {
  name: 'dropIndexes',
  aliases: ['deleteIndexes'],
  help: 'drop indexes: {dropIndexes: <collection>, index: <name | key pattern | [names] | "*">}',
  async handle(body, ctx) {
    const coll = collectionParam(body, 'dropIndexes' in body ? 'dropIndexes' : 'deleteIndexes');
    const storage = ctx.engine.storage;
    const info = storage.collection(ctx.db, coll);
    if (!info) throw mongoError('NamespaceNotFound', `ns not found ${ctx.db}.${coll}`);
    assertNotView(storage, ctx.db, coll);
    assertNotBuckets(storage, ctx.db, coll);
    if (body.index === undefined) throw missingField('dropIndexes', 'index');
    const nIndexesWas = info.indexes.length;
    const names = targetNames(info, body.index);
    const clustered = clusteredIndexOf(info);
    for (const name of names) {
      if (clustered && (name === '_id_' || name === clustered.name)) throw mongoError('Location5979800', 'It is illegal to drop the clusteredIndex');
      if (name === '_id_') throw mongoError('InvalidOptions', 'cannot drop _id index');
      if (!info.indexes.some((ix) => ix.name === name)) throw mongoError('IndexNotFound', `index not found with name [${name}]`);
    }
    for (const name of names) storage.dropIndex(ctx.db, coll, name);
    await flushWrites(ctx.engine.storage, body);
    return { nIndexesWas };
  },
};
