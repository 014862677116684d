import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MongoClient, MongoServerError, type Db } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine } from '../../../src/engine/index.js';
import { describeCompat, type CompatCase } from './compat-cases.js';
import { compatTargets } from './targets.js';

/**
 * db.fsyncLock() as mongod 7.0 has it (commands/fsync.cpp): `{fsync: 1,
 * lock: true}` on admin flushes, then holds every write and DDL of every
 * connection until as many `{fsyncUnlock: 1}`; reads go on; the count nests;
 * currentOp shows `fsyncLock: true` meanwhile; fsyncUnlock when not locked is
 * IllegalOperation (20). A held write waits (it is not refused), and one with
 * maxTimeMS ends with MaxTimeMSExpired (50).
 */

/** Leaves the server unlocked whatever the case did. */
async function unlockAll(db: Db): Promise<void> {
  const admin = db.client.db('admin');
  for (;;) {
    const reply = await admin.command({ fsyncUnlock: 1 }).catch(() => undefined);
    if (!reply || reply.lockCount === 0) return;
  }
}

async function whileLocked<T>(db: Db, run: (admin: Db) => Promise<T>): Promise<T> {
  const admin = db.client.db('admin');
  try {
    return await run(admin);
  } finally {
    await unlockAll(db);
  }
}

const cases: CompatCase[] = [
  {
    name: 'fsync lock outside admin is Unauthorized (13)',
    run: (_c, db) => db.command({ fsync: 1, lock: true }),
    code: 13,
  },
  {
    name: 'fsyncUnlock when not locked is IllegalOperation (20)',
    run: (_c, db) => db.client.db('admin').command({ fsyncUnlock: 1 }),
    code: 20,
  },
  {
    name: 'locks nest: each fsyncLock counts up, each fsyncUnlock down, in mongod’s reply shapes',
    run: (_c, db) =>
      whileLocked(db, async (admin) => {
        const first = await admin.command({ fsync: 1, lock: true });
        const second = await admin.command({ fsync: 1, lock: 1 });
        const unlocked = await admin.command({ fsyncUnlock: 1 });
        const last = await admin.command({ fsyncUnlock: 1 });
        return { first, second: second.lockCount, unlocked, last };
      }),
    expected: {
      first: { info: 'now locked against writes, use db.fsyncUnlock() to unlock', lockCount: 1, seeAlso: 'http://dochub.mongodb.org/core/fsynccommand', ok: 1 },
      second: 2,
      unlocked: { info: 'fsyncUnlock completed', lockCount: 1, ok: 1 },
      last: { info: 'fsyncUnlock completed', lockCount: 0, ok: 1 },
    },
  },
  {
    name: 'currentOp shows fsyncLock: true while locked, and not after',
    run: (_c, db) =>
      whileLocked(db, async (admin) => {
        await admin.command({ fsync: 1, lock: true });
        const locked = await admin.command({ currentOp: 1 });
        await admin.command({ fsyncUnlock: 1 });
        const unlocked = await admin.command({ currentOp: 1 });
        return { locked: [locked.fsyncLock, locked.info], unlocked: unlocked.fsyncLock };
      }),
    expected: { locked: [true, 'use db.fsyncUnlock() to terminate the fsync write/snapshot lock'], unlocked: undefined },
  },
  {
    name: 'while locked, reads, hello and serverStatus are answered',
    seed: [{ _id: 1 }],
    run: (c, db) =>
      whileLocked(db, async (admin) => {
        await admin.command({ fsync: 1, lock: true });
        const found = await c.find({}).toArray();
        const hello = await admin.command({ hello: 1 });
        const status = await admin.command({ serverStatus: 1 });
        return { found, hello: hello.isWritablePrimary, status: status.ok };
      }),
    expected: { found: [{ _id: 1 }], hello: true, status: 1 },
  },
  {
    name: 'a write with maxTimeMS held by the lock ends with MaxTimeMSExpired (50) and is not applied',
    run: (c, db) =>
      whileLocked(db, async (admin) => {
        await admin.command({ fsync: 1, lock: true });
        const err = await db.command({ insert: c.collectionName, documents: [{ _id: 1 }], maxTimeMS: 200 }).catch((e: MongoServerError) => e);
        await admin.command({ fsyncUnlock: 1 });
        return { code: (err as MongoServerError).code, count: await c.countDocuments() };
      }),
    expected: { code: 50, count: 0 },
  },
  {
    name: 'an aggregate with $out is held as a write (50 past its maxTimeMS); a plain aggregate is answered',
    seed: [{ _id: 1 }],
    run: (c, db) =>
      whileLocked(db, async (admin) => {
        await admin.command({ fsync: 1, lock: true });
        const plain = await c.aggregate([{ $match: {} }]).toArray();
        const out = await c
          .aggregate([{ $out: `${c.collectionName}_out` }], { maxTimeMS: 200 })
          .toArray()
          .catch((e: MongoServerError) => e.code);
        return { plain, out };
      }),
    expected: { plain: [{ _id: 1 }], out: 50 },
  },
];

describeCompat('fsync lock', cases);

/** Each data file (the lock file aside) with its size and modification time. */
function filesOf(dir: string): Record<string, [number, number]> {
  const files: Record<string, [number, number]> = {};
  for (const name of readdirSync(dir)) {
    if (name.endsWith('-lock') || name === 'socket') continue;
    const stat = statSync(path.join(dir, name));
    if (stat.isFile()) files[name] = [stat.size, stat.mtimeMs];
  }
  return files;
}

