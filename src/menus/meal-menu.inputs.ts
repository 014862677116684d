import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsEnum,
  IsOptional,
  IsString,
  Length,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { ArgsType, Field, InputType, Int } from 'type-graphql';
import { IsTenantId, TENANT_ID_RULE } from '../auth/index.js';
import { IdArgs, IsCalendarDate, IsIntegerIn, PageArgs } from '../shared/index.js';
import { MealType, type MealMenu, type MealMenuItem } from './meal-menu.model.js';

/**
 * The name and optional description that a menu and each of its dishes carry,
 * validated alike. It is both an args and an input type because type-graphql
 * inherits fields only from a parent of the child's own kind; it is never used
 * directly, so it never appears in the schema.
 */
@ArgsType()
@InputType()
export class NameAndDescriptionInput {
  @Field()
  @IsString()
  @Length(1, 200)
  name!: string;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description?: string | null;
}

/** A dish as a client sends it. */
@InputType({ description: 'One dish of a meal menu.' })
export class MealMenuItemInput extends NameAndDescriptionInput implements Partial<MealMenuItem> {
  @Field(() => [String], { defaultValue: [] })
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @Length(1, 100, { each: true })
  allergens!: string[];
}

/** `createMealMenu` / `POST /restaurant/meal-menus`: the menu fields, flat. */
@ArgsType()
export class CreateMealMenuArgs extends NameAndDescriptionInput implements Partial<MealMenu> {
  @Field({ description: 'The service day, written YYYY-MM-DD.' })
  @IsCalendarDate()
  date!: string;

  @Field(() => MealType)
  @IsEnum(MealType)
  mealType!: MealType;

  @Field(() => [MealMenuItemInput], { defaultValue: [] })
  @IsArray()
  @ArrayMaxSize(100)
  @ValidateNested({ each: true })
  items!: MealMenuItemInput[];

  @Field(() => Int, { defaultValue: 0, description: 'Expected portions, an integer >= 0.' })
  @IsIntegerIn({ min: 0 })
  estimatedPortions!: number;

  @Field(() => String, {
    nullable: true,
    description: `The owning tenant: required from a platform administrator, else the caller's own. It ${TENANT_ID_RULE}.`,
  })
  @IsOptional()
  @IsTenantId()
  tenant_id?: string;
}

/** `mealMenus` / `GET /restaurant/meal-menus`: a page, optionally filtered. */
@ArgsType()
export class MealMenusArgs extends PageArgs {
  @Field(() => String, { nullable: true, description: 'Only menus of this service day (YYYY-MM-DD).' })
  @IsOptional()
  @IsCalendarDate()
  date?: string | null;

  @Field(() => MealType, { nullable: true, description: 'Only menus of this meal.' })
  @IsOptional()
  @IsEnum(MealType)
  mealType?: MealType | null;

  @Field(() => Boolean, {
    defaultValue: false,
    description: 'Also list soft-deleted menus (needs menus:delete).',
  })
  @IsBoolean()
  includeDeleted: boolean = false;
}

/** `mealMenu(id)`, `deleteMealMenu(id)`. */
@ArgsType()
export class MealMenuIdArgs extends IdArgs {}

/** `updateEstimatedPortions(id, portions)` / `PATCH .../{id}/estimated-portions/{portions}`. */
@ArgsType()
export class UpdateEstimatedPortionsArgs extends IdArgs {
  @Field(() => Int, { description: 'The new estimated portions, an integer >= 0.' })
  @IsIntegerIn({ min: 0 })
  portions!: number;
}
