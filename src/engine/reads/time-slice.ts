import type { Document } from '../query/types.js';

/**
 * How long one command may go on reading a cursor's results (ms). The
 * engine runs on the thread of whoever embeds it: a scan that matches
 * little would otherwise hold every other connection for its whole length.
 * Past its slice a find or getMore answers with the batch it has (maybe
 * empty) and its open cursor, as mongod may answer a smaller batch than
 * asked; the driver's getMore comes back as a new message, after the other
 * connections' turn.
 */
export const READ_SLICE_MS = 10;

/** Documents read between two looks at the clock for the slice. */
export const READS_PER_SLICE_CHECK = 64;

/**
 * Documents a slice reads at least, however slow the machine: a small
 * collection's reads keep their whole batches (and a loaded machine's clock
 * cannot cut a read into many tiny batches).
 */
export const MIN_READS_PER_SLICE = 1024;

/** What a sliced read yields when its slice is spent: the batch ends there. Never a result. */
export const SLICE_END: Document = Object.freeze({}) as Document;

/** The slice of the command now reading a cursor: restarted by the cursor at each find and getMore. */
export class ReadSlice {
  private startedAt = performance.now();
  private reads = 0;

  constructor(private readonly ms = READ_SLICE_MS) {}

  begin(): void {
    this.startedAt = performance.now();
    this.reads = 0;
  }

  /** Counts one document read; true when the slice is spent (the read then yields SLICE_END). */
  read(): boolean {
    const reads = ++this.reads;
    return reads >= MIN_READS_PER_SLICE && reads % READS_PER_SLICE_CHECK === 0 && performance.now() - this.startedAt > this.ms;
  }
}
