import { builtInRole, builtInRoles, hasPermission, tenantForCreate, tenantScope, type Actor } from '../auth/index.js';
import { AppError, errors, isDuplicateKey } from '../errors/index.js';
import { decodeCursor, encodeCursor, lazyTotal, type Page, toObjectId } from '../shared/index.js';
import type { CreateRoleArgs, RolesArgs, UpdateRoleArgs } from './role.inputs.js';
import type { RoleRecords, StoredRole } from './role.store.js';

/** A role as answered: a custom role's record, or a built-in role shown in the caller's tenant. */
export interface RoleView {
  id: string;
  name: string;
  description?: string | null;
  permissions: string[];
  tenant_id: string | null;
}

/**
 * Roles of a tenant: the built-in `admin` and `member` (in code) and custom
 * roles (records). Nobody creates or assigns a role granting a permission
 * they do not hold themselves.
 */
export class RoleService {
  constructor(private readonly roles: RoleRecords) {}

  /** Built-in roles first, then the tenant's custom roles; at most `limit` in all, one cursor walking both. */
  async list(actor: Actor, args: RolesArgs): Promise<Page<RoleView>> {
    const after = args.cursor ? decodeCursor(args.cursor) : null;
    const builtIns = BUILT_IN_PLACES.filter(({ place }) => after === null || place > after).slice(0, args.limit);
    const items: RoleView[] = builtIns.map(({ role }) => ({ ...role, permissions: [...role.permissions], tenant_id: actor.tenantId }));
    const room = args.limit - items.length;
    const totalCount = lazyTotal(async () => BUILT_IN_PLACES.length + (await this.roles.count(tenantScope(actor))));
    if (room > 0) {
      // A built-in's cursor lies below every record id, so it reads the custom roles from the first.
      const page = await this.roles.page(tenantScope(actor), { limit: room, cursor: args.cursor });
      return { items: [...items, ...page.items], nextCursor: page.nextCursor, totalCount };
    }
    const last = builtIns.at(-1)!.place;
    const more = BUILT_IN_PLACES.some(({ place }) => place > last) || (await this.roles.anyIn(tenantScope(actor)));
    return { items, nextCursor: more ? encodeCursor(toObjectId(last)) : null, totalCount };
  }

  async create(actor: Actor, args: CreateRoleArgs): Promise<RoleView> {
    const tenantId = tenantForCreate(actor, args.tenant_id);
    // In any letter case: a custom "Admin" beside the built-in admin would pass for it in every list.
    if (builtInRole(args.name.toLowerCase())) throw errors.conflict('name', `'${args.name}' is the name of a built-in role`);
    assertMayGrant(actor, args.permissions);
    try {
      return await this.roles.create({ name: args.name, description: args.description ?? null, permissions: args.permissions, tenant_id: tenantId });
    } catch (err) {
      if (isDuplicateKey(err)) throw errors.conflict('name', `A role named '${args.name}' already exists in this tenant`);
      throw err;
    }
  }

  /**
   * Role ids a caller may assign to a user of `tenantId`: each is built in or
   * a custom role of that tenant (else 400 naming `roles`), and together they
   * grant nothing the caller lacks (else 403 naming the permission).
   */
  async assertAssignable(actor: Actor, tenantId: string | null, roleIds: readonly string[]): Promise<void> {
    const { grants, unknown } = await this.grantsOf(tenantId, roleIds);
    if (unknown.length > 0) {
      throw errors.invalidField('roles', 'exists', `roles: no such role in the user's tenant: ${unknown.join(', ')}`);
    }
    const refused = notHeld(actor, grants);
    if (refused.length > 0) throw errors.forbidden(`You cannot grant permissions you do not hold: ${refused.join(', ')}`);
  }

