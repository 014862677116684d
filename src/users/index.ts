/** The access-control area: users, roles and the permission catalogue. */
export { userAccountStore } from './account.store.js';
export { backfillUserSearchKeys, bootstrapAdmin, createPlatformAdmin, type NewAdmin } from './bootstrap.js';
export { PermissionResolver } from './permission.resolver.js';
export { RoleResolver } from './role.resolver.js';
export { Role, RoleModel } from './role.model.js';
export { RoleService } from './role.service.js';
export { RoleRecords } from './role.store.js';
export { UserResolver } from './user.resolver.js';
export { DEFAULT_USER_COLOR, emailCollation, IdentificationType, SocialLinks, User, UserModel } from './user.model.js';
export { UserService } from './user.service.js';
export { UserRecords } from './user.store.js';
export { accessControlRestRoutes } from './users.routes.js';
export { SessionResolver } from './session.resolver.js';
export { SessionService } from './session.service.js';
export { UserCredentialRecords } from './user.store.js';
