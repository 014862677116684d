import { collectionParam } from '../params/index.js';
import type { CommandHandler } from './types.js';

/** planCacheClear (`db.coll.getPlanCache().clear()`): the engine caches no plans, so there is nothing to clear. */
export const planCacheClearCommand: CommandHandler = {
  name: 'planCacheClear',
  help: 'clear the plan cache of a collection (the engine keeps none)',
  handle(body) {
    collectionParam(body, 'planCacheClear');
    return {};
  },
};
