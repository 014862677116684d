import { noopCommand } from './noop-command.js';

export const refreshSessionsCommand = noopCommand('refreshSessions', 'accepted; sessions keep no server state');
