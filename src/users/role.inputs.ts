import { ArrayMaxSize, ArrayUnique, IsArray, IsIn, IsOptional, IsString, Length, Matches, MaxLength } from 'class-validator';
import { ArgsType, Field, ID } from 'type-graphql';
import { IsTenantId, permissions, TENANT_ID_RULE } from '../auth/index.js';
import { declaredField, PageArgs, type DeclaredField } from '../shared/index.js';
import type { Role } from './role.model.js';
import { ROLE_ID } from './user.fields.js';

/** Every rule of a role field, declared once: createRole and updateRole take the same decorators and differ in presence. */
export const RoleField = {
  name: declaredField(
    () => String,
    'Unique within the tenant; admin and member (in any letter case) are taken by the built-in roles.',
    IsString(),
    Length(1, 64),
    // Stored as sent: a name mongoose would trim ('admin ') would pass the built-in check, then be 'admin'.
    Matches(/^[\w.-](?:[\w .-]*[\w.-])?$/, { message: '$property may hold letters, digits, spaces, _, . and - only, and neither starts nor ends with a space' }),
  ),
  description: declaredField(() => String, undefined, IsString(), MaxLength(500)),
  permissions: declaredField(
    () => [String],
    'Permission strings from `permissions`; none you do not hold yourself.',
    IsArray(),
    ArrayMaxSize(permissions.length),
    ArrayUnique(),
    IsIn([...permissions], { each: true, message: 'each of $property must be a permission of the catalogue (see permissions)' }),
  ),
} satisfies Record<string, DeclaredField>;

/** `createRole` / `POST /access-control/roles`. */
@ArgsType()
export class CreateRoleArgs implements Partial<Role> {
  @RoleField.name() name!: string;
  @RoleField.description('optional') description?: string | null;
  @RoleField.permissions() permissions!: string[];

  @Field(() => String, { nullable: true, description: `The tenant; required when a platform administrator creates a role, else your own. It ${TENANT_ID_RULE}.` })
  @IsOptional()
  @IsTenantId()
  tenant_id?: string | null;
}

/** `roles` / `GET /access-control/roles`. */
@ArgsType()
export class RolesArgs extends PageArgs {}

/** A role as an argument: a built-in role's name (`admin`, `member`) or a custom role's record id. */
@ArgsType()
export class RoleIdArgs {
  @Field(() => ID, { description: 'admin, member, or a custom role id (24 hexadecimal characters).' })
  @Matches(ROLE_ID, { message: '$property must be admin, member or a role id (24 hexadecimal characters)' })
  id!: string;
}

/** `updateRole` / `PATCH /access-control/roles/{id}`: partial, an absent field stays; `description: null` clears it. */
@ArgsType()
export class UpdateRoleArgs extends RoleIdArgs {
  @RoleField.name('unclearable') name?: string;
  @RoleField.description('optional') description?: string | null;
  @RoleField.permissions('unclearable', 'The whole new set of permissions, from `permissions`; none you do not hold yourself.') permissions?: string[];
}
