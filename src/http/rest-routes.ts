import type { RouteConfig } from './sofa-types.js';

/**
 * SOFA `routes` overrides: the exact method and path (under /api/v1) of each
 * operation, and `responseStatus: 201` for operations that create a record.
 * Each area declares its own table against this type; the composition root
 * (src/service.ts) joins them, and a test checks every operation has a route.
 */
export type RestRoutes = Record<`${'Query' | 'Mutation'}.${string}`, RouteConfig>;

/** The method SOFA gives an operation's route: the table's, else GET for a query and POST for a mutation (sofa-api's defaults). */
export function routeMethod(operation: string, route: RouteConfig): string {
  return route.method ?? (operation.startsWith('Query.') ? 'GET' : 'POST');
}
