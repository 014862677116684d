import { trusted } from 'mongoose';
import { MAX_LOGIN_CANDIDATES, type AccountStore } from '../auth/index.js';
import { isObjectIdString } from '../shared/object-id.js';
import { cachedAccounts, cachedRolePermissions } from './account-cache.js';
import { RoleModel } from './role.model.js';
import { emailCollation, UserModel } from './user.model.js';

const CANDIDATE_FIELDS = { _id: 1, tenant_id: 1, roles: 1, passwordHash: 1, tokenVersion: 1 } as const;

/** The users area's side of auth's port: the reads sign-in and credentials need. */
export const userAccountStore: AccountStore = {
  // Read on every authenticated request: kept up to a second (account-cache.ts).
  async findAccount(id) {
    if (!isObjectIdString(id)) return null;
    return cachedAccounts.get(id, async () => {
      const user = await UserModel.findById(id, { roles: 1, tenant_id: 1, tokenVersion: 1 }).lean();
      return user ? { id, tenantId: user.tenant_id ?? null, roles: user.roles ?? [], tokenVersion: user.tokenVersion ?? 0 } : null;
    });
  },

  async findLoginCandidates(email, tenant) {
    // One query reading at most MAX_LOGIN_CANDIDATES + 1 records. Email is
    // unique per tenant; the collation compares the email case-insensitively
    // but folds tenant_id too, so a named tenant is compared exactly here.
    // With no tenant named, null sorts before every tenant id: the platform
    // account comes first when there is one, and is then the only candidate.
    const named = tenant !== undefined;
    const users = await UserModel.find(named ? { email, tenant_id: tenant } : { email }, CANDIDATE_FIELDS)
      .collation(emailCollation)
      .sort({ tenant_id: 1 })
      .limit(MAX_LOGIN_CANDIDATES + 1)
      .lean();
    const [first] = users;
    let chosen: typeof users;
    if (named) chosen = users.filter((user) => (user.tenant_id ?? null) === tenant).slice(0, 1);
    else if (first && first.tenant_id == null) chosen = [first];
    else chosen = users.length > MAX_LOGIN_CANDIDATES ? [] : users;
    return chosen.map((user) => ({
      id: String(user._id),
      tenantId: user.tenant_id ?? null,
      roles: user.roles ?? [],
      tokenVersion: user.tokenVersion ?? 0,
      passwordHash: user.passwordHash,
    }));
  },

  async customRolePermissions(tenantId, roleIds) {
    const ids = roleIds.filter(isObjectIdString);
    if (ids.length === 0) return [];
    // JSON keeps null and a tenant named "null" apart.
    return cachedRolePermissions.get(JSON.stringify([tenantId, ids]), async () => {
      const roles = await RoleModel.find({ _id: trusted({ $in: ids }), tenant_id: tenantId }, { permissions: 1 }).lean();
      return roles.flatMap((role) => role.permissions);
    });
  },
};
