import type { CommandHandler } from './types.js';

export const pingCommand: CommandHandler = {
  name: 'ping',
  help: 'answers ok: 1 (liveness check)',
  handle: () => ({}),
};