/** Resolves to 'pending' when `promise` has not settled within `ms`. */
function settledWithin(promise: Promise<unknown>, ms: number): Promise<'settled' | 'pending'> {
  return Promise.race([promise.then(() => 'settled' as const, () => 'settled' as const), new Promise<'pending'>((r) => setTimeout(() => r('pending'), ms))]);
}

for (const target of compatTargets()) {
  describe(`fsync lock with two clients (${target.name})`, () => {
    let locker: MongoClient;
    let writer: MongoClient;
    let close: () => Promise<void>;
    beforeAll(async () => {
      const server = await target.start();
      locker = await new MongoClient(server.uri).connect();
      writer = await new MongoClient(server.uri).connect();
      close = async () => {
        await Promise.all([locker.close(), writer.close()]);
        await server.close();
      };
    });
    afterAll(async () => close?.());

    it('the other client’s write waits for the unlock, then completes; its reads go on meanwhile', async () => {
      const coll = writer.db(`fsync_two_${Date.now()}`).collection('c');
      await coll.insertOne({ _id: 0 } as never);
      await locker.db('admin').command({ fsync: 1, lock: true });
      try {
        const write = coll.insertOne({ _id: 1 } as never);
        const ddl = coll.createIndex({ a: 1 });
        expect(await settledWithin(write, 300)).toBe('pending');
        expect(await settledWithin(ddl, 10)).toBe('pending');
        // Reads are answered while the write waits, without it.
        expect(await coll.find({}).toArray()).toEqual([{ _id: 0 }]);
        const ops = await locker.db('admin').command({ currentOp: 1 });
        expect(ops.fsyncLock).toBe(true);
        await locker.db('admin').command({ fsyncUnlock: 1 });
        await expect(write).resolves.toMatchObject({ acknowledged: true });
        await expect(ddl).resolves.toBe('a_1');
        expect(await coll.find({}).toArray()).toEqual([{ _id: 0 }, { _id: 1 }]);
      } finally {
        await locker.db('admin').command({ fsyncUnlock: 1 }).catch(() => undefined);
        await coll.db.dropDatabase();
      }
    });
  });
}

describe('fsync lock and the engine itself (engine only)', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'engine-fsync-'));
    dirs.push(dir);
    return dir;
  };
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('the TTL monitor removes nothing while locked, and resumes after the unlock', async () => {
    const engine = await startEngine({ dbPath: tempDir(), port: 0, ttlMonitorIntervalMs: 50 });
    const client = await new MongoClient(engine.uri).connect();
    try {
      const coll = client.db('ttl').collection('t');
      await coll.createIndex({ at: 1 }, { expireAfterSeconds: 0 });
      // The monitor sleeps until the lock is held, so that the expired document is still there then.
      await client.db('admin').command({ setParameter: 1, ttlMonitorEnabled: false });
      await coll.insertOne({ at: new Date(0) });
      await client.db('admin').command({ fsync: 1, lock: true });
      await client.db('admin').command({ setParameter: 1, ttlMonitorEnabled: true });
      await new Promise((r) => setTimeout(r, 400));
      expect(await coll.countDocuments()).toBe(1);
      await client.db('admin').command({ fsyncUnlock: 1 });
      await expect.poll(() => coll.countDocuments(), { timeout: 5_000, interval: 50 }).toBe(0);
    } finally {
      await client.close();
      await engine.close();
    }
  });

  it('the data files stay still while locked: the lock checkpoints what was logged (lmdb)', async () => {
    const dir = tempDir();
    const engine = await startEngine({ dbPath: dir, port: 0 });
    const client = await new MongoClient(engine.uri).connect();
    try {
      await client.db('files').collection('c').insertMany(Array.from({ length: 2_000 }, (_, i) => ({ i, pad: 'x'.repeat(100) })));
      await client.db('admin').command({ fsync: 1, lock: true });
      const before = filesOf(dir);
      await new Promise((r) => setTimeout(r, 400));
      expect(filesOf(dir)).toEqual(before);
      expect(engine.stats().walBytes).toBe(0);
      await client.db('admin').command({ fsyncUnlock: 1 });
    } finally {
      await client.close();
      await engine.close();
    }
  });

  it('closing the engine while locked does not hang: a held write ends, and the data is kept', async () => {
    const dir = tempDir();
    const engine = await startEngine({ dbPath: dir, port: 0 });
    const client = await new MongoClient(engine.uri, { retryWrites: false }).connect();
    const coll = client.db('shut').collection('c');
    await coll.insertOne({ _id: 1 } as never);
    await client.db('admin').command({ fsync: 1, lock: true });
    const held = coll.insertOne({ _id: 2 } as never).then(
      () => 'written',
      () => 'ended',
    );
    expect(await settledWithin(held, 200)).toBe('pending');
    await expect(settledWithin(engine.close(), 5_000)).resolves.toBe('settled');
    expect(await held).toBe('ended');
    await client.close();

    const again = await startEngine({ dbPath: dir, port: 0 });
    const reader = await new MongoClient(again.uri).connect();
    try {
      expect(await reader.db('shut').collection('c').find({}).toArray()).toEqual([{ _id: 1 }]);
    } finally {
      await reader.close();
      await again.close();
    }
  });
});
