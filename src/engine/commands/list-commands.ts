import type { Document } from '../query/types.js';
import type { CommandHandler } from './types.js';

/** listCommands (`db.listCommands()`): every command the engine answers (the registry's table), with its help text. */
export function createListCommandsCommand(commandTable: () => readonly CommandHandler[]): CommandHandler {
  return {
    name: 'listCommands',
    help: 'the commands this server answers',
    handle() {
      const commands: Document = {};
      for (const handler of [...commandTable()].sort((a, b) => a.name.localeCompare(b.name))) {
        commands[handler.name] = { help: handler.help, requiresAuth: false, secondaryOk: true, adminOnly: false, apiVersions: [], deprecatedApiVersions: [] };
      }
      return { commands };
    },
  };
}
