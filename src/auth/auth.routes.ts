import type { RestRoutes } from '../http/rest-routes.js';

/** REST routes of sign-in and the permission list (see src/http/rest-routes.ts). */
export const authRestRoutes: RestRoutes = {
  'Mutation.login': { method: 'POST', path: '/auth/login', tags: ['auth'] },
  'Query.permissions': { method: 'GET', path: '/access-control/permissions', tags: ['access-control'] },
};
