/** The meal menus area: its resolver, its REST routes, its model, service and store. */
export { MealMenuResolver } from './meal-menu.resolver.js';
export { mealMenuRestRoutes } from './menus.routes.js';
export { MealMenu, MealMenuItem, MealMenuModel, MealType, MEAL_MENU_COLLECTION } from './meal-menu.model.js';
export { MealMenuService, type MealMenuDocument } from './meal-menu.service.js';
export { MealMenuRecords } from './meal-menu.store.js';
export { DeleteMealMenuResult, DeleteMode, MealMenuPage } from './meal-menu.types.js';
