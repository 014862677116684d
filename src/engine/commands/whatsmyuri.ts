import type { CommandHandler } from './types.js';

export const whatsmyuriCommand: CommandHandler = {
  name: 'whatsmyuri',
  help: "the client's address as this server sees it",
  handle: (_body, ctx) => ({ you: ctx.connection.remoteAddress }),
};
