import type { DocumentType, ReturnModelType } from '@typegoose/typegoose';
import { trusted } from 'mongoose';
import { hashPassword, hasPermission, isUserInPerson, tenantForCreate, tenantScope, type Actor } from '../auth/index.js';
import { errors } from '../errors/index.js';
import { toObjectId } from '../shared/object-id.js';
import { findPage, listReadTimeLimit, type Page } from '../shared/pagination.js';
import { createdBetween } from '../shared/timestamps.js';
import { RoleService } from './role.service.js';
import type { CreateUserArgs, UpdateUserArgs, UsersArgs } from './user.inputs.js';
import { DEFAULT_USER_COLOR, User, UserModel } from './user.model.js';
import { escapeRegExp, searchConditions, searchKeysOf } from './user-search.js';

export type UserDocument = DocumentType<User>;

const notFound = (id: string) => errors.notFound('User', id);

/** Fields of an update that are not plain profile values. */
type ProfileFields = Omit<UpdateUserArgs, 'id' | 'password' | 'roles' | 'tenant_id' | 'createdBy' | 'updatedBy'>;

/**
 * Users of a tenant: the rules of the contract's "Users" and "Permissions
 * and tenants" sections. Every method takes the caller as a plain `Actor`;
 * every query is confined to the caller's tenant, so another tenant's user
 * answers 404. The input rules (formats, lengths) were checked on the
 * arguments before any method runs (user.fields.ts).
 */
export class UserService {
  constructor(
    private readonly model: ReturnModelType<typeof User> = UserModel,
    private readonly roles = new RoleService(),
  ) {}

  async list(actor: Actor, args: UsersArgs): Promise<Page<UserDocument>> {
    const filter: Record<string, unknown> = { ...tenantScope(actor) };
    if (args.email) filter.email = trusted({ $regex: `^${escapeRegExp(args.email)}$`, $options: 'i' });
    if (args.role) filter.roles = args.role;
    // Every condition must hold; a search's first word bounds the read through its index (user-search.ts).
    const all: Array<Record<string, unknown>> = args.search ? searchConditions(args.search) : [];
    if (args.createdAfter || args.createdBefore) all.push(createdBetween(args.createdAfter, args.createdBefore));
    if (all.length > 0) filter.$and = all;
    // A filter no index bounds (dates, email) may read the whole tenant: bounded in time, then 503.
    return findPage(this.model, filter, args, { maxTimeMS: listReadTimeLimit() });
  }

  /** Anyone may read their own record in person; other users (and API keys) need `users:read`. */
  async get(actor: Actor, id: string): Promise<UserDocument> {
    if (!isUserInPerson(actor, id) && !hasPermission(actor, 'users:read')) {
      throw errors.forbidden("You do not have permission to view this user (users:read)");
    }
    const user = await this.model.findOne({ _id: toObjectId(id), ...tenantScope(actor) });
    if (!user) throw notFound(id);
    return user;
  }

  async create(actor: Actor, args: CreateUserArgs): Promise<UserDocument> {
    const { password, roles, tenant_id: requestedTenant, createdBy, updatedBy, ...profile } = args;
    assertSelf(actor, { createdBy, updatedBy });
    const tenantId = tenantForCreate(actor, requestedTenant);
    const assigned = roles ?? [];
    if (assigned.length > 0) await this.assertMayAssign(actor, tenantId, assigned);
    // Argon2id runs on libuv's thread pool: other requests are served meanwhile.
    const passwordHash = await hashPassword(password);
    // A duplicate email in the tenant is the unique index's 11000: 409 naming `email`.
    return this.model.create({
      ...withoutNulls(profile),
      defaultColor: profile.defaultColor ?? DEFAULT_USER_COLOR,
      passwordHash,
      roles: assigned,
      tenant_id: tenantId,
      createdBy,
      updatedBy,
    });
  }

