import { setFlagsFromString } from 'node:v8';
import { setTimeout as sleep } from 'node:timers/promises';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/**
 * Bytes of ArrayBuffer memory (every Buffer's) still held after full GCs.
 * V8 frees a dead Buffer's memory on a background sweep: the second GC, a
 * moment later, waits for the first one's.
 */
export async function bufferMemoryAfterGc(): Promise<number> {
  gc();
  await sleep(20);
  gc();
  return process.memoryUsage().arrayBuffers;
}
