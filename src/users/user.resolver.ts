import { Args, Authorized, Ctx, FieldResolver, Mutation, Query, Resolver, Root, UseMiddleware } from 'type-graphql';
import { Audited } from '../audit/index.js';
import { CurrentActor, type Actor, type AppContext } from '../auth/index.js';
import { OncePerRequest, ScanFilters } from '../graphql/index.js';
import type { Page } from '../shared/index.js';
import { CreateUserArgs, DisableUserArgs, UpdateUserArgs, UserIdArgs, UsersArgs } from './user.inputs.js';
import { User, UserStatus } from './user.model.js';
import type { UserDocument, UserService } from './user.service.js';
import { DeletedUser, UserPage } from './user.types.js';

/** Thin: unpack the arguments and the caller, call the service. Built by the composition root with its service (src/service.ts). */
@Resolver(() => User)
export class UserResolver {
  constructor(private readonly service: UserService) {}

  @Authorized('users:read')
  // No index bounds the date and email filters; a search's words may share index entries with many users.
  @ScanFilters('search', 'email', 'createdAfter', 'createdBefore')
  @Query(() => UserPage, {
    description: 'Users of your tenant (a platform administrator: of every tenant), a page at a time, with filters.',
  })
  users(@Args() args: UsersArgs, @CurrentActor() actor: Actor): Promise<Page<UserDocument>> {
    return this.service.list(actor, args);
  }

  @Authorized()
  @Query(() => User, { description: 'One user; your own record needs no permission, others need users:read.' })
  user(@Args() { id }: UserIdArgs, @CurrentActor() actor: Actor): Promise<UserDocument> {
    return this.service.get(actor, id);
  }

  @Authorized()
  @Query(() => User, { description: 'Your own user record (for an API key: its creator): your id is what createdBy and updatedBy take.' })
  me(@CurrentActor() actor: Actor): Promise<UserDocument> {
    return this.service.get(actor, actor.userId);
  }

  @Authorized('users:create')
  @OncePerRequest()
  @UseMiddleware(Audited('users.create', { targetType: 'User' }))
  @Mutation(() => User, {
    description:
      'Create a user of your tenant (a platform administrator names tenant_id). createdBy and updatedBy are your own id; ' +
      'roles need users:assign-roles. The email is unique within the tenant (409).',
  })
  createUser(@Args() args: CreateUserArgs, @CurrentActor() actor: Actor): Promise<UserDocument> {
    return this.service.create(actor, args);
  }

  @Authorized()
  @OncePerRequest()
  @UseMiddleware(Audited('users.update', { targetType: 'User' }))
  @Mutation(() => User, {
    description:
      'Update a user: absent fields stay, null clears an optional field. Your own profile needs no permission ' +
      "(never your roles or tenant); others need users:update, roles users:assign-roles, and another user's roles, password " +
      'or email every permission that user holds. A new password ends older tokens and sessions. Your own password or email ' +
      'needs currentPassword too (absent: 400; wrong: 403, counted as a failed sign-in).',
  })
  updateUser(@Args() args: UpdateUserArgs, @CurrentActor() actor: Actor, @Ctx() context: AppContext): Promise<UserDocument> {
    return this.service.update(actor, args, { loginThrottle: context.config.loginThrottle, ip: context.ip });
  }

  // Status: disable, enable, delete.

  // Typed by its field, not the class: type-graphql would copy a class-typed root into a new instance, losing a document's fields.
  @FieldResolver(() => UserStatus, { description: 'active, disabled or deleted (a deleted user answers no read, so reads answer active or disabled).' })
  status(@Root() user: Pick<User, 'status'>): UserStatus {
    // A record stored before the field existed is active.
    return user.status ?? UserStatus.active;
  }

  @Authorized('users:disable')
  @UseMiddleware(Audited('users.disable', { targetType: 'User' }))
  @Mutation(() => User, {
    description:
      'Disable a user: they cannot sign in, and their access tokens, sessions and API keys are refused from the next request ' +
      '(on every instance within a second). Disabling again answers the record unchanged (the first disabledAt and reason stay). ' +
      'Never yourself or a user holding permissions you lack (403); never the last active platform administrator (409).',
  })
  disableUser(@Args() { id, reason }: DisableUserArgs, @CurrentActor() actor: Actor): Promise<UserDocument> {
    return this.service.disable(actor, id, reason ?? null);
  }

  @Authorized('users:disable')
  @UseMiddleware(Audited('users.enable', { targetType: 'User' }))
  @Mutation(() => User, {
    description: 'Let a disabled user sign in again (status active); tokens and sessions ended by the disable stay ended. An active user is answered unchanged.',
  })
  enableUser(@Args() { id }: UserIdArgs, @CurrentActor() actor: Actor): Promise<UserDocument> {
    return this.service.enable(actor, id);
  }

  @Authorized('users:delete')
  @UseMiddleware(Audited('users.delete', { targetType: 'User' }))
  @Mutation(() => DeletedUser, {
    description:
      'Delete a user: the record is kept for the audit trail but answers no read or list (404), its email is free for a new user, ' +
      'its tokens and sessions end, and every API key it created (and the keys those made) is revoked. ' +
      'The same refusals as disableUser; a deleted user is 404.',
  })
  deleteUser(@Args() { id }: UserIdArgs, @CurrentActor() actor: Actor): Promise<DeletedUser> {
    return this.service.delete(actor, id);
  }
}
