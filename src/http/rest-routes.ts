import type { RouteConfig } from './sofa-types.js';
import { mealMenuRestRoutes } from '../menus/menus.routes.js';
import { authRestRoutes } from '../users/auth.routes.js';

/**
 * SOFA `routes` overrides: the exact method and path (under /api/v1) of each
 * operation, and `responseStatus: 201` for operations that create a record.
 * Every operation must have one (a test checks). Each area exports its own
 * map and adds one spread line here.
 */
export type RestRoutes = Record<`${'Query' | 'Mutation'}.${string}`, RouteConfig>;

export const restRoutes: RestRoutes = {
  ...authRestRoutes,
  ...mealMenuRestRoutes,
};
