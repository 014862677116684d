import mongoose from 'mongoose';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { AUDIT_EVENT_COLLECTION, AuditActorType, AuditEventModel, AuditEventService, AuditOutcome } from '../../src/audit/index.js';
import { GroupInsert, InsertRefused } from '../../src/audit/group-insert.js';
import { connectMongoose, startEmbeddedEngine } from '../../src/database.js';

/**
 * How the trail writes: every record checked by the model's schema, the
 * records of one event turn sent as one insert, each caller told about its
 * own record only, and nothing queued lost by a drain (shutdown).
 */

type RunningEngine = Awaited<ReturnType<typeof startEmbeddedEngine>>;
let engine: RunningEngine;

beforeAll(async () => {
  engine = await startEmbeddedEngine({ inMemory: true, port: 0 });
  await connectMongoose(engine.uri, 'audit_trail_writes_test');
});

afterAll(async () => {
  await mongoose.disconnect();
  await engine?.close();
});

const raw = () => mongoose.connection.db!.collection(AUDIT_EVENT_COLLECTION);
const scratch = () => mongoose.connection.db!.collection<{ _id: number; n: number }>('group_insert_scratch');

beforeEach(async () => {
  vi.restoreAllMocks();
  await Promise.all([raw().deleteMany({}), scratch().deleteMany({})]);
});

const event = (overrides: Record<string, unknown> = {}) =>
  ({
    actor: { type: AuditActorType.user, id: '65f0c0ffee0000000000cafe' },
    tenant_id: 't1',
    action: 'menus.update',
    target: { type: 'MealMenu', id: '65f0c0ffee0000000000beef' },
    changes: ['portions'],
    requestId: 'req-1',
    ip: '127.0.0.1',
    outcome: AuditOutcome.success,
    ...overrides,
  }) as never;

describe('AuditEventService.record', () => {
  it('stores each record of a burst, with its defaults and time, in one insert command', async () => {
    const trail = new AuditEventService();
    const insertMany = vi.spyOn(AuditEventModel.collection, 'insertMany');
    await Promise.all(Array.from({ length: 10 }, (_, i) => trail.record(event({ requestId: `burst-${i}`, ip: undefined }))));
    expect(insertMany).toHaveBeenCalledTimes(1);
    const stored = await raw().find({}).toArray();
    expect(stored.map((record) => record['requestId']).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `burst-${i}`).sort());
    for (const record of stored) expect(record).toMatchObject({ ip: '', at: expect.any(Date), outcome: 'success' });
  });

  const refusedBySchema: [string, Record<string, unknown>][] = [
    ['an outcome outside the enum', { outcome: 'maybe' }],
    ['an actor type outside the enum', { actor: { type: 'robot', id: 'x' } }],
    ['no actor', { actor: undefined }],
    ['no action', { action: undefined }],
    ['a target without its type', { target: { id: 'x' } }],
    ['no request id', { requestId: undefined }],
  ];

  it.each(refusedBySchema)('refuses %s (the schema decides), stores nothing of it, and still stores the rest of its burst', async (_name, overrides) => {
    const trail = new AuditEventService();
    const [bad, good] = await Promise.allSettled([
      trail.record(event({ requestId: 'bad', ...overrides })),
      trail.record(event({ requestId: 'good' })),
    ]);
    expect(bad).toMatchObject({ status: 'rejected', reason: { name: 'ValidationError' } });
    expect(good.status).toBe('fulfilled');
    expect((await raw().find({}).toArray()).map((record) => record['requestId'])).toEqual(['good']);
  });

  it('drain writes every record asked for, queued or still being validated, before it returns', async () => {
    const trail = new AuditEventService();
    const pending = Array.from({ length: 5 }, (_, i) => trail.record(event({ requestId: `queued-${i}` })));
    // Drained at once: the records are still being validated, none is queued yet.
    await trail.drain();
    expect(await raw().countDocuments({})).toBe(5);
    await Promise.all(pending);
  });
});

describe.each(['turn', 'serial'] as const)('GroupInsert (%s)', (mode) => {
  it('one insert command for what is queued in one turn; each promise settles when its document is stored', async () => {
    const inserts = new GroupInsert(scratch, mode);
    const insertMany = vi.spyOn(scratch().constructor.prototype, 'insertMany');
    await Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        await inserts.insert({ _id: i, n: i });
        expect(await scratch().findOne({ _id: i })).toEqual({ _id: i, n: i });
      }),
    );
    expect(insertMany).toHaveBeenCalledTimes(1);
  });

  it('a document the database refuses fails only its own caller (its write error), the others are stored', async () => {
    await scratch().insertOne({ _id: 3, n: -1 });
    const inserts = new GroupInsert(scratch, mode);
    const settled = await Promise.allSettled([1, 2, 3, 4, 5].map((i) => inserts.insert({ _id: i, n: i })));
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    const refusal = (settled[2] as PromiseRejectedResult).reason;
    expect(refusal).toBeInstanceOf(InsertRefused);
    expect(refusal).toMatchObject({ code: 11000 });
    expect(await scratch().find({}).sort({ _id: 1 }).toArray()).toEqual([
      { _id: 1, n: 1 },
      { _id: 2, n: 2 },
      { _id: 3, n: -1 },
      { _id: 4, n: 4 },
      { _id: 5, n: 5 },
    ]);
  });

  it('a failure of the whole command fails every caller of that batch, and the next batch is written', async () => {
    const inserts = new GroupInsert(scratch, mode);
    vi.spyOn(scratch().constructor.prototype, 'insertMany').mockRejectedValueOnce(new Error('connection lost'));
    const first = await Promise.allSettled([inserts.insert({ _id: 1, n: 1 }), inserts.insert({ _id: 2, n: 2 })]);
    expect(first.map((s) => s.status)).toEqual(['rejected', 'rejected']);
    await inserts.insert({ _id: 3, n: 3 });
    expect(await scratch().find({}).toArray()).toEqual([{ _id: 3, n: 3 }]);
  });

  it('drain writes everything queued, also what queued while a batch was in flight', async () => {
    const inserts = new GroupInsert(scratch, mode);
    const first = inserts.insert({ _id: 1, n: 1 });
    await new Promise((resolve) => setImmediate(resolve)); // the first batch is in flight
    const later = [2, 3, 4].map((i) => inserts.insert({ _id: i, n: i }));
    await inserts.drain();
    expect(await scratch().countDocuments({})).toBe(4);
    await Promise.all([first, ...later]);
  });
});