  /**
   * What a user holding `roleIds` in `tenantId` may do that the caller may
   * not, each named `'<permission>' (role <name>)`; empty when the caller
   * holds all of it. The same test as assigning those roles: taking over
   * such a user's sign-in would grant the caller the same permissions.
   * Ids that are no role of the tenant grant nothing.
   */
  async permissionsNotHeld(actor: Pick<Actor, 'permissions'>, tenantId: string | null, roleIds: readonly string[]): Promise<string[]> {
    return notHeld(actor, (await this.grantsOf(tenantId, roleIds)).grants);
  }

  /**
   * Some changes to another user (their password, email or roles) are allowed
   * only when the caller already holds every permission the user's current
   * roles grant (see UserService): 403 naming `what` was refused, `why`, and
   * the permissions the caller lacks.
   */
  async assertHoldsWhatTheyHold(actor: Actor, tenantId: string | null, roleIds: readonly string[], what: string, why: string): Promise<void> {
    const lacking = await this.permissionsNotHeld(actor, tenantId, roleIds);
    if (lacking.length > 0) {
      throw errors.forbidden(`Changing the ${what} of a user who holds permissions you do not hold is not allowed (${why}): ${lacking.join(', ')}`);
    }
  }

  /** Each permission `roleIds` grant in `tenantId`, with the role (by name) granting it; ids of no such role apart. */
  private async grantsOf(tenantId: string | null, roleIds: readonly string[]): Promise<{ grants: Grant[]; unknown: string[] }> {
    const customIds = roleIds.filter((id) => !builtInRole(id));
    const custom = await this.roles.ofTenant(tenantId, customIds);
    const unknown = customIds.filter((id) => !custom.some((role) => role.id === id));
    const grants = [
      ...roleIds.flatMap((id) => builtInRole(id)?.permissions.map((permission) => ({ role: id, permission })) ?? []),
      ...custom.flatMap((role) => role.permissions.map((permission) => ({ role: role.name, permission }))),
    ];
    return { grants, unknown };
  }

  // Reading, changing and deleting one role (updateRole, deleteRole).

  /** A role of the caller's tenant: a built-in one as every tenant has it, or a custom role (else 404). */
  async get(actor: Actor, id: string): Promise<RoleView> {
    const builtIn = builtInRole(id);
    if (builtIn) return { ...builtIn, permissions: [...builtIn.permissions], tenant_id: actor.tenantId };
    const role = await this.roles.find(tenantScope(actor), id);
    if (!role) throw roleNotFound(id);
    return answered(role);
  }

  /**
   * Partial. Never a built-in role (403); never a role granting what the
   * caller does not hold, before or after (403: they could take access away
   * from its holders, or hand them more than they have). The write is
   * conditional on the permissions the caller was checked against: a change
   * landing in between is a 409, to be read and tried again.
   */
  async update(actor: Actor, args: UpdateRoleArgs): Promise<RoleView> {
    const { id, name, description, permissions } = args;
    const current = await this.changeable(actor, id, 'changed');
    if (name !== undefined && builtInRole(name.toLowerCase())) throw errors.conflict('name', `'${name}' is the name of a built-in role`);
    if (permissions !== undefined) assertMayGrant(actor, permissions);
    const set: Record<string, unknown> = {};
    if (name !== undefined) set.name = name;
    if (description !== undefined) set.description = description;
    if (permissions !== undefined) set.permissions = permissions;
    let updated;
    try {
      updated = await this.roles.update(tenantScope(actor), current, set);
    } catch (err) {
      if (isDuplicateKey(err)) throw errors.conflict('name', `A role named '${name}' already exists in this tenant`);
      throw err;
    }
    if (updated) return answered(updated);
    throw await this.changedOrGone(actor, id);
  }

