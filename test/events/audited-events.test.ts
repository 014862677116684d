import { ObjectId } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { callOperation, SURFACES, type Operation, type Surface } from '../support/surfaces.js';
import { admin, app, client, KEY_FIELDS, makeKey, TENANT, useApiKeysApp } from '../api-keys/api-key-fixtures.js';

/**
 * The outbox as audited mutations write it (docs/events.md "The event
 * model"), over REST and GraphQL: a success gives exactly one committed event
 * of the contract's shape (its id also stamped on the changed record, never
 * in an answer), a failure none (and no pending one left), a cascade revoke
 * one per key.
 */

useApiKeysApp();

const events = () => app.db.collection('events');
const revoke = (id: string): Operation => ({
  rest: { method: 'PATCH', path: `/api-keys/${id}/revoke` },
  graphql: { query: `mutation($id: ID!) { revokeApiKey(id: $id) { ${KEY_FIELDS} } }`, variables: { id } },
});
const disable = (id: string): Operation => ({
  rest: { method: 'PATCH', path: `/api-keys/${id}/disable`, body: { reason: 'rotation' } },
  graphql: { query: `mutation($id: ID!, $reason: String) { disableApiKey(id: $id, reason: $reason) { ${KEY_FIELDS} } }`, variables: { id, reason: 'rotation' } },
});
const call = (surface: Surface, operation: Operation) => callOperation(client(), surface, operation, admin);
const eventsAbout = (id: string) => events().find({ 'target.id': id }).toArray();

describe('an audited mutation is an event', () => {
  for (const surface of SURFACES) {
    it(`a success gives exactly one committed event, stamped on the record and in no answer (${surface})`, async () => {
      const key = await makeKey(admin, {});
      const answer = await call(surface, disable(key.id));
      expect(answer.status).toBe(200);
      expect(JSON.stringify(answer.raw.body)).not.toContain('_events');
      const found = (await eventsAbout(key.id)).filter((event) => event['type'] === 'api-keys.disable');
      expect(found).toHaveLength(1);
      const [event] = found;
      expect(event).toMatchObject({
        type: 'api-keys.disable',
        tenant_id: TENANT,
        actor: { type: 'user', id: admin.id },
        target: { type: 'ApiKey', id: key.id },
        data: { changes: ['reason'] },
        state: 'committed',
      });
      expect(event!['occurredAt']).toBeInstanceOf(Date);
      expect(event!['committedAt']).toBeInstanceOf(Date);
      const record = await app.db.collection('apikeys').findOne({ _id: new ObjectId(key.id) });
      expect(record!['_events'].map(String)).toContain(String(event!['_id']));
    });

    it(`a failure gives no event and leaves none pending (${surface})`, async () => {
      const missing = new ObjectId().toHexString();
      const pendingBefore = await events().countDocuments({ state: 'pending' });
      const answer = await call(surface, disable(missing));
      expect(answer.status).toBe(404);
      expect(await eventsAbout(missing)).toEqual([]);
      expect(await events().countDocuments({ state: 'pending' })).toBe(pendingBefore);
    });

    it(`a cascade revoke gives one event per revoked key (${surface})`, async () => {
      const scopes = ['api-keys:create', 'api-keys:revoke', 'menus:read'];
      const parent = await makeKey(admin, { scopes });
      const child = await makeKey({ token: parent.key }, { scopes });
      const grandchild = await makeKey({ token: child.key }, { scopes: ['menus:read'] });
      expect((await call(surface, revoke(parent.id))).status).toBe(200);
      for (const key of [parent, child, grandchild]) {
        const revoked = (await eventsAbout(key.id)).filter((event) => event['type'] === 'api-keys.revoke');
        expect(revoked, key.id).toHaveLength(1);
        expect(revoked[0]).toMatchObject({ state: 'committed', actor: { type: 'user', id: admin.id }, tenant_id: TENANT });
      }
    });
  }

  it('no event carries a secret: a created key\'s event names its fields, never the key (nor its hash)', async () => {
    const key = await makeKey(admin, {});
    const [created] = (await eventsAbout(key.id)).filter((event) => event['type'] === 'api-keys.create');
    expect(created).toMatchObject({ state: 'committed', target: { type: 'ApiKey', id: key.id } });
    const stored = await app.db.collection('apikeys').findOne({ _id: new ObjectId(key.id) });
    const everything = JSON.stringify(await events().find({}).toArray());
    expect(everything).not.toContain(key.key);
    for (const value of Object.values(stored!).filter((v): v is string => typeof v === 'string' && v.length >= 32)) expect(everything).not.toContain(value);
  });
});
