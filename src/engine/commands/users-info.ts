import { mongoError } from '../errors.js';
import type { CommandHandler } from './types.js';

/**
 * The engine has no authentication (see cli.ts), so it has no users or
 * roles: usersInfo and rolesInfo (`db.getUsers()`, `db.getRoles()`) answer
 * empty lists, and the commands that would create or change users or roles
 * are refused rather than accepted and ignored.
 */
export const usersInfoCommand: CommandHandler = {
  name: 'usersInfo',
  help: 'users of the database (the engine has no authentication: none)',
  handle: () => ({ users: [] }),
};

export const rolesInfoCommand: CommandHandler = {
  name: 'rolesInfo',
  help: 'user-defined roles of the database (the engine has no authentication: none)',
  handle: () => ({ roles: [] }),
};

const USER_ADMIN_COMMANDS = [
  'createUser', 'updateUser', 'dropUser', 'dropAllUsersFromDatabase', 'grantRolesToUser', 'revokeRolesFromUser',
  'createRole', 'updateRole', 'dropRole', 'dropAllRolesFromDatabase', 'grantRolesToRole', 'revokeRolesFromRole',
  'grantPrivilegesToRole', 'revokePrivilegesFromRole',
];

export const userAdminCommands: CommandHandler[] = USER_ADMIN_COMMANDS.map((name) => ({
  name,
  help: 'refused: the engine has no authentication, so it keeps no users or roles',
  handle() {
    throw mongoError('CommandNotSupported', `${name}: the engine has no authentication, so it keeps no users or roles`);
  },
}));
