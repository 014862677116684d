import type { CommandHandler } from './types.js';

/** The engine is configured through startEngine, not mongod's command line: report a bare one. */
export const getCmdLineOptsCommand: CommandHandler = {
  name: 'getCmdLineOpts',
  help: 'the command line mongod would have been started with (none)',
  handle: () => ({ argv: ['mongod'], parsed: {} }),
};
