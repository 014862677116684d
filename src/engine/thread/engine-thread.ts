import { Worker } from 'node:worker_threads';
import type { EngineStats } from '../index.js';
import type { EngineThreadOptions, FromEngineThread, ToEngineThread } from './messages.js';

/** The engine in a thread of its own, as the service's thread sees it. */
export interface EngineThread {
  /** The connection string for the driver (a unix socket or a loopback port). */
  uri: string;
  /** Stops the engine (connections, cursors, storage flushed and closed), then the thread. */
  close(): Promise<void>;
  /** As RunningEngine's: resolves once the storage could not write (or the thread died). */
  failed: Promise<Error>;
  waitsForSpace(): boolean;
  whenSpaceIsBack(): Promise<void>;
  stats(): Promise<EngineStats>;
  onWalSync(listener: (seconds: number) => void): () => void;
}

/** The thread's entry beside this module (dist/src/engine/thread/ when built). */
const ENTRY = new URL('./engine-thread-entry.js', import.meta.url);

/**
 * Starts the engine in a worker thread: its commands, storage and garbage
 * then run beside the thread that answers HTTP requests rather than on it,
 * as with a standalone engine, while still being the one process `npm start`
 * runs. The driver reaches it as ever (its socket or port); lmdb is loaded in
 * that thread only. A thread that dies resolves `failed` (the service then
 * stops for a restart, as for a storage failure).
 */
export function startEngineThread(options: EngineThreadOptions, entry: URL = ENTRY): Promise<EngineThread> {
  const thread = new Worker(entry, { workerData: options, name: 'engine' });
  const pending = new Map<number, { resolve: (message: FromEngineThread) => void; reject: (error: Error) => void }>();
  let nextId = 0;
  let gone: Error | undefined;
  const ask = <T extends FromEngineThread>(op: 'stats' | 'whenSpaceIsBack') =>
    new Promise<T>((resolve, reject) => {
      if (gone) return reject(gone);
      const id = nextId++;
      pending.set(id, { resolve: resolve as (message: FromEngineThread) => void, reject });
      send({ op, id });
    });
  const send = (message: ToEngineThread) => thread.postMessage(message);
  const walListeners = new Set<(seconds: number) => void>();
  let waits = false;
  let closing = false;
  let reportFailure!: (error: Error) => void;
  const failed = new Promise<Error>((resolve) => (reportFailure = resolve));
  const exited = new Promise<number>((resolve) => thread.once('exit', resolve));

  return new Promise<EngineThread>((resolve, reject) => {
    thread.on('error', (err: Error) => {
      reject(err);
      reportFailure(err);
    });
    void exited.then((code) => {
      gone = new Error(`the engine thread has exited (code ${code})`);
      for (const asked of pending.values()) asked.reject(gone);
      pending.clear();
      reject(new Error(`the engine thread exited (code ${code}) before it started`));
      if (!closing) reportFailure(new Error(`the engine thread exited (code ${code})`));
    });
    thread.on('message', (message: FromEngineThread) => {
      switch (message.type) {
        case 'ready':
          resolve({
            uri: message.uri,
            failed,
            waitsForSpace: () => waits,
            whenSpaceIsBack: async () => {
              await ask('whenSpaceIsBack');
            },
            stats: async () => (await ask<Extract<FromEngineThread, { type: 'stats' }>>('stats')).stats,
            onWalSync(listener) {
              if (walListeners.size === 0) send({ op: 'watchWalSync' });
              walListeners.add(listener);
              return () => walListeners.delete(listener);
            },
            async close() {
              if (!closing) {
                closing = true;
                send({ op: 'close' });
              }
              await exited;
            },
          });
          break;
        case 'startFailed':
          closing = true;
          reject(message.error);
          break;
        case 'failed':
          waits = message.waitsForSpace;
          reportFailure(message.error);
          break;
        case 'stats':
        case 'spaceBack':
          pending.get(message.id)?.resolve(message);
          pending.delete(message.id);
          break;
        case 'walSyncs':
          for (const seconds of message.seconds) for (const listener of walListeners) listener(seconds);
          break;
        case 'closed':
          break;
      }
    });
  });
}
