import type { ReturnModelType } from '@typegoose/typegoose';
import { trusted } from 'mongoose';
import { builtInRole, builtInRoles, hasPermission, tenantForCreate, tenantScope, type Actor } from '../auth/index.js';
import { errors, isDuplicateKey } from '../errors/index.js';
import { findPage, type Page } from '../shared/pagination.js';
import type { CreateRoleArgs, RolesArgs } from './role.inputs.js';
import { Role, RoleModel } from './role.model.js';

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
  constructor(private readonly model: ReturnModelType<typeof Role> = RoleModel) {}

  async list(actor: Actor, args: RolesArgs): Promise<Page<RoleView>> {
    const page = await findPage(this.model, { ...tenantScope(actor) }, args);
    const items: RoleView[] = page.items;
    if (args.cursor) return { items, nextCursor: page.nextCursor };
    const builtIns = Object.values(builtInRoles).map((role) => ({ ...role, permissions: [...role.permissions], tenant_id: actor.tenantId }));
    return { items: [...builtIns, ...items], nextCursor: page.nextCursor };
  }

  async create(actor: Actor, args: CreateRoleArgs): Promise<RoleView> {
    const tenantId = tenantForCreate(actor, args.tenant_id);
    if (builtInRole(args.name)) throw errors.conflict('name', `'${args.name}' is a built-in role`);
    const missing = args.permissions.filter((permission) => !hasPermission(actor, permission));
    if (missing.length > 0) {
      throw errors.forbidden(`You cannot grant permissions you do not hold: ${missing.map((p) => `'${p}'`).join(', ')}`);
    }
    try {
      return await this.model.create({ name: args.name, description: args.description ?? null, permissions: args.permissions, tenant_id: tenantId });
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
    const customIds = roleIds.filter((id) => !builtInRole(id));
    const custom = customIds.length > 0 ? await this.model.find({ _id: trusted({ $in: customIds }), tenant_id: tenantId }).lean() : [];
    const unknown = customIds.filter((id) => !custom.some((role) => String(role._id) === id));
    if (unknown.length > 0) {
      throw errors.invalidField('roles', 'exists', `roles: no such role in the user's tenant: ${unknown.join(', ')}`);
    }
    const granted = [
      ...roleIds.flatMap((id) => builtInRole(id)?.permissions.map((permission) => ({ role: id, permission })) ?? []),
      ...custom.flatMap((role) => role.permissions.map((permission) => ({ role: role.name, permission }))),
    ];
    const refused = granted.filter(({ permission }) => permission === '*' ? !actor.permissions.has('*') : !hasPermission(actor, permission));
    if (refused.length > 0) {
      const named = [...new Set(refused.map(({ role, permission }) => `'${permission}' (role ${role})`))].join(', ');
      throw errors.forbidden(`You cannot grant permissions you do not hold: ${named}`);
    }
  }
}
