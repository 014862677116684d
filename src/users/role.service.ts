import { builtInRole, builtInRoles, hasPermission, tenantForCreate, tenantScope, type Actor } from '../auth/index.js';
import { errors, isDuplicateKey } from '../errors/index.js';
import { decodeCursor, encodeCursor, lazyTotal, type Page, toObjectId } from '../shared/index.js';
import type { CreateRoleArgs, RolesArgs } from './role.inputs.js';
import type { RoleRecords } from './role.store.js';

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
    const missing = args.permissions.filter((permission) => !hasPermission(actor, permission));
    if (missing.length > 0) {
      throw errors.forbidden(`You cannot grant permissions you do not hold: ${missing.map((p) => `'${p}'`).join(', ')}`);
    }
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
  async permissionsNotHeld(actor: Actor, tenantId: string | null, roleIds: readonly string[]): Promise<string[]> {
    return notHeld(actor, (await this.grantsOf(tenantId, roleIds)).grants);
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
function notHeld(actor: Actor, grants: readonly Grant[]): string[] {
  const refused = grants.filter(({ permission }) => permission === '*' ? !actor.permissions.has('*') : !hasPermission(actor, permission));
  return [...new Set(refused.map(({ role, permission }) => `'${permission}' (role ${role})`))];
}
