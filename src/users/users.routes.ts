import type { RestRoutes } from '../http/rest-routes.js';

/** REST routes of the access-control area (users, roles, permissions). */
export const accessControlRestRoutes = {
  'Query.permissions': { method: 'GET', path: '/access-control/permissions', tags: ['access-control'] },
} satisfies RestRoutes;
