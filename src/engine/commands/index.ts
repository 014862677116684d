/** The command layer's public face: the dispatcher, the handler/context types, and the registry. */
export { createDispatcher } from './dispatch.js';
export type { Dispatch, DispatcherOptions } from './dispatch.js';
export { commandTable, lookupCommand } from './registry.js';
export { FsyncLock } from './fsync-lock.js';
export type { CommandContext, CommandHandler, ConnectionInfo, EngineState } from './types.js';
