import { RoleModel } from '../users/role.model.js';
import { isObjectIdString } from '../shared/object-id.js';
import { builtInRole } from './permissions.js';

/**
 * The permissions a set of role ids grants within a tenant: built-in roles
 * from code, custom roles from the tenant's records. Unknown ids grant nothing.
 */
export async function permissionsOfRoles(tenantId: string | null, roleIds: readonly string[]): Promise<Set<string>> {
  const granted = new Set<string>();
  const customIds: string[] = [];
  for (const roleId of roleIds) {
    const builtIn = builtInRole(roleId);
    if (builtIn) builtIn.permissions.forEach((permission) => granted.add(permission));
    else if (isObjectIdString(roleId)) customIds.push(roleId);
  }
  if (customIds.length > 0) {
    const roles = await RoleModel.find({ _id: { $in: customIds }, tenant_id: tenantId }, { permissions: 1 }).lean();
    for (const role of roles) role.permissions.forEach((permission) => granted.add(permission));
  }
  return granted;
}
