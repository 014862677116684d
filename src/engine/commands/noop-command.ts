import type { CommandHandler } from './types.js';

/** A command that is accepted and does nothing (session bookkeeping we do not keep). */
export function noopCommand(name: string, help: string): CommandHandler {
  return { name, help, handle: () => ({}) };
}
