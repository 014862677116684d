import type { CommandHandler } from './types.js';

/** Accepted and ignored: sessions keep no server state here. */
export const killAllSessionsCommand: CommandHandler = {
  name: 'killAllSessions',
  help: 'accepted; sessions keep no server state',
  handle: () => ({}),
};
