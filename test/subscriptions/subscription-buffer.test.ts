import { Types } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventLog, EventModel, EventState } from '../../src/events/index.js';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';
import { codeOf, live, transports, until } from './stream-clients.js';

/**
 * A subscriber more than EVENT_SUBSCRIPTION_BUFFER events behind (here 5; 50
 * events committed in one write reach its stream in one batch, before it has
 * taken any) is ended with the 503 saying so, and what it held is let go: the
 * credential's one allowed stream can be opened again at once.
 */
let app: TestApp;
let admin: TestUser;
const log = new EventLog({ retentionSeconds: 3600 });
const TENANT = 'tenant-buffer';

beforeAll(async () => {
  app = await startTestApp({ env: { EVENT_SUBSCRIPTION_BUFFER: '5', EVENT_SUBSCRIPTIONS_PER_CREDENTIAL: '1' } });
  admin = await app.createUser({ tenantId: TENANT });
});

afterAll(async () => {
  await app?.close();
});

const probe = async () =>
  (await log.append({ type: 'webhooks.test', tenant_id: TENANT, actor: { type: 'system', id: 'test' }, target: { type: 'Webhook', id: new Types.ObjectId().toHexString() }, data: {} }))!.id;

async function commitAtOnce(count: number): Promise<void> {
  const committedAt = new Date();
  await EventModel.collection.insertMany(
    Array.from({ length: count }, () => ({
      _id: new Types.ObjectId(),
      type: 'menus.create',
      tenant_id: TENANT,
      occurredAt: committedAt,
      actor: { type: 'system', id: null },
      target: { type: 'MealMenu', id: null },
      data: { changes: ['name'] },
      state: EventState.committed,
      committedAt,
      expireAt: new Date(Date.now() + 3600_000),
    })),
  );
}

describe.each(transports)('a subscriber behind EVENT_SUBSCRIPTION_BUFFER over $name', (transport) => {
  it('is ended with 503 SERVICE_UNAVAILABLE saying so, and its stream slot is free again', async () => {
    const stream = transport.open(app.baseUrl, `Bearer ${admin.token}`, 'subscription { events { id type } }');
    try {
      await live(stream, probe);
      await commitAtOnce(50);
      await until(() => stream.isEnded(), 'the stream to end');
      expect(codeOf(stream)).toBe('SERVICE_UNAVAILABLE');
      expect(stream.errors[0].message).toMatch(/fell more than 5 events behind/);
      // Nothing of the ended stream is held: the credential's one stream opens again.
      const again = transport.open(app.baseUrl, `Bearer ${admin.token}`, 'subscription { events { id type } }');
      try {
        await live(again, probe);
      } finally {
        again.dispose();
      }
    } finally {
      stream.dispose();
    }
  });
});
