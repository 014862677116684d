import { Args, Authorized, FieldResolver, Mutation, Query, Resolver, Root, UseMiddleware } from 'type-graphql';
import { Audited } from '../audit/index.js';
import { builtInRole, CurrentActor, type Actor } from '../auth/index.js';
import type { Page } from '../shared/index.js';
import { CreateRoleArgs, RolesArgs } from './role.inputs.js';
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

  @FieldResolver(() => Boolean, { description: 'True for admin and member, which every tenant has and nobody edits.' })
  builtIn(@Root() role: RoleView): boolean {
    return builtInRole(role.id) !== undefined;
  }
}
