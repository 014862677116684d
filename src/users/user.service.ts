import {
  hashPassword,
  hasPermission,
  isUserInPerson,
  proveCurrentPassword,
  tenantForCreate,
  tenantScope,
  type Actor,
  type LoginThrottleSettings,
  type TenantFilter,
} from '../auth/index.js';
import { errors } from '../errors/index.js';
import type { Page } from '../shared/index.js';
import type { RoleService } from './role.service.js';
import type { CreateUserArgs, UpdateUserArgs, UsersArgs } from './user.inputs.js';
import { DEFAULT_USER_COLOR } from './user.model.js';
import { sameMembers, type StoredUser, type UserDocument, type UserRecords } from './user.store.js';

export type { UserDocument } from './user.store.js';

const notFound = (id: string) => errors.notFound('User', id);

/** What proving one's current password needs of the request: the sign-in throttle's settings and the client's address. */
export interface PasswordProofFacts {
  loginThrottle: LoginThrottleSettings;
  ip: string;
}

/** Fields of an update that are not plain profile values. */
type ProfileFields = Omit<UpdateUserArgs, 'id' | 'password' | 'roles' | 'tenant_id' | 'createdBy' | 'updatedBy' | 'currentPassword'>;

/**
 * Users of a tenant: the rules of the contract's "Users" and "Permissions
 * and tenants" sections. Every method takes the caller as a plain `Actor`;
 * every query is confined to the caller's tenant, so another tenant's user
 * answers 404. The input rules (formats, lengths) were checked on the
 * arguments before any method runs (user.fields.ts).
 */
export class UserService {
  constructor(
    private readonly users: UserRecords,
    private readonly roles: RoleService,
  ) {}

  list(actor: Actor, args: UsersArgs): Promise<Page<UserDocument>> {
    return this.users.list(tenantScope(actor), args);
  }

  /** Anyone may read their own record in person; other users (and API keys) need `users:read`. */
  async get(actor: Actor, id: string): Promise<UserDocument> {
    if (!isUserInPerson(actor, id) && !hasPermission(actor, 'users:read')) {
      throw errors.forbidden("You do not have permission to view this user (users:read)");
    }
    const user = await this.users.find(tenantScope(actor), id);
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
    return this.users.create({
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
   * ends every token and session issued before it. One's own password or
   * email needs `currentPassword` too (proveOwnSignInChange).
   */
  async update(actor: Actor, args: UpdateUserArgs, proof: PasswordProofFacts): Promise<UserDocument> {
    const { id, password, roles, tenant_id: tenantId, createdBy, updatedBy, currentPassword, ...profile } = args;
    const scope = tenantScope(actor);
    const current = await this.users.read(scope, id);
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
    if (signInFields.length > 0 && isUserInPerson(actor, id)) await this.proveOwnSignInChange(scope, current, currentPassword, proof);

    const set: Record<string, unknown> = { updatedBy };
    for (const [field, value] of Object.entries(profile as ProfileFields)) {
      if (value !== undefined) set[field] = value;
    }
    if (profile.defaultColor === null) set.defaultColor = DEFAULT_USER_COLOR;
    if (rolesChange) set.roles = roles ?? [];
    if (password !== undefined) set.passwordHash = await hashPassword(password);
    // A new password ends every token issued before it.
    const updated = await this.users.update(scope, current, set, { endTokens: password !== undefined });
    if (!updated) throw notFound(id);
    return updated;
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

  /**
   * One's own password or email changes only with the current password in
   * the same request (a stolen access token cannot take the account over):
   * absent, 400 naming currentPassword (rule `required`); wrong, 403 (rule
   * `matches`), counted by the sign-in throttle.
   */
  private async proveOwnSignInChange(scope: TenantFilter, current: StoredUser, currentPassword: string | null | undefined, proof: PasswordProofFacts): Promise<void> {
    const passwordHash = await this.users.passwordHashOf(scope, String(current._id));
    if (passwordHash === null) throw notFound(String(current._id));
    const account = { email: current.email, tenantId: current.tenant_id ?? null, passwordHash };
    await proveCurrentPassword(proof.loginThrottle, account, currentPassword ?? undefined, proof.ip);
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

function withoutNulls<T extends object>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== null && value !== undefined)) as Partial<T>;
}
