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
  type AuthEvents,
} from '../auth/index.js';
import { AppError, errors } from '../errors/index.js';
import { assertVersion, type Page } from '../shared/index.js';
import type { RoleService } from './role.service.js';
import type { CreateUserArgs, UpdateUserArgs, UsersArgs } from './user.inputs.js';
import type { UserApiKeys } from './user-api-keys.port.js';
import { DEFAULT_USER_COLOR, UserStatus } from './user.model.js';
import { sameMembers, type StoredUser, type UserDocument, type UserRecords } from './user.store.js';
import type { DeletedUser } from './user.types.js';

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
    private readonly apiKeys: UserApiKeys,
    /** Told when a wrong current password starts the account's throttling. */
    private readonly signInEvents?: Pick<AuthEvents, 'signInLocked'>,
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
    const losesAdmin = rolesChange && isActivePlatformAdmin(current) && !(roles ?? []).includes('admin');
    if (losesAdmin) await this.assertNotLastPlatformAdmin(current, 'removed from the admin role');

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
    if (losesAdmin) await this.assertPlatformAdminLeftAfterRoles(current, updated);
    return updated;
  }

  // Status: disable, enable, delete (contract "Users: disabling, deleting, sessions").

  /**
   * Disables a user (status disabled, disabledAt, disabledReason) and ends
   * every token and session they hold (the token version is raised in the
   * same write): their tokens, sessions and API keys are refused from the
   * next request. Disabling again answers the record unchanged (the first
   * disabledAt and reason stay). Never oneself (403), never a user holding
   * permissions the caller lacks (403: it would lock them out), never the
   * last active platform administrator (409).
   */
  async disable(actor: Actor, id: string, reason: string | null): Promise<UserDocument> {
    const current = await this.statusTarget(actor, id, 'disable');
    if (current.disabledAt) return this.unchanged(actor, current);
    await this.assertNotLastPlatformAdmin(current, 'disabled');
    const disabled = await this.users.disable(tenantScope(actor), current._id, reason, actor.userId);
    // Disabled (or deleted) meanwhile by another call: answered as it now is.
    if (!disabled) return this.unchanged(actor, current);
    await this.assertPlatformAdminLeft(current, disabled, 'disabled');
    return disabled;
  }

  /**
   * Lets a disabled user sign in again (status active, disabledAt and
   * disabledReason cleared). Tokens and sessions ended by the disable stay
   * ended. An active user is answered unchanged. Never a user holding
   * permissions the caller lacks (403, as disable).
   */
  async enable(actor: Actor, id: string): Promise<UserDocument> {
    const current = await this.users.read(tenantScope(actor), id);
    if (!current) throw notFound(id);
    if (current.status !== UserStatus.disabled) return this.unchanged(actor, current);
    // Switching an administrator back on is for those who hold what they hold (as disabling is).
    await this.assertHoldsWhatTheyHold(actor, current.tenant_id, current.roles ?? [], 'status', 'it would let you undo their disabling');
    const enabled = await this.users.enable(tenantScope(actor), current._id, actor.userId);
    return enabled ?? this.unchanged(actor, current);
  }

  /**
   * Deletes a user: the record stays (for the audit trail) with deletedAt and
   * status deleted, answers no read and no sign-in, its email is free, every
   * token and session ends (token version), and every API key it created is
   * revoked (and so the keys those made). The same refusals as disable; a
   * deleted user is 404.
   */
  async delete(actor: Actor, id: string): Promise<DeletedUser> {
    const current = await this.statusTarget(actor, id, 'delete');
    await this.assertNotLastPlatformAdmin(current, 'deleted');
    const deleted = await this.users.markDeleted(tenantScope(actor), current._id, actor.userId);
    if (!deleted) throw notFound(id);
    await this.assertPlatformAdminLeft(current, deleted, 'deleted');
    const revokedKeys = await this.apiKeys.revokeKeysOf(current.tenant_id ?? null, id, actor.userId);
    return { id: String(current._id), deletedAt: deleted.deletedAt!, revokedKeys, tenant_id: current.tenant_id ?? null };
  }

  /** The user a disable or delete acts on: of the caller's scope (else 404), not the caller, not holding more than the caller. */
  private async statusTarget(actor: Actor, id: string, verb: 'disable' | 'delete'): Promise<StoredUser> {
    const current = await this.users.read(tenantScope(actor), id);
    if (!current) throw notFound(id);
    if (id === actor.userId) throw errors.forbidden(`You cannot ${verb} yourself; another administrator can`);
    await this.assertHoldsWhatTheyHold(actor, current.tenant_id, current.roles ?? [], 'status', 'it would lock them out');
    return current;
  }

  /** A status call that changes nothing: the record as it is (a REST If-Match still holds it to the version read: 412). */
  private async unchanged(actor: Actor, current: StoredUser): Promise<UserDocument> {
    assertVersion(current.updatedAt);
    const user = await this.users.find(tenantScope(actor), String(current._id));
    if (!user) throw notFound(String(current._id));
    return user;
  }

  /** 409 when `user` is an active platform administrator and no other is active. */
  private async assertNotLastPlatformAdmin(user: StoredUser, becoming: Becoming): Promise<void> {
    if (!isActivePlatformAdmin(user)) return;
    if ((await this.users.countActivePlatformAdmins(user._id)) === 0) throw lastPlatformAdmin(becoming);
  }

  /**
   * After the write: two calls disabling (or deleting) the last two platform
   * administrators at once each saw the other still active. Whichever finds
   * none left undoes its own change and answers 409, so at least one stays
   * (both may refuse; a retry then succeeds for one).
   */
  private async assertPlatformAdminLeft(before: StoredUser, changed: UserDocument, becoming: 'disabled' | 'deleted'): Promise<void> {
    if (!isActivePlatformAdmin(before)) return;
    if ((await this.users.countActivePlatformAdmins()) > 0) return;
    await this.undone(this.users.restoreStatus(before, changed), before, becoming);
  }

  /** The same after-the-write check for a roles change taking `admin` away (a disable racing it on another instance). */
  private async assertPlatformAdminLeftAfterRoles(before: StoredUser, changed: UserDocument): Promise<void> {
    if ((await this.users.countActivePlatformAdmins()) > 0) return;
    await this.undone(this.users.restoreRoles(before, changed), before, 'removed from the admin role');
  }

  /**
   * 409 once the undo is written. When it matched nothing (the record moved
   * meanwhile: another call changed it), the change stays and the caller is
   * told so, never "nothing changed".
   */
  private async undone(undo: Promise<boolean>, before: StoredUser, becoming: Becoming): Promise<never> {
    if (await undo) throw lastPlatformAdmin(becoming);
    const message = `No active platform administrator is left, and this change could not be undone because the user ${String(before._id)} changed meanwhile: make a platform administrator (npm run cli -- create-admin)`;
    throw new AppError('CONFLICT', message, { errors: [{ field: 'id', rule: 'lastPlatformAdmin', message }], changeStands: true });
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
    await this.roles.assertHoldsWhatTheyHold(actor, tenantId, roleIds, what, why);
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
    const account = { id: String(current._id), email: current.email, tenantId: current.tenant_id ?? null, passwordHash };
    await proveCurrentPassword(proof.loginThrottle, account, currentPassword ?? undefined, proof.ip, this.signInEvents);
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

/** A platform administrator (no tenant, the built-in admin role) neither disabled nor deleted. */
function isActivePlatformAdmin(user: StoredUser): boolean {
  return (user.tenant_id ?? null) === null && (user.roles ?? []).includes('admin') && !user.disabledAt && !user.deletedAt;
}

/** What would happen to the last active platform administrator. */
type Becoming = 'disabled' | 'deleted' | 'removed from the admin role';

function lastPlatformAdmin(becoming: Becoming): AppError {
  const message = `The last active platform administrator cannot be ${becoming}: make another one first`;
  const field = becoming === 'removed from the admin role' ? 'roles' : 'id';
  return new AppError('CONFLICT', message, { errors: [{ field, rule: 'lastPlatformAdmin', message }] });
}

function withoutNulls<T extends object>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== null && value !== undefined)) as Partial<T>;
}
