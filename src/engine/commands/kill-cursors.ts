import { cursorCollectionParam, cursorIdParam, namespaceOf, requiredArray } from '../params/index.js';
import type { CommandHandler } from './types.js';

/** killCursors: closes cursors of one collection. */
export const killCursorsCommand: CommandHandler = {
  name: 'killCursors',
  help: 'close cursors: {killCursors: <collection>, cursors: [<int64 id>, ...]}',
  handle(body, ctx) {
    const coll = cursorCollectionParam(body, 'killCursors', 'killCursors');
    const ids = requiredArray(body, 'killCursors', 'cursors').map((id) => cursorIdParam(id, 'killCursors', 'cursors'));
    return { ...ctx.engine.cursors.kill(namespaceOf(ctx.db, coll), ids) };
  },
};
