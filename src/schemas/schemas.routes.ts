import type { RestRoutes } from '../http/index.js';

/** REST routes of the schema lookup. */
export const schemaRestRoutes = {
  'Query.schemaNames': { method: 'GET', path: '/schemas', tags: ['schemas'] },
  'Query.schema': { method: 'GET', path: '/schemas/:schemaName', tags: ['schemas'] },
} satisfies RestRoutes;
