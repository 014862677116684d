import { describe, expect, it } from 'vitest';
import { EventModel, EventTail } from '../../src/events/index.js';
import { serviceModelsOnEngine } from '../support/models-on-engine.js';

/**
 * The tail's reads fail while the database is away: it keeps polling, and
 * says so once per outage (not once per 20 ms poll), and once when reads work again.
 */
serviceModelsOnEngine('event_tail_outage');

describe('EventTail during a database outage', () => {
  it('logs the failure once per outage and the recovery once, and keeps reading', async () => {
    let down = true;
    let reads = 0;
    // The collection as the tail reads it, failing while `down`.
    const model = new Proxy(EventModel, {
      get(target, name, receiver) {
        if (name !== 'find') return Reflect.get(target, name, receiver);
        return (...args: unknown[]) => {
          reads++;
          if (down) throw new Error('connection refused (simulated)');
          return (target.find as (...a: unknown[]) => unknown)(...args);
        };
      },
    });
    const logged = { error: [] as unknown[][], info: [] as unknown[][] };
    const logger = { error: (...args: unknown[]) => logged.error.push(args), info: (...args: unknown[]) => logged.info.push(args) };
    const tail = new EventTail(model, { intervalMs: 10, logger: logger as never });
    const stop = tail.subscribe(() => undefined);
    try {
      await until(() => reads >= 20, '20 failing reads');
      expect(logged.error).toHaveLength(1);
      expect(String(logged.error[0][1])).toMatch(/could not read the event log/);
      down = false;
      const readsAtRecovery = reads;
      await until(() => reads >= readsAtRecovery + 20 && logged.info.length > 0, 'reads after the outage');
      expect(logged.info).toHaveLength(1);
      down = true;
      const readsAtSecond = reads;
      await until(() => reads >= readsAtSecond + 20, 'a second outage');
      expect(logged.error).toHaveLength(2);
    } finally {
      stop();
      tail.close();
    }
  });
});

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
