import mongoose from 'mongoose';
import { ObjectId } from 'mongodb';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EventLog } from '../../src/events/index.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { eventually } from '../support/webhook-receiver.js';

/**
 * The tail every instance follows (webhook fan-out, subscriptions) reads the
 * new events only, however many the collection holds: each read of the tail
 * (wakened by every commit) is run again as explain, and examines a handful
 * of documents beside 3,000 older committed events. It used to examine every
 * committed event, each read: the cost of a write grew with the log.
 */
let app: TestApp;
const OLD_EVENTS = 3000;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.close());

it('a read of the tail examines the events since its watermark, not the whole log', async () => {
  const hourAgo = new Date(Date.now() - 3_600_000);
  await app.db.collection('events').insertMany(
    Array.from({ length: OLD_EVENTS }, () => ({
      _id: new ObjectId(), type: 'menus.create', tenant_id: 'acme', occurredAt: hourAgo, actor: { type: 'user', id: null },
      target: { type: 'MealMenu', id: new ObjectId().toHexString() }, data: { changes: [] }, state: 'committed', committedAt: hourAgo,
      expireAt: new Date(Date.now() + 3_600_000),
    })),
  );
  // mongoose's debug hook sees every collection call with its filter and options, as sent.
  const tailReads: { filter: Record<string, unknown>; options: Record<string, any> }[] = [];
  mongoose.set('debug', (collection: string, method: string, filter: Record<string, unknown>, options: Record<string, any>) => {
    if (collection === 'events' && method === 'find' && JSON.stringify(filter).includes('committedAt')) tailReads.push({ filter, options });
  });
  try {
    await new EventLog({ retentionSeconds: 3600 }).append({ type: 'menus.create', tenant_id: 'acme', actor: { type: 'user', id: null }, target: { type: 'MealMenu', id: new ObjectId().toHexString() } });
    await eventually(async () => tailReads.length >= 2);
  } finally {
    mongoose.set('debug', false);
  }
  for (const { filter, options } of tailReads.slice(0, 2)) {
    const explained = await app.db.command({
      explain: { find: 'events', filter, sort: options.sort, limit: options.limit, projection: options.projection, hint: options.hint },
      verbosity: 'executionStats',
    });
    expect(explained.executionStats.totalDocsExamined).toBeLessThan(50);
  }
});
