import { setFlagsFromString } from 'node:v8';
import { setTimeout as sleep } from 'node:timers/promises';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/**
 * Bytes of ArrayBuffer memory (every Buffer's) still held after full GCs.
 * V8 frees a dead Buffer's memory on a background sweep, which lags on a busy
 * machine (the full suite runs many files at once): the least of a few
 * rounds of GCs a moment apart. Memory still held stays in every round.
 */
export async function bufferMemoryAfterGc(): Promise<number> {
  let least = Infinity;
  for (let round = 0; round < 5; round += 1) {
    gc();
    await sleep(20 + round * 30);
    gc();
    least = Math.min(least, process.memoryUsage().arrayBuffers);
  }
  return least;
}
