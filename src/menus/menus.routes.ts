import type { RestRoutes } from '../http/index.js';

/**
 * REST shapes of the meal menu operations (SOFA `routes` option), relative to
 * the `/api/v1` mount. Path and query parameters fill the GraphQL arguments of
 * the same name; a POST body is the flat argument object.
 */
export const mealMenuRestRoutes = {
  'Query.mealMenus': { method: 'GET', path: '/restaurant/meal-menus', tags: ['meal-menus'] },
  'Query.mealMenu': { method: 'GET', path: '/restaurant/meal-menus/:id', tags: ['meal-menus'] },
  'Mutation.createMealMenu': {
    method: 'POST',
    path: '/restaurant/meal-menus',
    responseStatus: 201,
    tags: ['meal-menus'],
  },
  'Mutation.updateEstimatedPortions': {
    method: 'PATCH',
    path: '/restaurant/meal-menus/:id/estimated-portions/:portions',
    tags: ['meal-menus'],
  },
  'Mutation.deleteMealMenu': { method: 'DELETE', path: '/restaurant/meal-menus/:id', tags: ['meal-menus'] },
} satisfies RestRoutes;
