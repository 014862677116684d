import { trusted } from 'mongoose';
import type { AccountStore } from '../auth/index.js';
import { isObjectIdString } from '../shared/index.js';
import { cachedAccounts, cachedRolePermissions } from './account-cache.js';
import { RoleModel } from './role.model.js';
import { emailCollation, LIVE_USER, UserModel, UserStatus } from './user.model.js';

const CANDIDATE_FIELDS = { _id: 1, tenant_id: 1, roles: 1, passwordHash: 1, tokenVersion: 1, status: 1 } as const;

/** The users area's side of auth's port: the reads sign-in and credentials need. */
/** How many letter-case spellings of a named tenant holding one email a sign-in reads to find the exact one. */
const NAMED_TENANT_SPELLINGS = 20;

export const userAccountStore: AccountStore = {
  // Read on every authenticated request: kept up to a second (account-cache.ts).
  async findAccount(id) {
    if (!isObjectIdString(id)) return null;
    return cachedAccounts.get(id, async () => {
      // A deleted user is no account: its credentials are refused as a removed user's were.
      const user = await UserModel.findOne({ _id: id, ...LIVE_USER }, { roles: 1, tenant_id: 1, tokenVersion: 1, status: 1 }).lean();
      return user ? { id, tenantId: user.tenant_id ?? null, roles: user.roles ?? [], tokenVersion: user.tokenVersion ?? 0, status: accountStatus(user.status) } : null;
    });
  },

  async findLoginCandidate(email, tenant) {
    // One query. A named tenant (or null, the platform) matches at most one
    // account: email is unique per (exact) tenant. The collation that compares
    // the email case-insensitively folds tenant_id too, so a named tenant is
    // compared exactly here ('ACME' does not sign into 'acme'); it reads the
    // letter-case spellings of that tenant holding the email, a handful at
    // most. With no tenant named, null sorts before every tenant id, so the
    // platform account comes first when there is one; else a second record
    // means the email is in several tenants and no account is chosen.
    const named = tenant !== undefined;
    // Deleted users are skipped: their email is free, and neither a candidate nor a second tenant holding it.
    const users = await UserModel.find(named ? { email, tenant_id: tenant, ...LIVE_USER } : { email, ...LIVE_USER }, CANDIDATE_FIELDS)
      .collation(emailCollation)
      .sort({ tenant_id: 1 })
      .limit(named ? NAMED_TENANT_SPELLINGS : 2)
      .lean();
    const first = named ? users.find((user) => (user.tenant_id ?? null) === tenant) : users[0];
    if (!first) return null;
    const chosen = named || first.tenant_id == null || users.length === 1;
    if (!chosen) return null;
    return {
      id: String(first._id),
      tenantId: first.tenant_id ?? null,
      roles: first.roles ?? [],
      tokenVersion: first.tokenVersion ?? 0,
      status: accountStatus(first.status),
      passwordHash: first.passwordHash,
    };
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

/** A user's stored status as the account port says it: absent (a record from before the field) is active; anything else but active acts as disabled. */
function accountStatus(status: UserStatus | undefined): 'active' | 'disabled' {
  return status === undefined || status === UserStatus.active ? 'active' : 'disabled';
}
