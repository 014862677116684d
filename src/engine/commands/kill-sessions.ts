import { noopCommand } from './noop-command.js';

export const killSessionsCommand = noopCommand('killSessions', 'accepted; sessions keep no server state');
