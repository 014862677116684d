import type { CommandHandler } from './types.js';

/** No authentication: every connection is an unauthenticated user with no roles. */
export const connectionStatusCommand: CommandHandler = {
  name: 'connectionStatus',
  help: 'the authenticated users and roles of this connection (always none)',
  handle: (body) => ({
    authInfo: {
      authenticatedUsers: [],
      authenticatedUserRoles: [],
      ...(body.showPrivileges ? { authenticatedUserPrivileges: [] } : {}),
    },
  }),
};
