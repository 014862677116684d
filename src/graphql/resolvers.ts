import type { NonEmptyArray } from 'type-graphql';
import { MealMenuResolver } from '../menus/meal-menu.resolver.js';
import { AuthResolver } from '../users/auth.resolver.js';
import { PermissionResolver } from '../users/permission.resolver.js';

/**
 * Every resolver class of the schema. An area adds one import and one entry.
 */
export const resolvers: NonEmptyArray<Function> = [AuthResolver, PermissionResolver, MealMenuResolver];
