import type { CommandHandler } from './types.js';

/** Accepted and ignored: sessions keep no server state here. */
export const killSessionsCommand: CommandHandler = {
  name: 'killSessions',
  help: 'accepted; sessions keep no server state',
  handle: () => ({}),
};
