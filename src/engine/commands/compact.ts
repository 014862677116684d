import { mongoError } from '../errors.js';
import { collectionParam } from '../params/index.js';
import { isView } from '../reads/index.js';
import type { CommandHandler } from './types.js';

/** compact: the documents live in memory and lmdb reuses freed pages itself, so nothing is freed by asking. */
export const compactCommand: CommandHandler = {
  name: 'compact',
  help: 'compact a collection: {compact: <collection>} (nothing to reclaim here: bytesFreed is 0)',
  handle(body, ctx) {
    const coll = collectionParam(body, 'compact');
    const info = ctx.engine.storage.collection(ctx.db, coll);
    if (!info) throw mongoError('NamespaceNotFound', `collection does not exist: ${ctx.db}.${coll}`);
    if (isView(info)) throw mongoError('CommandNotSupportedOnView', 'can not compact a view');
    return { bytesFreed: 0 };
  },
};
