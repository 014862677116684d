import type { useSofa } from 'sofa-api';

/** SOFA's per-operation route override (its type is not exported by name). */
type RouteConfig = NonNullable<Parameters<typeof useSofa>[0]['routes']>[string];

/**
 * REST shapes of the meal menu operations (SOFA `routes` option), relative to
 * the `/api/v1` mount. Path and query parameters fill the GraphQL arguments of
 * the same name; a POST body is the flat argument object.
 */
export const mealMenuRestRoutes = {
  'Query.mealMenus': { method: 'GET', path: '/restaurant/meal-menus', tags: ['Meal menus'] },
  'Query.mealMenu': { method: 'GET', path: '/restaurant/meal-menus/:id', tags: ['Meal menus'] },
  'Mutation.createMealMenu': {
    method: 'POST',
    path: '/restaurant/meal-menus',
    responseStatus: 201,
    tags: ['Meal menus'],
  },
  'Mutation.updateEstimatedPortions': {
    method: 'PATCH',
    path: '/restaurant/meal-menus/:id/estimated-portions/:portions',
    tags: ['Meal menus'],
  },
  'Mutation.deleteMealMenu': { method: 'DELETE', path: '/restaurant/meal-menus/:id', tags: ['Meal menus'] },
} satisfies Record<string, RouteConfig>;
