import { MongoServerError } from 'mongodb';
import { describeCompat, type CompatCase } from './compat-cases.js';

/**
 * Index commands racing a drop on another connection, as mongoose's tests do
 * (autoIndex on one connection, dropDatabase on another). mongod answers each
 * command from what it did under its own lock; the engine waits for the write
 * to reach its journal before answering, and a drop may run meanwhile: the
 * reply must still describe what the command did, never an InternalError.
 */

const ROUNDS = 25;

/** Runs `command` beside a dropDatabase ROUNDS times; returns the errors other than the `allowed` codes. */
async function unexpectedErrors(command: () => Promise<unknown>, drop: () => Promise<unknown>, allowed: number[] = []): Promise<string[]> {
  const unexpected: string[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    for (const outcome of await Promise.allSettled([command(), drop()])) {
      if (outcome.status === 'fulfilled') continue;
      const err = outcome.reason as unknown;
      if (err instanceof MongoServerError && allowed.includes(err.code as number)) continue;
      unexpected.push(err instanceof Error ? err.message : String(err));
    }
  }
  return [...new Set(unexpected)];
}

const cases: CompatCase[] = [
  {
    name: 'createIndexes beside a dropDatabase answers for the index it built',
    run: (c, db) => unexpectedErrors(() => c.createIndex({ a: 1 }), () => db.dropDatabase()),
    expected: [],
  },
  {
    name: 'createIndexes reports the index count it reached',
    run: async (c, db) => {
      const counts = new Set<number>();
      for (let i = 0; i < ROUNDS; i++) {
        const [reply] = await Promise.all([db.command({ createIndexes: c.collectionName, indexes: [{ key: { b: 1 }, name: 'b_1' }] }), db.dropDatabase()]);
        counts.add(reply.numIndexesAfter as number);
      }
      return [...counts];
    },
    expected: [2],
  },
  {
    name: 'reIndex beside a dropDatabase answers, or finds no collection (26)',
    run: async (c, db) => {
      const command = async () => {
        await c.insertOne({ a: 1 });
        await c.createIndex({ a: 1 });
        return db.command({ reIndex: c.collectionName });
      };
      return unexpectedErrors(command, () => db.dropDatabase(), [26]);
    },
    expected: [],
  },
];

describeCompat('ddl races', cases);
