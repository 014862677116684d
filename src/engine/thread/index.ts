/**
 * The engine in a worker thread, for a service that runs it embedded: this
 * entry loads no storage (lmdb is loaded by the thread alone).
 */
export { startEngineThread, type EngineThread } from './engine-thread.js';
export type { EngineThreadOptions } from './messages.js';
