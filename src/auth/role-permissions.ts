import type { AccountStore } from './ports.js';
import { builtInRole } from './permissions.js';

/**
 * The permissions a set of role ids grants within a tenant: built-in roles
 * from code, custom roles from the tenant's records. Unknown ids grant nothing.
 */
export async function permissionsOfRoles(
  accounts: Pick<AccountStore, 'customRolePermissions'>,
  tenantId: string | null,
  roleIds: readonly string[],
): Promise<Set<string>> {
  const granted = new Set<string>();
  const customIds: string[] = [];
  for (const roleId of roleIds) {
    const builtIn = builtInRole(roleId);
    if (builtIn) builtIn.permissions.forEach((permission) => granted.add(permission));
    else customIds.push(roleId);
  }
  if (customIds.length > 0) {
    for (const permission of await accounts.customRolePermissions(tenantId, customIds)) granted.add(permission);
  }
  return granted;
}