  /**
   * Deletes a custom role nobody holds (409 naming how many users do). The
   * delete is conditional on the permissions the caller was checked against,
   * as update is (409 when the role changed in between). A user given the
   * role while it is being deleted: when that assignment is stored before the
   * delete's second count, the role is put back and the delete is 409; one
   * stored after it names a role that no longer exists, which grants nothing
   * (role-permissions.ts) and is dropped by the user's next roles update. When
   * a role of the same name was created in between, the role cannot be put
   * back under its name: the delete then stands as in the second case (a
   * refusal changes nothing, and this one could no longer be undone).
   */
  async remove(actor: Actor, id: string): Promise<RoleView> {
    const current = await this.changeable(actor, id, 'deleted');
    const tenantId = current.tenant_id;
    await this.assertHeldByNobody(tenantId, id);
    const removed = await this.roles.remove(tenantScope(actor), current);
    if (!removed) throw await this.changedOrGone(actor, id);
    const holders = await this.roles.countHolders(tenantId, id);
    if (holders === 0) return answered(removed);
    try {
      await this.roles.restore(removed);
    } catch (err) {
      if (isDuplicateKey(err)) return answered(removed);
      throw err;
    }
    throw heldBy(holders);
  }

  /** Why a conditional write of the role `id` found nothing: it changed since it was checked (409), or it is gone (404). */
  private async changedOrGone(actor: Actor, id: string): Promise<AppError> {
    if (!(await this.roles.find(tenantScope(actor), id))) return roleNotFound(id);
    const message = 'The role changed while this request was checked against it; read it again and retry';
    return new AppError('CONFLICT', message, { errors: [{ field: 'permissions', rule: 'concurrentChange', message }] });
  }

  /** The custom role to change or delete: 403 for a built-in one or one granting what the caller lacks, 404 when there is none in the scope. */
  private async changeable(actor: Actor, id: string, how: 'changed' | 'deleted'): Promise<StoredRole> {
    if (builtInRole(id)) throw errors.forbidden(`The built-in role '${id}' cannot be ${how}`);
    const current = await this.roles.find(tenantScope(actor), id);
    if (!current) throw roleNotFound(id);
    const lacking = notHeld(actor, current.permissions.map((permission) => ({ role: current.name, permission })));
    if (lacking.length > 0) throw errors.forbidden(`A role granting permissions you do not hold cannot be ${how} by you: ${lacking.join(', ')}`);
    return current;
  }

  private async assertHeldByNobody(tenantId: string | null, id: string): Promise<void> {
    const holders = await this.roles.countHolders(tenantId, id);
    if (holders > 0) throw heldBy(holders);
  }
}

/**
 * Where each built-in role sits in the roles list, as a cursor sees it: ids
 * 00…01, 00…02 (hex), below any ObjectId a record is given (its first four
 * bytes are its creation time), so paging goes from the built-ins straight
 * on to the custom roles in id order.
 */
const BUILT_IN_PLACES = Object.values(builtInRoles).map((role, index) => ({
  role,
  place: (index + 1).toString(16).padStart(24, '0'),
}));

interface Grant {
  role: string;
  permission: string;
}

/** The grants the caller lacks, named once each; `*` is held only by holding `*` itself. */
function notHeld(actor: Pick<Actor, 'permissions'>, grants: readonly Grant[]): string[] {
  const refused = grants.filter(({ permission }) => permission === '*' ? !actor.permissions.has('*') : !hasPermission(actor, permission));
  return [...new Set(refused.map(({ role, permission }) => `'${permission}' (role ${role})`))];
}

/** Refuses permissions the caller does not hold: nobody grants more than they have (createRole, updateRole). */
function assertMayGrant(actor: Actor, permissions: readonly string[]): void {
  const missing = permissions.filter((permission) => !hasPermission(actor, permission));
  if (missing.length > 0) {
    throw errors.forbidden(`You cannot grant permissions you do not hold: ${missing.map((p) => `'${p}'`).join(', ')}`);
  }
}

const roleNotFound = (id: string) => errors.notFound('Role', id);

/** 409 naming how many users hold the role (rule `heldByUsers`). */
function heldBy(holders: number): AppError {
  const message = `The role is held by ${holders} user${holders === 1 ? '' : 's'}; take it from them first`;
  return new AppError('CONFLICT', message, { errors: [{ field: 'id', rule: 'heldByUsers', message }] });
}

/** A stored custom role (lean) as answered. */
function answered({ _id, ...fields }: StoredRole): RoleView {
  return { ...fields, id: String(_id) };
}