  /**
   * Partial: absent fields stay, `null` clears an optional field. Users may
   * edit their own profile without `users:update`, never their own roles or
   * tenant. A password change re-hashes and raises `tokenVersion`, which
   * ends every token issued before it.
   */
  async update(actor: Actor, args: UpdateUserArgs): Promise<UserDocument> {
    const { id, password, roles, tenant_id: tenantId, createdBy, updatedBy, ...profile } = args;
    const scope = { _id: toObjectId(id), ...tenantScope(actor) };
    const current = await this.model.findOne(scope).lean();
    if (!current) throw notFound(id);
    // The record is the caller's own (for an API key: its creator's): never its roles.
    const self = id === actor.userId;
    const signInFields = [
      ...(password !== undefined ? ['password'] : []),
      ...(profile.email !== undefined && profile.email !== current.email ? ['email'] : []),
    ];
    if (self) assertOwnSignInInPerson(actor, signInFields);
    // Only in person does one's own profile need no permission: an API key needs users:update.
    if (!isUserInPerson(actor, id) && !hasPermission(actor, 'users:update')) {
      throw errors.forbidden('You do not have permission to update this user (users:update)');
    }
    assertSelf(actor, { updatedBy });
    if (createdBy !== undefined && createdBy !== current.createdBy) {
      throw errors.invalidField('createdBy', 'immutable', 'createdBy names who created the user and cannot change');
    }
    if (tenantId !== undefined && tenantId !== current.tenant_id) {
      throw errors.forbidden('You cannot move a user to another tenant');
    }
    // Roles sent back as held (in any order) change nothing: no permission is needed for them.
    const rolesChange = roles !== undefined && !sameMembers(roles ?? [], current.roles ?? []);
    if (rolesChange) {
      if (self) throw errors.forbidden('You cannot change your own roles');
      await this.assertMayAssign(actor, current.tenant_id, roles ?? []);
      await this.assertHoldsWhatTheyHold(actor, current.tenant_id, current.roles ?? [], 'roles', 'it would let you take their access away');
    }
    if (signInFields.length > 0 && !isUserInPerson(actor, id)) {
      await this.assertHoldsWhatTheyHold(actor, current.tenant_id, current.roles ?? [], signInFields.join(' and '), 'it would let you sign in as them');
    }

    const set: Record<string, unknown> = { updatedBy };
    for (const [field, value] of Object.entries(profile as ProfileFields)) {
      if (value !== undefined) set[field] = value;
    }
    if (profile.defaultColor === null) set.defaultColor = DEFAULT_USER_COLOR;
    if (rolesChange) set.roles = roles ?? [];
    if (['email', 'firstName', 'lastName'].some((field) => set[field] !== undefined)) set.searchKeys = searchKeysOf({ ...current, ...set });
    const update: Record<string, unknown> = { $set: set };
    if (password !== undefined) {
      set.passwordHash = await hashPassword(password);
      update.$inc = { tokenVersion: 1 };
    }
    const updated = await this.model.findOneAndUpdate(scope, update, { returnDocument: 'after', runValidators: true });
    if (!updated) throw notFound(id);
    if (set.searchKeys !== undefined) await this.keepSearchKeysInStep(updated);
    return updated;
  }

  /**
   * The keys were computed from the record as read before the write: an
   * update of another of the searched fields landing in between (one sets
   * the email, the other the name) would leave keys of neither's state. The
   * record after the write holds both changes; when its keys are not its
   * fields', they are set again, on the condition that those fields are still
   * as seen (else the later writer's own check sets them).
   */
  private async keepSearchKeysInStep(updated: UserDocument): Promise<void> {
    const keys = searchKeysOf(updated);
    if (sameMembers(keys, updated.searchKeys ?? [])) return;
    const asSeen = { email: updated.email, firstName: updated.firstName ?? null, lastName: updated.lastName ?? null };
    await this.model.updateOne({ _id: updated._id, ...asSeen }, { $set: { searchKeys: keys } }, { timestamps: false });
    updated.searchKeys = keys;
  }

  /**
   * Some changes to another user are allowed only when the caller already
   * holds every permission the user's current roles grant (the test
   * assigning those roles would pass): their password or email (sign-in is
   * by email), since whoever sets them can sign in as that user; and their
   * roles, since taking an administrator's roles away locks them out. An API
   * key changing its creator is "another user" here: it acts only within its
   * scopes.
   */
  private async assertHoldsWhatTheyHold(actor: Actor, tenantId: string | null, roleIds: readonly string[], what: string, why: string): Promise<void> {
    const notHeld = await this.roles.permissionsNotHeld(actor, tenantId, roleIds);
    if (notHeld.length > 0) {
      throw errors.forbidden(`Changing the ${what} of a user who holds permissions you do not hold is not allowed (${why}): ${notHeld.join(', ')}`);
    }
  }

  /** Assigning roles needs `users:assign-roles` and grants nothing the caller lacks. */
  private async assertMayAssign(actor: Actor, tenantId: string | null, roleIds: readonly string[]): Promise<void> {
    if (!hasPermission(actor, 'users:assign-roles')) {
      throw errors.forbidden('You do not have permission to assign roles (users:assign-roles)');
    }
    await this.roles.assertAssignable(actor, tenantId, roleIds);
  }
}

/**
 * `createdBy` / `updatedBy` name the caller (for an API key, its creator):
 * a well-formed id of anyone else is refused.
 */
function assertSelf(actor: Actor, ids: { createdBy?: string; updatedBy?: string }): void {
  for (const [field, value] of Object.entries(ids)) {
    if (value !== undefined && value !== actor.userId) {
      throw errors.forbidden(`${field} must be your own user id`);
    }
  }
}

/**
 * One's own password and email (sign-in is by email) change only in person:
 * through an API key, whatever its scopes, the key's holder would take the
 * account over and leave the key's IPs, expiry and rate limit behind.
 */
function assertOwnSignInInPerson(actor: Actor, fields: readonly string[]): void {
  if (actor.via.kind !== 'api-key' || fields.length === 0) return;
  const message = (field: string) => `Your own ${field} can be changed only by you in person (signed in), never through an API key`;
  throw errors.forbiddenFields(
    `An API key cannot change the ${fields.join(' or ')} of the user it acts for: only that user, in person, can`,
    fields.map((field) => ({ field, rule: 'inPersonOnly', message: message(field) })),
  );
}

/** The same ids or keys, in any order (a stored list holds each once, as the input rule does). */
function sameMembers(given: readonly string[], held: readonly string[]): boolean {
  const heldSet = new Set(held);
  return given.length === heldSet.size && given.every((role) => heldSet.has(role));
}

function withoutNulls<T extends object>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== null && value !== undefined)) as Partial<T>;
}
