import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SubscriptionSlots } from '../../src/events/index.js';
import { startTestApp, type TestApp, type TestUser } from '../support/test-app.js';
import { codeOf, live, transports, until, type Stream } from './stream-clients.js';
import { startSecondInstance, type SecondInstance } from './second-instance.js';

/**
 * EVENT_SUBSCRIPTIONS_PER_CREDENTIAL holds across instances (its slots are
 * in the database): two instances of the service on one database, a limit
 * of 1; a credential streaming on A is refused on B until its stream on A ends.
 */
let a: TestApp;
let b: SecondInstance;
let admin: TestUser;
const TENANT = 'tenant-slots';
const QUERY = 'subscription { events { id type } }';

beforeAll(async () => {
  a = await startTestApp({ env: { EVENT_SUBSCRIPTIONS_PER_CREDENTIAL: '1' } });
  admin = await a.createUser({ tenantId: TENANT });
  b = await startSecondInstance(a);
});

afterAll(async () => {
  await b?.close();
  await a?.close();
});

/** Makes an event (a key created through A) and answers its id. */
async function probe(): Promise<string> {
  const made = await a.rest('POST', '/api-keys', { token: admin.token, body: { name: 'slot probe', scopes: ['menus:read'] } });
  return (await a.db.collection('events').findOne({ 'target.id': made.body.id, type: 'api-keys.create' }))!['_id'].toHexString();
}

describe.each(transports)('one credential, a limit of 1, over $name', (transport) => {
  it('streaming on instance A, it is refused on instance B (429 naming the limit), and taken on B once the stream on A ends', async () => {
    const auth = `Bearer ${admin.token}`;
    const onA = transport.open(a.baseUrl, auth, QUERY);
    let onB: Stream | undefined;
    try {
      await live(onA, probe);
      const refused = transport.open(b.baseUrl, auth, QUERY);
      await refused.ended;
      expect(codeOf(refused)).toBe('RATE_LIMITED');
      expect(refused.errors[0]!.message).toContain('EVENT_SUBSCRIPTIONS_PER_CREDENTIAL');
      onA.dispose();
      // The stream on A releases its slot as it ends; B takes it then (a stream opened before that is refused, and opened again).
      const probed = new Set<string>();
      let next = 0;
      await until(() => {
        if (onB?.isEnded()) {
          expect(codeOf(onB)).toBe('RATE_LIMITED');
          onB = undefined;
        }
        onB ??= transport.open(b.baseUrl, auth, QUERY);
        if (Date.now() >= next) {
          next = Date.now() + 300;
          void probe().then((id) => probed.add(id));
        }
        return onB.events.some((event) => probed.has(event.id));
      }, 'a live stream on B');
    } finally {
      onA.dispose();
      onB?.dispose();
    }
  }, 30_000);
});

describe('a slot of an instance that died', () => {
  it('is free once its lease runs out (by the database clock), not before', async () => {
    const dead = new SubscriptionSlots({ leaseMs: 600 });
    const other = new SubscriptionSlots({ leaseMs: 600 });
    const credential = `died-${Date.now()}`;
    expect(await dead.take(credential, 1)).not.toBeNull();
    dead.close(); // no more renewals, no release: as SIGKILL leaves it
    expect(await other.take(credential, 1)).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 700));
    const release = await other.take(credential, 1);
    expect(release).not.toBeNull();
    await release!();
    other.close();
  });

  it('is kept while its instance lives: the lease is renewed', async () => {
    const alive = new SubscriptionSlots({ leaseMs: 300 });
    const other = new SubscriptionSlots({ leaseMs: 300 });
    const credential = `alive-${Date.now()}`;
    const release = await alive.take(credential, 1);
    await new Promise((resolve) => setTimeout(resolve, 900));
    expect(await other.take(credential, 1)).toBeNull();
    await release!();
    expect(await other.take(credential, 1)).not.toBeNull();
    alive.close();
    other.close();
  });
});
