import { Field, ID, ObjectType, registerEnumType } from 'type-graphql';
import { Paginated } from '../shared/index.js';
import { MealMenu } from './meal-menu.model.js';

/** One page of `mealMenus`. */
@ObjectType({ description: 'A page of meal menus.', simpleResolvers: true })
export class MealMenuPage extends Paginated(MealMenu) {}

/** How a delete went: soft keeps the record with `deletedAt` set; hard removes it. */
export enum DeleteMode {
  soft = 'soft',
  hard = 'hard',
}

registerEnumType(DeleteMode, {
  name: 'DeleteMode',
  description: 'soft: the record stays, marked by deletedAt; hard: the record is gone for good.',
});

/** What `deleteMealMenu` answers. */
@ObjectType({ description: 'The outcome of deleting a meal menu.' })
export class DeleteMealMenuResult {
  @Field(() => ID)
  id!: string;

  @Field(() => DeleteMode)
  mode!: DeleteMode;

  @Field(() => Date, { nullable: true, description: 'When it was soft-deleted; null for a hard delete.' })
  deletedAt!: Date | null;

  /**
   * The deleted menu's tenant, for the audit trail (a platform administrator's
   * delete is recorded under it). Not a GraphQL field: never answered.
   */
  tenant_id?: string;
}
