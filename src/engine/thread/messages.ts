import type { EngineStats, EngineOptions } from '../index.js';

/**
 * What the service's thread and the engine's thread say to each other
 * (engine-thread.ts, engine-thread-entry.ts). Only data: the options carry
 * no function (the engine thread logs to stderr itself).
 */
export type EngineThreadOptions = EngineOptions & { log?: never };

export type ToEngineThread =
  | { op: 'stats'; id: number }
  | { op: 'whenSpaceIsBack'; id: number }
  | { op: 'watchWalSync' }
  | { op: 'close' };

export type FromEngineThread =
  | { type: 'ready'; uri: string; socketPath?: string; host?: string; port?: number }
  | { type: 'startFailed'; error: Error }
  | { type: 'failed'; error: Error; waitsForSpace: boolean }
  | { type: 'stats'; id: number; stats: EngineStats }
  | { type: 'spaceBack'; id: number }
  | { type: 'walSyncs'; seconds: number[] }
  | { type: 'closed' };
