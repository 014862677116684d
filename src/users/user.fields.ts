import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsEmail,
  IsEnum,
  IsOptional,
  IsString,
  IsUrl,
  Length,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { Field, InputType } from 'type-graphql';
import { IsTenantId, TENANT_ID_RULE } from '../auth/index.js';
import { declaredField, EMAIL_MAX_LENGTH, HasNoIgnoredCharacter, IsAcceptablePassword, IsObjectId, PASSWORD_RULE, type DeclaredField } from '../shared/index.js';
import { IdentificationType, type SocialLinks } from './user.model.js';

const MOBILE = /^\+?\d{7,15}$/;
/** A role id: a built-in role's name or a custom role's record id. */
export const ROLE_ID = /^(admin|member|[0-9a-f]{24})$/;
const COLOR = /^[A-Za-z0-9#_-]+$/;
const HTTP_URL = { protocols: ['http', 'https'], require_protocol: true };
/** The longest reason a disable takes (as an API key's disable). */
export const DISABLED_REASON_MAX_LENGTH = 500;

/** The social links a client sends: only these keys; each an http(s) URL. */
@InputType({ description: 'Social media links, each an http or https URL; only these keys exist.' })
export class SocialLinksInput implements Partial<SocialLinks> {
  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsUrl(HTTP_URL)
  @MaxLength(2048)
  twitter?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsUrl(HTTP_URL)
  @MaxLength(2048)
  instagram?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsUrl(HTTP_URL)
  @MaxLength(2048)
  linkedin?: string | null;
}

/**
 * Every rule of a user field (service description 2.2), declared once
 * (shared/declared-field.ts): the create and update inputs take the same
 * field decorators and differ only in their presence.
 */
export const UserField = {
  email: declaredField(() => String, 'Email address; unique within the tenant (case-insensitively).', IsEmail({}, { message: '$property must be an email address' }), MaxLength(EMAIL_MAX_LENGTH), HasNoIgnoredCharacter()),
  password: declaredField(() => String, `Password (format password): ${PASSWORD_RULE.replace(/^must be /, '')}. Stored only as an Argon2id hash.`, IsAcceptablePassword()),
  firstName: declaredField(() => String, 'At least 1 character.', IsString(), Length(1, 100)),
  lastName: declaredField(() => String, 'At least 1 character.', IsString(), Length(1, 100)),
  profilePicture: declaredField(() => String, 'URL of the profile picture (http or https).', IsUrl(HTTP_URL), MaxLength(2048)),
  mobile: declaredField(() => String, 'An optional + followed by 7 to 15 digits.', Matches(MOBILE, { message: '$property must be an optional + followed by 7 to 15 digits' })),
  identificationType: declaredField(() => IdentificationType, 'One of CC, CE, PA, TI, NIT.', IsEnum(IdentificationType)),
  identification: declaredField(() => String, 'Identification document number.', IsString(), Length(1, 50)),
  address: declaredField(() => String, undefined, IsString(), Length(1, 300)),
  bio: declaredField(() => String, 'Short biography.', IsString(), MaxLength(1000)),
  social: declaredField(() => SocialLinksInput, 'Social media links: twitter, instagram, linkedin. On update, the object sent replaces the stored one whole.', ValidateNested()),
  defaultColor: declaredField(() => String, 'Default color associated with the user; bg-blue-500 when not given.', IsString(), Length(1, 50), Matches(COLOR, { message: '$property may hold letters, digits, #, _ and - only' })),
  roles: declaredField(() => [String], 'Role ids: admin, member, or a custom role of the tenant. Assigning them needs users:assign-roles.', IsArray(), ArrayMaxSize(20), ArrayUnique(), Matches(ROLE_ID, { each: true, message: 'each of $property must be admin, member or a role id (24 hexadecimal characters)' })),
  createdBy: declaredField(() => String, 'Id of the user who created the record: your own user id (any letter case).', IsObjectId()),
  updatedBy: declaredField(() => String, 'Id of the user who last updated the record: your own user id (any letter case).', IsObjectId()),
  tenant_id: declaredField(() => String, `The tenant; required when a platform administrator creates a user, else your own. It ${TENANT_ID_RULE}.`, IsTenantId()),
  /** disableUser's `reason`, answered as disabledReason. */
  disabledReason: declaredField(() => String, `Why the user is disabled, 1 to ${DISABLED_REASON_MAX_LENGTH} characters; answered as disabledReason.`, IsString(), Length(1, DISABLED_REASON_MAX_LENGTH)),
  currentPassword: declaredField(() => String, 'Your current password (format password): the proof that you are changing your own credentials in person. Wrong: 403; counted as a failed sign-in.', IsString(), MaxLength(1024)),
} satisfies Record<string, DeclaredField>;
