import type { RestRoutes } from '../http/index.js';

/** REST route of the event log (read only), relative to the `/api/v1` mount. */
export const eventRestRoutes = {
  'Query.events': { method: 'GET', path: '/events', tags: ['events'] },
} satisfies RestRoutes;
