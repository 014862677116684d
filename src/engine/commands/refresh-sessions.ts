import type { CommandHandler } from './types.js';

/** Accepted and ignored: sessions keep no server state here. */
export const refreshSessionsCommand: CommandHandler = {
  name: 'refreshSessions',
  help: 'accepted; sessions keep no server state',
  handle: () => ({}),
};
