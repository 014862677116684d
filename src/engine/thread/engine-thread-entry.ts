import { parentPort, workerData } from 'node:worker_threads';
import { startEngine } from '../index.js';
import type { EngineThreadOptions, FromEngineThread, ToEngineThread } from './messages.js';

/**
 * The engine's thread (engine-thread.ts, startEngineThread): starts the
 * engine with the options it was given and answers the service's thread.
 * Its fsync durations go out at most every WAL_SYNC_BATCH_MS, in one message.
 */
const WAL_SYNC_BATCH_MS = 250;

const port = parentPort!;
const say = (message: FromEngineThread) => port.postMessage(message);

try {
  const engine = await startEngine(workerData as EngineThreadOptions);
  void engine.failed.then((error) => say({ type: 'failed', error, waitsForSpace: engine.waitsForSpace() }));
  let walSyncs: number[] | undefined;
  port.on('message', (message: ToEngineThread) => {
    switch (message.op) {
      case 'stats':
        say({ type: 'stats', id: message.id, stats: engine.stats() });
        break;
      case 'whenSpaceIsBack':
        void engine.whenSpaceIsBack().then(() => say({ type: 'spaceBack', id: message.id }));
        break;
      case 'watchWalSync': {
        if (walSyncs) break;
        walSyncs = [];
        engine.onWalSync((seconds) => walSyncs!.push(seconds));
        setInterval(() => {
          if (walSyncs!.length === 0) return;
          say({ type: 'walSyncs', seconds: walSyncs! });
          walSyncs = [];
        }, WAL_SYNC_BATCH_MS).unref();
        break;
      }
      case 'close':
        void engine.close().then(() => {
          say({ type: 'closed' });
          // In a thread, exit ends the thread alone.
          process.exit(0);
        });
        break;
    }
  });
  say({ type: 'ready', uri: engine.uri, socketPath: engine.socketPath, host: engine.host, port: engine.port });
} catch (err) {
  say({ type: 'startFailed', error: err as Error });
}
