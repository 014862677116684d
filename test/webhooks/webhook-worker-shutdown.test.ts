import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { startTestApp } from '../support/test-app.js';

/**
 * Stopping the service waits for the webhook worker's claim under way: the
 * database closes after it, so a shutdown logs no failed claim (the worker
 * polls every millisecond here, so a claim is nearly always under way).
 */
describe('the webhook worker at shutdown', () => {
  it('stops with no claim left to fail against a closed database', async () => {
    const errors: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        errors.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    for (let round = 0; round < 4; round += 1) {
      const app = await startTestApp({ logger: createLogger({ logLevel: 'error' }, sink), webhooks: { pollMs: 1 } });
      await new Promise((resolve) => setTimeout(resolve, 100));
      await app.close();
    }
    expect(errors.map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual([]);
  });
});
