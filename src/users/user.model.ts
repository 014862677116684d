import { getModelForClass, index, modelOptions, prop, Severity } from '@typegoose/typegoose';
import { Field, ID, ObjectType } from 'type-graphql';

/** Case-insensitive comparison for emails: the unique index and sign-in use the same one. */
export const emailCollation = { locale: 'en', strength: 2 } as const;

/**
 * A person who signs in. One class is both the stored record (typegoose
 * `@prop`) and the GraphQL type (`@Field`); `passwordHash` has no `@Field`
 * and `select: false`, so it never leaves the database unless asked for.
 */
@ObjectType({ description: 'A user of the service; never carries the password or its hash' })
@index({ tenant_id: 1, email: 1 }, { unique: true, collation: emailCollation })
@modelOptions({ schemaOptions: { collection: 'users', timestamps: true }, options: { allowMixed: Severity.ALLOW } })
export class User {
  /** mongoose's `id` virtual: the `_id` as a string. */
  @Field(() => ID)
  readonly id!: string;

  @Field()
  @prop({ required: true, trim: true })
  email!: string;

  @prop({ required: true, select: false })
  passwordHash!: string;

  @Field()
  @prop({ required: true })
  firstName!: string;

  @Field(() => String, { nullable: true })
  @prop({ type: () => String, default: null })
  lastName?: string | null;

  /** Role ids: `admin`, `member` or a custom role's id. */
  @Field(() => [String])
  @prop({ type: () => [String], default: [] })
  roles!: string[];

  /** null: a platform administrator, outside every tenant. */
  @Field(() => String, { nullable: true })
  @prop({ type: () => String, default: null })
  tenant_id!: string | null;

  @Field(() => String, { nullable: true })
  @prop({ type: () => String, default: null })
  createdBy!: string | null;

  @Field(() => String, { nullable: true })
  @prop({ type: () => String, default: null })
  updatedBy!: string | null;

  @Field()
  readonly createdAt!: Date;

  @Field()
  readonly updatedAt!: Date;
}

export const UserModel = getModelForClass(User);
