import type { Document } from '../query/types.js';
import { commandTable } from './registry.js';
import type { CommandHandler } from './types.js';

/** listCommands (`db.listCommands()`): every command the engine answers, with its help text. */
export const listCommandsCommand: CommandHandler = {
  name: 'listCommands',
  help: 'the commands this server answers',
  handle() {
    const commands: Document = {};
    for (const handler of [...commandTable].sort((a, b) => a.name.localeCompare(b.name))) {
      commands[handler.name] = { help: handler.help, requiresAuth: false, secondaryOk: true, adminOnly: false, apiVersions: [], deprecatedApiVersions: [] };
    }
    return { commands };
  },
};
