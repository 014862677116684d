import type { AccountStore } from '../auth/index.js';
import { isObjectIdString } from '../shared/object-id.js';
import { RoleModel } from './role.model.js';
import { emailCollation, UserModel } from './user.model.js';

/** The users area's side of auth's port: the reads sign-in and credentials need. */
export const userAccountStore: AccountStore = {
  async findAccount(id) {
    if (!isObjectIdString(id)) return null;
    const user = await UserModel.findById(id, { roles: 1, tenant_id: 1 }).lean();
    return user ? { id, tenantId: user.tenant_id ?? null, roles: user.roles ?? [] } : null;
  },

  async findLoginCandidates(email, tenantId, limit) {
    const filter = tenantId ? { email, tenant_id: tenantId } : { email };
    const users = await UserModel.find(filter, { _id: 1, tenant_id: 1, roles: 1, passwordHash: 1 })
      .collation(emailCollation)
      .limit(limit)
      .lean();
    return users.map((user) => ({
      id: String(user._id),
      tenantId: user.tenant_id ?? null,
      roles: user.roles ?? [],
      passwordHash: user.passwordHash,
    }));
  },

  async customRolePermissions(tenantId, roleIds) {
    const ids = roleIds.filter(isObjectIdString);
    if (ids.length === 0) return [];
    const roles = await RoleModel.find({ _id: { $in: ids }, tenant_id: tenantId }, { permissions: 1 }).lean();
    return roles.flatMap((role) => role.permissions);
  },
};
