import { Args, Authorized, FieldResolver, Mutation, Query, Resolver, Root, UseMiddleware } from 'type-graphql';
import { Audited } from '../audit/index.js';
import { builtInRole, CurrentActor, type Actor } from '../auth/index.js';
import type { Page } from '../shared/index.js';
import { CreateRoleArgs, RoleIdArgs, RolesArgs, UpdateRoleArgs } from './role.inputs.js';
import { Role } from './role.model.js';
import type { RoleService, RoleView } from './role.service.js';
import { RolePage } from './role.types.js';

/** Thin: unpack the arguments and the caller, call the service. Built by the composition root with its service (src/service.ts). */
@Resolver(() => Role)
export class RoleResolver {
  constructor(private readonly service: RoleService) {}

  @Authorized('roles:read')
  @Query(() => RolePage, { description: 'Roles of your tenant: the built-in admin and member first, then custom roles.' })
  roles(@Args() args: RolesArgs, @CurrentActor() actor: Actor): Promise<Page<RoleView>> {
    return this.service.list(actor, args);
  }

  @Authorized('roles:create')
  @UseMiddleware(Audited('roles.create', { targetType: 'Role' }))
  @Mutation(() => Role, { description: 'Create a custom role of your tenant, with permissions you hold yourself.' })
  createRole(@Args() args: CreateRoleArgs, @CurrentActor() actor: Actor): Promise<RoleView> {
    return this.service.create(actor, args);
  }

  @Authorized('roles:read')
  @Query(() => Role, { description: 'One role of your tenant: admin, member, or a custom role (its updatedAt is the version If-Match names).' })
  role(@Args() { id }: RoleIdArgs, @CurrentActor() actor: Actor): Promise<RoleView> {
    return this.service.get(actor, id);
  }

  @Authorized('roles:update')
  @UseMiddleware(Audited('roles.update', { targetType: 'Role' }))
  @Mutation(() => Role, {
    description:
      'Change a custom role: absent fields stay, description null clears it; permissions is the whole new set. Never a built-in ' +
      'role (403), nor a role granting, before or after, a permission you do not hold (403). Its holders (and their API keys) act by it from their next request.',
  })
  updateRole(@Args() args: UpdateRoleArgs, @CurrentActor() actor: Actor): Promise<RoleView> {
    return this.service.update(actor, args);
  }

  @Authorized('roles:delete')
  @UseMiddleware(Audited('roles.delete', { targetType: 'Role', removesTarget: true }))
  @Mutation(() => Role, {
    description:
      'Delete a custom role nobody holds (409 naming how many users hold it); answers the role as it was. Never a built-in role (403), ' +
      'nor a role granting a permission you do not hold (403).',
  })
  deleteRole(@Args() { id }: RoleIdArgs, @CurrentActor() actor: Actor): Promise<RoleView> {
    return this.service.remove(actor, id);
  }

  @FieldResolver(() => Boolean, { description: 'True for admin and member, which every tenant has and nobody edits.' })
  builtIn(@Root() role: RoleView): boolean {
    return builtInRole(role.id) !== undefined;
  }
}
