import { noopCommand } from './noop-command.js';

export const killAllSessionsCommand = noopCommand('killAllSessions', 'accepted; sessions keep no server state');
