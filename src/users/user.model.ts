import { getModelForClass, index, modelOptions, plugin, pre, prop, Severity } from '@typegoose/typegoose';
import { Field, ID, ObjectType, registerEnumType } from 'type-graphql';
import { CreatedAtField, EMAIL_COLLATION, UpdatedAtField } from '../shared/index.js';
import { forgetCachedAccountsOnWrite } from './account-cache.js';
import { searchKeysOf } from './user-search.js';

/** Case-insensitive comparison for emails: the unique index, sign-in and its throttle use the same one. */
export const emailCollation = EMAIL_COLLATION;

export const DEFAULT_USER_COLOR = 'bg-blue-500';

/** The name of the unique (tenant, email) index among users not deleted; the one before it, without deletedAt, was `tenant_id_1_email_1`. */
export const USER_EMAIL_INDEX = 'tenant_id_1_email_1_deletedAt_1';
export const OLD_USER_EMAIL_INDEX = 'tenant_id_1_email_1';

/** Kinds of identification document (service description 2.2). */
export enum IdentificationType {
  CC = 'CC',
  CE = 'CE',
  PA = 'PA',
  TI = 'TI',
  NIT = 'NIT',
}

/** Where a user is in its life (contract "Users: disabling, deleting"); a record stored without it is active. */
export enum UserStatus {
  active = 'active',
  disabled = 'disabled',
  deleted = 'deleted',
}

registerEnumType(UserStatus, {
  name: 'UserStatus',
  description: 'active: signs in and acts; disabled: refused everywhere until enabled again; deleted: gone from every read, kept for the audit trail.',
});

/** A user that exists for reads and sign-in: not deleted (null also matches a record stored before deletedAt existed). */
export const LIVE_USER = { deletedAt: null } as const;

registerEnumType(IdentificationType, {
  name: 'IdentificationType',
  description: 'Kind of identification document: CC, CE, PA, TI or NIT.',
});

/** A user's social media links; only these keys exist. */
@ObjectType({ description: "A user's social media links (http or https URLs)." })
export class SocialLinks {
  @Field(() => String, { nullable: true })
  @prop({ type: () => String, default: null })
  twitter?: string | null;

  @Field(() => String, { nullable: true })
  @prop({ type: () => String, default: null })
  instagram?: string | null;

  @Field(() => String, { nullable: true })
  @prop({ type: () => String, default: null })
  linkedin?: string | null;
}

/**
 * A person who signs in. One class is both the stored record (typegoose
 * `@prop`) and the GraphQL type (`@Field`); `passwordHash` and
 * `tokenVersion` have no `@Field`, and the hash is `select: false`, so it
 * never leaves the database unless asked for. The input rules live on the
 * inputs (user.inputs.ts), declared once in user.fields.ts.
 */
@ObjectType({ description: 'A user of the service; never carries the password or its hash' })
// One email per tenant among users not deleted, compared case-insensitively; the same email may exist in another tenant.
// deletedAt is part of the key: every live user (deletedAt null or absent, as older records are) shares the key null, so
// two live users of an email collide, while a deleted one (its own instant) collides with nobody and so frees its email.
// A partial index cannot say "not deleted" on every MongoDB version for records without the field ($exists: false,
// $ne, $in are refused there), and this needs no backfill; migrateUserEmailIndex drops the older index without deletedAt.
@index({ tenant_id: 1, email: 1, deletedAt: 1 }, { unique: true, collation: emailCollation, name: USER_EMAIL_INDEX })
// Sign-in without a tenant looks an email up across tenants.
@index({ email: 1, tenant_id: 1 }, { collation: emailCollation })
// Lists page a tenant's users by _id: this index gives that order (no sort, the read stops after a page).
@index({ tenant_id: 1, _id: 1 })
// Filtering by role: `roles` is an array, so this multikey index narrows but cannot give the order.
@index({ tenant_id: 1, roles: 1, _id: 1 })
// `search`: one equality per search word on the stored word prefixes (user-search.ts), never a scan of the tenant.
@index({ searchKeys: 1, tenant_id: 1 })
// A document saved (created) through the model keeps its search keys in step; updates set them in UserService.update.
@pre<User>('save', function () {
  if (this.isNew || this.isModified(['email', 'firstName', 'lastName'])) this.searchKeys = searchKeysOf(this);
})
@modelOptions({ schemaOptions: { collection: 'users', timestamps: true }, options: { allowMixed: Severity.ALLOW } })
// Credentials reuse accounts for up to a second; a change through the model is seen at once.
@plugin(forgetCachedAccountsOnWrite)
export class User {
  /** mongoose's `id` virtual: the `_id` as a string. */
  @Field(() => ID, { description: 'The record id (24 hexadecimal characters).' })
  readonly id!: string;

