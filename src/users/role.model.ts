import { getModelForClass, index, modelOptions, plugin, prop } from '@typegoose/typegoose';
import { Field, ID, ObjectType } from 'type-graphql';
import { forgetCachedAccountsOnWrite } from './account-cache.js';

/**
 * A named group of permissions within a tenant. The built-in `admin` and
 * `member` roles live in code (src/auth/permissions.ts), not in this collection.
 */
@ObjectType({ description: 'A named set of permissions within a tenant' })
@index({ tenant_id: 1, name: 1 }, { unique: true })
@modelOptions({ schemaOptions: { collection: 'roles', timestamps: true } })
// Credentials reuse role permissions for up to a second; a change through the model is seen at once.
@plugin(forgetCachedAccountsOnWrite)
export class Role {
  @Field(() => ID)
  readonly id!: string;

  @Field()
  @prop({ required: true, trim: true })
  name!: string;

  @Field(() => String, { nullable: true })
  @prop({ type: () => String, default: null })
  description?: string | null;

  @Field(() => [String])
  @prop({ type: () => [String], default: [] })
  permissions!: string[];

  @Field(() => String, { nullable: true })
  @prop({ type: () => String, default: null })
  tenant_id!: string | null;

  /** Set by mongoose's timestamps on every write; the version an If-Match names (none for a built-in role). */
  @Field(() => Date, { nullable: true, description: 'When the custom role last changed (the version its ETag carries); null for a built-in role.' })
  @prop({ type: () => Date })
  updatedAt?: Date | null;
}

export const RoleModel = getModelForClass(Role);
