import { Args, Authorized, Mutation, Query, Resolver, UseMiddleware } from 'type-graphql';
import { Audited } from '../audit/index.js';
import { CurrentActor, type Actor } from '../auth/index.js';
import type { Page } from '../shared/index.js';
import {
  CreateMealMenuArgs,
  MealMenuIdArgs,
  MealMenusArgs,
  UpdateEstimatedPortionsArgs,
} from './meal-menu.inputs.js';
import { MealMenu } from './meal-menu.model.js';
import type { MealMenuDocument, MealMenuService } from './meal-menu.service.js';
import { DeleteMealMenuResult, MealMenuPage } from './meal-menu.types.js';

/** Thin: unpack the arguments and the caller, call the service. Built by the composition root with its service (src/service.ts). */
@Resolver(() => MealMenu)
export class MealMenuResolver {
  constructor(private readonly menus: MealMenuService) {}

  @Authorized('menus:read')
  @Query(() => MealMenuPage, {
    description:
      'Meal menus of your tenant (a platform administrator: of every tenant), a page at a time; ' +
      'includeDeleted needs menus:delete.',
  })
  mealMenus(@Args() args: MealMenusArgs, @CurrentActor() actor: Actor): Promise<Page<MealMenu>> {
    return this.menus.list(actor, args);
  }

  @Authorized('menus:read')
  @Query(() => MealMenu, { description: 'One live meal menu.' })
  mealMenu(@Args() { id }: MealMenuIdArgs, @CurrentActor() actor: Actor): Promise<MealMenu> {
    return this.menus.get(actor, id);
  }

  @Authorized('menus:write')
  @UseMiddleware(Audited('menus.create', { targetType: 'MealMenu' }))
  @Mutation(() => MealMenu, { description: 'Create a meal menu (stored with deletedAt: null).' })
  createMealMenu(@Args() args: CreateMealMenuArgs, @CurrentActor() actor: Actor): Promise<MealMenuDocument> {
    return this.menus.create(actor, args);
  }

  @Authorized('menus:write')
  @UseMiddleware(Audited('menus.update', { targetType: 'MealMenu' }))
  @Mutation(() => MealMenu, { description: 'Set the estimated portions (an integer >= 0); answers the menu.' })
  updateEstimatedPortions(
    @Args() { id, portions }: UpdateEstimatedPortionsArgs,
    @CurrentActor() actor: Actor,
  ): Promise<MealMenu> {
    return this.menus.updateEstimatedPortions(actor, id, portions);
  }

  @Authorized('menus:delete')
  @UseMiddleware(Audited('menus.delete', { targetType: 'MealMenu', removesTarget: true }))
  @Mutation(() => DeleteMealMenuResult, {
    description: 'Soft-delete a menu that stores deletedAt; remove one that lacks the field (legacy).',
  })
  deleteMealMenu(@Args() { id }: MealMenuIdArgs, @CurrentActor() actor: Actor): Promise<DeleteMealMenuResult> {
    return this.menus.delete(actor, id);
  }
}
