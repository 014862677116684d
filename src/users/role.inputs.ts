import { ArrayMaxSize, ArrayUnique, IsArray, IsIn, IsOptional, IsString, Length, Matches, MaxLength } from 'class-validator';
import { ArgsType, Field } from 'type-graphql';
import { IsTenantId, permissions, TENANT_ID_RULE } from '../auth/index.js';
import { PageArgs } from '../shared/index.js';
import type { Role } from './role.model.js';

/** `createRole` / `POST /access-control/roles`. */
@ArgsType()
export class CreateRoleArgs implements Partial<Role> {
  @Field({ description: 'Unique within the tenant; admin and member (in any letter case) are taken by the built-in roles.' })
  @IsString()
  @Length(1, 64)
  // Stored as sent: a name mongoose would trim ('admin ') would pass the built-in check, then be 'admin'.
  @Matches(/^[\w.-](?:[\w .-]*[\w.-])?$/, { message: '$property may hold letters, digits, spaces, _, . and - only, and neither starts nor ends with a space' })
  name!: string;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  description?: string | null;

  @Field(() => [String], { description: 'Permission strings from `permissions`; none you do not hold yourself.' })
  @IsArray()
  @ArrayMaxSize(permissions.length)
  @ArrayUnique()
  @IsIn([...permissions], { each: true, message: 'each of $property must be a permission of the catalogue (see permissions)' })
  permissions!: string[];

  @Field(() => String, { nullable: true, description: `The tenant; required when a platform administrator creates a role, else your own. It ${TENANT_ID_RULE}.` })
  @IsOptional()
  @IsTenantId()
  tenant_id?: string | null;
}

/** `roles` / `GET /access-control/roles`. */
@ArgsType()
export class RolesArgs extends PageArgs {}
