import type { CommandHandler } from './types.js';

/** Sessions hold no server state here (no transactions), so ending them is a no-op. */
export const endSessionsCommand: CommandHandler = {
  name: 'endSessions',
  help: 'accepted; sessions keep no server state',
  handle: () => ({}),
};
