import { noopCommand } from './noop-command.js';

/** Sessions hold no server state here (no transactions), so ending them is a no-op. */
export const endSessionsCommand = noopCommand('endSessions', 'accepted; sessions keep no server state');
