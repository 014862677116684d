import { randomUUID } from 'node:crypto';
import { MongoClient, type CommandFailedEvent, type CommandSucceededEvent, type Db } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compatTargets } from './targets.js';

/**
 * Command monitoring through the real driver: it reports a command as failed
 * only when the reply says `ok: 0`, so each refusal must come back in that
 * shape (mongoose re-emits these events, and its own test creates a capped
 * collection without a size to see `commandFailed`). A write with write
 * errors is still `ok: 1`, a succeeded command, as with mongod.
 */

type Outcome = [command: string, event: 'succeeded' | 'failed', code?: number];

const cases: Array<{ name: string; command: string; run(db: Db): Promise<unknown>; expected: Outcome }> = [
  {
    name: 'create capped without a size is a failed command (72)',
    command: 'create',
    run: (db) => db.createCollection('capped_no_size', { capped: 1024 as unknown as boolean }),
    expected: ['create', 'failed', 72],
  },
  {
    name: 'create of an existing collection is a failed command (48)',
    command: 'create',
    run: async (db) => {
      await db.createCollection('exists').catch(() => undefined);
      return db.createCollection('exists');
    },
    expected: ['create', 'failed', 48],
  },
  {
    name: 'an unknown command is a failed command (59)',
    command: 'noSuchCommand',
    run: (db) => db.command({ noSuchCommand: 1 }),
    expected: ['noSuchCommand', 'failed', 59],
  },
  {
    name: 'a find with an unknown operator is a failed command (2)',
    command: 'find',
    run: (db) => db.collection('f').find({ a: { $bogus: 1 } }).toArray(),
    expected: ['find', 'failed', 2],
  },
  {
    name: 'an insert with a duplicate key succeeds as a command, with a write error',
    command: 'insert',
    run: async (db) => {
      await db.collection('dup').insertOne({ _id: 1 } as never).catch(() => undefined);
      return db.collection('dup').insertOne({ _id: 1 } as never);
    },
    expected: ['insert', 'succeeded'],
  },
];

for (const target of compatTargets()) {
  describe(`command monitoring (${target.name})`, () => {
    let client: MongoClient;
    let close: () => Promise<void>;
    const events: Array<{ requestId: number; outcome: Outcome }> = [];
    beforeAll(async () => {
      const server = await target.start();
      client = await new MongoClient(server.uri, { monitorCommands: true }).connect();
      client.on('commandSucceeded', (e: CommandSucceededEvent) => events.push({ requestId: e.requestId, outcome: [e.commandName, 'succeeded'] }));
      client.on('commandFailed', (e: CommandFailedEvent) =>
        events.push({ requestId: e.requestId, outcome: [e.commandName, 'failed', (e.failure as { code?: number }).code] }),
      );
      close = async () => {
        await client.close();
        await server.close();
      };
    });
    afterAll(async () => close?.());

    for (const c of cases) {
      it(c.name, async () => {
        const db = client.db(`compat_monitoring_${randomUUID().slice(0, 8)}`);
        try {
          events.length = 0;
          await c.run(db).catch(() => undefined);
          const last = events.filter((e) => e.outcome[0] === c.command).at(-1);
          expect(last?.outcome).toEqual(c.expected);
        } finally {
          await db.dropDatabase();
        }
      });
    }
  });
}
