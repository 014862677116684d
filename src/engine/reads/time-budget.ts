import { mongoError } from '../errors.js';

/** Documents read between two looks at the clock under a maxTimeMS. */
export const READS_PER_CLOCK_CHECK = 256;

/**
 * A read's `maxTimeMS`, as mongod counts it for a cursor: the time spent
 * reading (planning, the command, each getMore), not the time a client
 * waits between batches. It runs from its creation until paused.
 */
export class TimeBudget {
  private spent = 0;
  private resumedAt = performance.now();
  private paused = false;

  constructor(private readonly maxMs: number) {}

  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    this.resumedAt = performance.now();
  }

  pause(): void {
    if (this.paused) return;
    this.paused = true;
    this.spent += performance.now() - this.resumedAt;
  }

  /** Throws MaxTimeMSExpired (50) once the reading time is past the limit. */
  check(): void {
    const now = this.paused ? 0 : performance.now() - this.resumedAt;
    if (this.spent + now > this.maxMs) throw mongoError('MaxTimeMSExpired', 'operation exceeded time limit');
  }
}
