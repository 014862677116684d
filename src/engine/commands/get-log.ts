import type { CommandHandler } from './types.js';

/** The engine keeps no in-memory log: every log is empty (shells ask for startupWarnings). */
export const getLogCommand: CommandHandler = {
  name: 'getLog',
  help: "in-memory logs: '*' lists them, every named log is empty",
  handle: (body) => (body.getLog === '*' ? { names: ['global', 'startupWarnings'] } : { totalLinesWritten: 0, log: [] }),
};
