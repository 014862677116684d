import { IsEmail, IsOptional, IsString, Length, Matches } from 'class-validator';
import { ArgsType, Field } from 'type-graphql';
import { ObjectIdField, PageArgs } from '../shared/index.js';
import { UserField, type SocialLinksInput } from './user.fields.js';
import type { IdentificationType, User } from './user.model.js';
import { SEARCH_WORD_PATTERN } from './user-search.js';

/** `createUser` / `POST /access-control/users`: the user object of the description's 2.2, flat. */
@ArgsType()
export class CreateUserArgs implements Partial<User> {
  @UserField.email() email!: string;
  @UserField.password() password!: string;
  @UserField.firstName() firstName!: string;
  @UserField.lastName('optional') lastName?: string | null;
  @UserField.profilePicture('optional') profilePicture?: string | null;
  @UserField.mobile('optional') mobile?: string | null;
  @UserField.identificationType('optional') identificationType?: IdentificationType | null;
  @UserField.identification('optional') identification?: string | null;
  @UserField.address('optional') address?: string | null;
  @UserField.bio('optional') bio?: string | null;
  @UserField.social('optional') social?: SocialLinksInput | null;
  @UserField.defaultColor('optional') defaultColor?: string;
  // null (clear) arrives as null at run time; the services treat it as no roles.
  @UserField.roles('optional') roles?: string[];
  @UserField.createdBy() createdBy!: string;
  @UserField.updatedBy() updatedBy!: string;
  @UserField.tenant_id('optional') tenant_id?: string | null;
}

/**
 * `updateUser` / `PATCH /access-control/users/{id}`: the same fields, all of
 * them partial: an absent field stays, `null` clears an optional one, and
 * the required ones (email, password, firstName) cannot be cleared.
 * `updatedBy` is required, as the description says.
 */
@ArgsType()
export class UpdateUserArgs implements Partial<User> {
  @ObjectIdField({ description: 'The user to update.' }) id!: string;
  @UserField.email('unclearable') email?: string;
  @UserField.password('unclearable') password?: string;
  @UserField.firstName('unclearable') firstName?: string;
  @UserField.lastName('optional') lastName?: string | null;
  @UserField.profilePicture('optional') profilePicture?: string | null;
  @UserField.mobile('optional') mobile?: string | null;
  @UserField.identificationType('optional') identificationType?: IdentificationType | null;
  @UserField.identification('optional') identification?: string | null;
  @UserField.address('optional') address?: string | null;
  @UserField.bio('optional') bio?: string | null;
  @UserField.social('optional') social?: SocialLinksInput | null;
  @UserField.defaultColor('optional') defaultColor?: string;
  // null (clear) arrives as null at run time; the services treat it as no roles.
  @UserField.roles('optional') roles?: string[];
  @UserField.createdBy('unclearable') createdBy?: string;
  @UserField.updatedBy() updatedBy!: string;
  @UserField.tenant_id('unclearable') tenant_id?: string;
  // Required (400 when absent) when you change your own password or email; never stored.
  @UserField.currentPassword('optional') currentPassword?: string | null;
}

/** `users` / `GET /access-control/users`: a page, with filters. */
@ArgsType()
export class UsersArgs extends PageArgs {
  @Field(() => String, { nullable: true, description: 'Exactly this email (compared case-insensitively).' })
  @IsOptional()
  @IsEmail({}, { message: '$property must be an email address' })
  email?: string | null;

  @Field(() => String, { nullable: true, description: 'Users holding this role id.' })
  @IsOptional()
  @Matches(/^(admin|member|[0-9a-f]{24})$/, { message: '$property must be admin, member or a role id' })
  role?: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'Words (runs of letters and digits), each the start of a word of the email, first name or last name (case-insensitive).',
  })
  @IsOptional()
  @IsString()
  @Length(1, 100)
  @Matches(SEARCH_WORD_PATTERN, { message: '$property must hold a letter or a digit' })
  search?: string | null;

  @Field(() => Date, { nullable: true, description: 'Users created after this instant (exclusive). A user imported without createdAt counts as created at the time of its id, as it answers.' })
  @IsOptional()
  createdAfter?: Date | null;

  @Field(() => Date, { nullable: true, description: 'Users created before this instant (exclusive). A user imported without createdAt counts as created at the time of its id, as it answers.' })
  @IsOptional()
  createdBefore?: Date | null;
}

/** `user` / `GET /access-control/users/{id}`. */
@ArgsType()
export class UserIdArgs {
  @ObjectIdField({ description: 'The user id.' })
  id!: string;
}


/** `disableUser` / `PATCH /access-control/users/{id}/disable`. */
@ArgsType()
export class DisableUserArgs extends UserIdArgs {
  @UserField.disabledReason('optional') reason?: string | null;
}
