import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsDefined,
  IsEmail,
  IsEnum,
  IsOptional,
  IsString,
  IsUrl,
  Length,
  Matches,
  MaxLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { Field, InputType } from 'type-graphql';
import { IsTenantId, TENANT_ID_RULE } from '../auth/index.js';
import { EMAIL_MAX_LENGTH, HasNoIgnoredCharacter, IsAcceptablePassword, IsObjectId, PASSWORD_RULE } from '../shared/index.js';
import { IdentificationType, type SocialLinks } from './user.model.js';

/**
 * Every rule of a user field (service description 2.2), declared once: the
 * create and update inputs take the same field decorators and differ only in
 * whether a field must be there. GraphQL, REST (the same arguments), the
 * JSON Schema lookup and the OpenAPI document all read these declarations.
 *
 * - `required`: must be given, non-null (create's email, password, ...);
 * - `optional`: may be absent; `null` clears it;
 * - `unclearable`: may be absent (update keeps the stored value), but a
 *   required field cannot be cleared: `null` is refused (rule `isDefined`).
 */
export type Presence = 'required' | 'optional' | 'unclearable';

type FieldDecoratorFactory = (presence?: Presence) => PropertyDecorator;

const MOBILE = /^\+?\d{7,15}$/;
/** A role id: a built-in role's name or a custom role's record id. */
const ROLE_ID = /^(admin|member|[0-9a-f]{24})$/;
const COLOR = /^[A-Za-z0-9#_-]+$/;
const HTTP_URL = { protocols: ['http', 'https'], require_protocol: true };

function compose(...decorators: PropertyDecorator[]): PropertyDecorator {
  return (target, key) => decorators.forEach((decorator) => decorator(target, key));
}

// IsDefined is the one rule class-validator applies to null while type-graphql skips missing values.
const NotNull = (): PropertyDecorator => IsDefined({ message: '$property is required and cannot be cleared (send a value or leave it out)' });

function presenceRule(presence: Presence, key: string | symbol): PropertyDecorator[] {
  if (presence === 'optional') return [IsOptional()];
  if (presence === 'unclearable') return [ValidateIf((input: Record<string | symbol, unknown>) => input[key] !== undefined), NotNull()];
  return [];
}

// GraphQL must type an optional argument as nullable, so its description says what the type cannot: null is refused.
const UNCLEARABLE_NOTE = 'May be left out (the stored value stays); null is refused, it cannot be cleared.';

function describePresence(description: string | undefined, presence: Presence): string | undefined {
  return presence === 'unclearable' ? [description, UNCLEARABLE_NOTE].filter(Boolean).join(' ') : description;
}

function userField(
  type: () => unknown,
  description: string | undefined,
  ...rules: PropertyDecorator[]
): FieldDecoratorFactory {
  return (presence = 'required') =>
    (target, key) =>
      compose(
        Field(type as () => StringConstructor, { nullable: presence !== 'required', description: describePresence(description, presence) }),
        ...presenceRule(presence, key),
        ...rules,
      )(target, key);
}

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

export const UserField = {
  email: userField(() => String, 'Email address; unique within the tenant (case-insensitively).', IsEmail({}, { message: '$property must be an email address' }), MaxLength(EMAIL_MAX_LENGTH), HasNoIgnoredCharacter()),
  password: userField(() => String, `Password (format password): ${PASSWORD_RULE.replace(/^must be /, '')}. Stored only as an Argon2id hash.`, IsAcceptablePassword()),
  firstName: userField(() => String, 'At least 1 character.', IsString(), Length(1, 100)),
  lastName: userField(() => String, 'At least 1 character.', IsString(), Length(1, 100)),
  profilePicture: userField(() => String, 'URL of the profile picture (http or https).', IsUrl(HTTP_URL), MaxLength(2048)),
  mobile: userField(() => String, 'An optional + followed by 7 to 15 digits.', Matches(MOBILE, { message: '$property must be an optional + followed by 7 to 15 digits' })),
  identificationType: userField(() => IdentificationType, 'One of CC, CE, PA, TI, NIT.', IsEnum(IdentificationType)),
  identification: userField(() => String, 'Identification document number.', IsString(), Length(1, 50)),
  address: userField(() => String, undefined, IsString(), Length(1, 300)),
  bio: userField(() => String, 'Short biography.', IsString(), MaxLength(1000)),
  social: userField(() => SocialLinksInput, 'Social media links: twitter, instagram, linkedin. On update, the object sent replaces the stored one whole.', ValidateNested()),
  defaultColor: userField(() => String, 'Default color associated with the user; bg-blue-500 when not given.', IsString(), Length(1, 50), Matches(COLOR, { message: '$property may hold letters, digits, #, _ and - only' })),
  roles: userField(() => [String], 'Role ids: admin, member, or a custom role of the tenant. Assigning them needs users:assign-roles.', IsArray(), ArrayMaxSize(20), ArrayUnique(), Matches(ROLE_ID, { each: true, message: 'each of $property must be admin, member or a role id (24 hexadecimal characters)' })),
  createdBy: userField(() => String, 'Id of the user who created the record: your own user id (any letter case).', IsObjectId()),
  updatedBy: userField(() => String, 'Id of the user who last updated the record: your own user id (any letter case).', IsObjectId()),
  tenant_id: userField(() => String, `The tenant; required when a platform administrator creates a user, else your own. It ${TENANT_ID_RULE}.`, IsTenantId()),
} satisfies Record<string, FieldDecoratorFactory>;
