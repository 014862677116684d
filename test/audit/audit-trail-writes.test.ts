import fc from 'fast-check';
import mongoose from 'mongoose';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { AUDIT_EVENT_COLLECTION, AuditEventModel, AuditEventRecords, AuditEventService } from '../../src/audit/index.js';
import { serviceModelsOnEngine } from '../support/models-on-engine.js';
import { auditEvent } from './audit-event-fixture.js';

/**
 * How the trail writes: every record checked by the model's schema, the
 * records of concurrent calls sent as one insert, each caller told about its
 * own record only, and nothing asked for lost by a drain (shutdown).
 */

serviceModelsOnEngine('audit_trail_writes_test');

const raw = () => mongoose.connection.db!.collection(AUDIT_EVENT_COLLECTION);

beforeEach(async () => {
  vi.restoreAllMocks();
  await raw().deleteMany({});
});

/** The record as the service takes it (its type is the model's, the fixture's values are plain). */
const event = (overrides: Record<string, unknown> = {}) => auditEvent(overrides) as never;

describe('AuditEventService.record', () => {
  it('stores each record of a burst, with its defaults and time, in one insert command', async () => {
    const trail = new AuditEventService(new AuditEventRecords());
    const bulkWrite = vi.spyOn(AuditEventModel.collection, 'bulkWrite');
    await Promise.all(Array.from({ length: 10 }, (_, i) => trail.record(event({ requestId: `burst-${i}`, ip: undefined }))));
    const stored = await raw().find({}).toArray();
    expect(stored.map((record) => record['requestId']).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `burst-${i}`).sort());
    for (const record of stored) expect(record).toMatchObject({ ip: '', at: expect.any(Date), outcome: 'success' });
    expect(bulkWrite).toHaveBeenCalledTimes(1);
    expect(bulkWrite.mock.calls[0]![0].every((operation) => 'insertOne' in operation)).toBe(true);
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
    const trail = new AuditEventService(new AuditEventRecords());
    const [bad, good] = await Promise.allSettled([
      trail.record(event({ requestId: 'bad', ...overrides })),
      trail.record(event({ requestId: 'good' })),
    ]);
    expect(bad).toMatchObject({ status: 'rejected', reason: { name: 'ValidationError' } });
    expect(good.status).toBe('fulfilled');
    expect((await raw().find({}).toArray()).map((record) => record['requestId'])).toEqual(['good']);
  });

  it('drain returns once every record asked for is written, also those still being validated', async () => {
    const trail = new AuditEventService(new AuditEventRecords());
    const pending = Array.from({ length: 5 }, (_, i) => trail.record(event({ requestId: `queued-${i}` })));
    // Drained at once: the records are still being validated, none is sent yet.
    await trail.drain();
    expect(await raw().countDocuments({})).toBe(5);
    await Promise.all(pending);
  });

  it('stores what Model.validate and applyDefaults made of a record of the middleware (all but _id and at), and refuses what it refuses', async () => {
    const trail = new AuditEventService(new AuditEventRecords());
    const name = fc.oneof(fc.constant(''), fc.string({ minLength: 1, maxLength: 10 }));
    const record = fc.record({
      actor: fc.record({ type: fc.constantFrom('user', 'apiKey', 'robot'), id: name }),
      tenant_id: fc.option(name),
      action: name,
      target: fc.record({ type: name, id: fc.option(name) }),
      changes: fc.array(name, { maxLength: 3 }),
      requestId: name,
      ip: fc.option(name, { nil: undefined }),
      outcome: fc.constantFrom('success', 'failure', 'maybe'),
    });
    await fc.assert(
      fc.asyncProperty(record, async (value) => {
        await raw().deleteMany({});
        const expected = await AuditEventModel.validate({ ...value, at: new Date() }).then(
          (valid) => ({ stored: JSON.parse(JSON.stringify(AuditEventModel.applyDefaults(valid))) as Record<string, unknown> }),
          (err: Error) => ({ refused: err.message }),
        );
        const got = await trail.record(value as never).then(
          async () => ({ stored: JSON.parse(JSON.stringify(await raw().findOne({}, { projection: { _id: 0 } }))) as Record<string, unknown> }),
          (err: Error) => ({ refused: err.message }),
        );
        if ('stored' in expected && 'stored' in got) {
          expect(typeof got.stored['at']).toBe('string');
          // applyDefaults gives an _id of its own; both store one made at the insert.
          for (const own of ['at', '_id']) delete expected.stored[own];
          delete got.stored['at'];
        }
        expect(got).toEqual(expected);
      }),
      { numRuns: 60 },
    );
  });
});
