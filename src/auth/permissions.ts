/**
 * The service's permission strings (`<area>:<action>`) and the built-in roles
 * every tenant has. `*` means every permission.
 */
export const permissions = [
  'api-keys:read',
  'api-keys:create',
  'api-keys:update',
  'api-keys:revoke',
  'api-keys:verify',
  'users:read',
  'users:create',
  'users:update',
  'users:assign-roles',
  'users:disable',
  'users:delete',
  'roles:read',
  'roles:create',
  'roles:update',
  'roles:delete',
  'menus:read',
  'menus:write',
  'menus:delete',
  'schemas:read',
  'audit:read',
  'events:read',
  'webhooks:manage',
] as const;

export type Permission = (typeof permissions)[number];

export const ALL_PERMISSIONS = '*';

export interface BuiltInRole {
  id: string;
  name: string;
  description: string;
  permissions: readonly string[];
}

/** Built in for every tenant, with these fixed ids; not stored as records. */
export const builtInRoles: Readonly<Record<'admin' | 'member', BuiltInRole>> = {
  admin: {
    id: 'admin',
    name: 'admin',
    description: 'Every permission within the tenant',
    permissions: [ALL_PERMISSIONS],
  },
  member: {
    id: 'member',
    name: 'member',
    description: 'Reads what the tenant owns; creates and manages its own API keys',
    permissions: ['users:read', 'roles:read', 'menus:read', 'schemas:read', 'api-keys:create'],
  },
};

export function isPermission(value: string): value is Permission {
  return (permissions as readonly string[]).includes(value);
}

export function builtInRole(roleId: string): BuiltInRole | undefined {
  return Object.hasOwn(builtInRoles, roleId) ? builtInRoles[roleId as keyof typeof builtInRoles] : undefined;
}
