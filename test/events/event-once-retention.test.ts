import { Types } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventLog } from '../../src/events/index.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * An event that happens once (a dedupeKey) is kept at least 8 days whatever
 * EVENT_RETENTION says: its stored key is what keeps a second instance, or the
 * next sweep, from announcing it again (an expiring key is announced 7 days ahead).
 */
let app: TestApp;
const HOUR = 3600;
const DAY = 24 * HOUR;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.close());

async function keptSeconds(retentionSeconds: number, dedupeKey?: string): Promise<number> {
  const appended = await new EventLog({ retentionSeconds }).append({
    type: 'api-keys.expiring',
    tenant_id: 'tenant-once-retention',
    actor: { type: 'system', id: null },
    target: { type: 'ApiKey', id: new Types.ObjectId().toHexString() },
    data: { days: 7 },
    ...(dedupeKey === undefined ? {} : { dedupeKey }),
  });
  const stored = await app.db.collection('events').findOne({ _id: new Types.ObjectId(appended!.id) });
  return ((stored!.expireAt as Date).getTime() - (stored!.occurredAt as Date).getTime()) / 1000;
}

describe('how long an event is kept', () => {
  it('an event without a dedupeKey: EVENT_RETENTION', async () => {
    expect(await keptSeconds(HOUR)).toBe(HOUR);
  });

  it('an event with a dedupeKey under a short EVENT_RETENTION: 8 days', async () => {
    expect(await keptSeconds(HOUR, `once-retention:${new Types.ObjectId().toHexString()}`)).toBe(8 * DAY);
  });

  it('an event with a dedupeKey under a longer EVENT_RETENTION: EVENT_RETENTION', async () => {
    expect(await keptSeconds(30 * DAY, `once-retention:${new Types.ObjectId().toHexString()}`)).toBe(30 * DAY);
  });
});
