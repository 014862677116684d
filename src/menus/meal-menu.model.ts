import { getModelForClass, index, modelOptions, prop, Severity } from '@typegoose/typegoose';
import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { CreatedAtField, UpdatedAtField } from '../shared/index.js';

/** The meal a menu is served for. Values are the wire strings on both surfaces. */
export enum MealType {
  breakfast = 'breakfast',
  lunch = 'lunch',
  dinner = 'dinner',
  snack = 'snack',
}

registerEnumType(MealType, { name: 'MealType', description: 'The meal a menu is served for.' });

/** One dish of a menu (stored inside the menu, without an id of its own). */
// simpleResolvers: fields are read straight off the record (see MealMenu).
@ObjectType({ description: 'One dish of a meal menu.', simpleResolvers: true })
export class MealMenuItem {
  @Field()
  @prop({ required: true })
  name!: string;

  @Field(() => String, { nullable: true })
  @prop({ type: () => String })
  description?: string | null;

  @Field(() => [String], { description: 'Allergens the dish contains, e.g. "gluten", "peanuts".' })
  @prop({ type: () => [String], default: [] })
  allergens!: string[];
}

/** The collection typegoose stores menus in; tests plant legacy records in it directly. */
export const MEAL_MENU_COLLECTION = 'mealmenus';

/**
 * A restaurant meal menu for one service day and meal.
 *
 * `deletedAt` decides how a delete behaves (service-description section 3):
 * menus created here always store the field (null while live), so deleting
 * them is soft; imported or legacy records may lack it, and deleting those
 * removes them for good. The service therefore reads the raw stored record,
 * because mongoose fills this default when it loads a document.
 */
// Lists are per tenant, paged by _id: this index gives that order after the tenant
// (no sort, the read stops after a page); with a service day, the second one does.
@index({ tenant_id: 1, _id: 1 })
@index({ tenant_id: 1, date: 1, _id: 1 })
@modelOptions({
  schemaOptions: { collection: MEAL_MENU_COLLECTION, timestamps: true },
  options: { allowMixed: Severity.ERROR },
})
// simpleResolvers: no field has a resolver, middleware or role of its own, so graphql-jit
// reads each straight off the record instead of calling type-graphql's wrapper per field
// (a page of 20 menus made about 400 such calls).
@ObjectType({ description: 'A restaurant meal menu for one service day and meal.', simpleResolvers: true })
export class MealMenu {
  /** Mongoose's `id` virtual: the `_id` as its 24-hex string. */
  @Field(() => ID, { description: 'The record id (24 hexadecimal characters).' })
  readonly id!: string;

  @Field()
  @prop({ required: true })
  name!: string;

  @Field(() => String, { nullable: true })
  @prop({ type: () => String })
  description?: string | null;

  @Field({ description: 'The service day, written YYYY-MM-DD.' })
  @prop({ required: true, match: /^\d{4}-\d{2}-\d{2}$/ })
  date!: string;

  @Field(() => MealType)
  @prop({ required: true, enum: MealType, type: () => String })
  mealType!: MealType;

  @Field(() => [MealMenuItem])
  @prop({ type: () => [MealMenuItem], _id: false, default: [] })
  items!: MealMenuItem[];

  @Field(() => Int, { description: 'How many portions the kitchen expects to serve (integer >= 0).' })
  @prop({ required: true, min: 0, validate: { validator: Number.isInteger, message: 'must be an integer' } })
  estimatedPortions!: number;

  @Field({ description: 'The tenant that owns the menu.' })
  @prop({ required: true })
  tenant_id!: string;

  @Field({ description: 'Id of the user who created the menu.' })
  @prop({ required: true })
  createdBy!: string;

  @Field({ description: 'Id of the user who last changed the menu.' })
  @prop({ required: true })
  updatedBy!: string;

  @Field(() => Date, { nullable: true, description: 'When the menu was soft-deleted; null while live.' })
  @prop({ type: () => Date, default: null })
  deletedAt?: Date | null;

  @CreatedAtField()
  createdAt!: Date;

  @UpdatedAtField()
  updatedAt!: Date;
}

export const MealMenuModel = getModelForClass(MealMenu);
