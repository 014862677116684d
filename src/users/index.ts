/** The access-control area: users, roles and the permission catalogue. */
export { userAccountStore } from './account-store.js';
export { bootstrapAdmin, createPlatformAdmin, type NewAdmin } from './bootstrap.js';
export { PermissionResolver } from './permission.resolver.js';
export { Role, RoleModel } from './role.model.js';
export { emailCollation, User, UserModel } from './user.model.js';
export { accessControlRestRoutes } from './users.routes.js';