  @Field({ description: 'Email address; unique within the tenant, compared case-insensitively.' })
  @prop({ required: true, trim: true })
  email!: string;

  @prop({ required: true, select: false })
  passwordHash!: string;

  /**
   * Raised by every password change; an access token carries the version it
   * was issued under (claim `ver`), so older tokens stop working at once.
   */
  @prop({ type: () => Number, default: 0 })
  tokenVersion!: number;

  @Field()
  @prop({ required: true })
  firstName!: string;

  @Field(() => String, { nullable: true })
  @prop({ type: () => String, default: null })
  lastName?: string | null;

  @Field(() => String, { nullable: true, description: 'URL of the profile picture.' })
  @prop({ type: () => String, default: null })
  profilePicture?: string | null;

  @Field(() => String, { nullable: true, description: 'An optional + then 7 to 15 digits.' })
  @prop({ type: () => String, default: null })
  mobile?: string | null;

  @Field(() => IdentificationType, { nullable: true })
  @prop({ type: () => String, enum: IdentificationType, default: null })
  identificationType?: IdentificationType | null;

  @Field(() => String, { nullable: true, description: 'Identification document number.' })
  @prop({ type: () => String, default: null })
  identification?: string | null;

  @Field(() => String, { nullable: true })
  @prop({ type: () => String, default: null })
  address?: string | null;

  @Field(() => String, { nullable: true, description: 'Short biography.' })
  @prop({ type: () => String, default: null })
  bio?: string | null;

  @Field(() => SocialLinks, { nullable: true })
  @prop({ type: () => SocialLinks, _id: false, default: null })
  social?: SocialLinks | null;

  @Field({ description: `Default color associated with the user (default ${DEFAULT_USER_COLOR}).` })
  @prop({ type: () => String, default: DEFAULT_USER_COLOR })
  defaultColor!: string;

  /** Role ids: `admin`, `member` or a custom role's id. */
  @Field(() => [String], { description: 'Role ids: admin, member, or a custom role of the tenant.' })
  @prop({ type: () => [String], default: [] })
  roles!: string[];

  /** null: a platform administrator, outside every tenant. */
  @Field(() => String, { nullable: true, description: 'The tenant; null only for a platform administrator.' })
  @prop({ type: () => String, default: null })
  tenant_id!: string | null;

  @Field(() => String, { nullable: true, description: 'Id of the user who created the record.' })
  @prop({ type: () => String, default: null })
  createdBy!: string | null;

  @Field(() => String, { nullable: true, description: 'Id of the user who last updated the record.' })
  @prop({ type: () => String, default: null })
  updatedBy!: string | null;

  /** Lowercased word prefixes of email and names, what `search` looks up (user-search.ts); never answered. */
  @prop({ type: () => [String], default: undefined })
  searchKeys?: string[];

  // Status (disableUser, enableUser, deleteUser). `status` is answered by UserResolver (absent: active).

  @prop({ type: () => String, enum: UserStatus, default: UserStatus.active })
  status?: UserStatus;

  @Field(() => Date, { nullable: true, description: 'When the user was disabled (null: not disabled).' })
  @prop({ type: () => Date, default: null })
  disabledAt?: Date | null;

  @Field(() => String, { nullable: true, description: 'Why the user was disabled, as the administrator said (null: not disabled or no reason).' })
  @prop({ type: () => String, default: null })
  disabledReason?: string | null;

  /** Set by deleteUser: the record stays for the audit trail and answers no read (never answered). */
  @prop({ type: () => Date, default: null })
  deletedAt?: Date | null;

  @CreatedAtField()
  readonly createdAt!: Date;

  @UpdatedAtField()
  readonly updatedAt!: Date;
}

export const UserModel = getModelForClass(User);
