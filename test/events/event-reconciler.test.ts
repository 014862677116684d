import { Collection, ObjectId } from 'mongodb';
import mongoose, { Types } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ApiKeyModel } from '../../src/api-keys/index.js';
import { cascadeKey, EventOutbox, EventReconciler, withEventStamp } from '../../src/events/index.js';
import { MealMenuModel } from '../../src/menus/index.js';
import { PasswordTicketModel, RoleModel, RoleRecords, UserModel, UserRecords } from '../../src/users/index.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * The reconciler's decisions (docs/events.md "The event model"), one test
 * each, on events left pending as a crashed call leaves them: the records
 * stamped through the real collections (startTestApp's service stamps them),
 * the reconciler run by hand with a grace of 0.
 */

let app: TestApp;
const TENANT = 'tenant-reconciler';
const GRACE_MS = 60_000;
const outbox = new EventOutbox({ retentionSeconds: 3600 });
const records = { User: UserModel.collection, Role: RoleModel.collection, MealMenu: MealMenuModel.collection, ApiKey: ApiKeyModel.collection };
/** Staleness is the database's clock against the grace (0 here: every pending event is stale at once). */
const reconciler = (graceMs = 0) => new EventReconciler({ records: records as never, alsoStamped: [PasswordTicketModel.collection] as never, graceMs, intervalMs: 1000 });
/** The reconciling instance's clock far ahead (leases are its own). */
const later = () => new Date(Date.now() + 2 * GRACE_MS);
const events = () => app.db.collection('events');

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

/** A call's pending event, as the `Audited` middleware opens it. */
async function pending(type: string, target: { type: string; id: string | null }, removesTarget = false) {
  const id = new Types.ObjectId();
  await outbox.open({ id, type, tenant_id: TENANT, actor: { type: 'user', id: new ObjectId().toHexString() }, target, data: { changes: ['name'] }, removesTarget });
  return id;
}
const role = (name: string) => ({ name: `${name}-${new ObjectId().toHexString()}`, permissions: ['menus:read'], tenant_id: TENANT });

describe('the reconciler settles a stale pending event by its evidence', () => {
  it('commits an update whose record carries the event id (a driver write, stamped)', async () => {
    const user = await app.createUser({ tenantId: TENANT });
    const id = await pending('users.update', { type: 'User', id: user.id });
    await withEventStamp(id, () => UserModel.collection.updateOne({ _id: new Types.ObjectId(user.id) }, { $set: { firstName: 'Changed' } }));
    expect(await reconciler().reconcile(later())).toContain('committed');
    expect(await events().findOne({ _id: id })).toMatchObject({ state: 'committed', target: { type: 'User', id: user.id }, tenant_id: TENANT });
  });

  it('commits a create (no target named) once per stamped record of its type, the first as the target (model writes, stamped)', async () => {
    const id = await pending('roles.create', { type: 'Role', id: null });
    const made = await withEventStamp(id, () => RoleModel.create([role('one'), role('two')]));
    await reconciler().reconcile(later());
    const settled = await events().find({ type: 'roles.create', 'target.id': { $in: made.map((m) => m.id as string) } }).toArray();
    expect(settled.map((event) => event['target'].id).sort()).toEqual(made.map((m) => m.id as string).sort());
    expect(settled.every((event) => event['state'] === 'committed')).toBe(true);
  });

  it('removes an event whose named record exists but carries no stamp (the call changed nothing)', async () => {
    const user = await app.createUser({ tenantId: TENANT });
    const id = await pending('users.disable', { type: 'User', id: user.id });
    expect(await reconciler().reconcile(later())).toContain('removed');
    expect(await events().findOne({ _id: id })).toBeNull();
  });

  it('removes a create whose record was never written', async () => {
    const id = await pending('roles.create', { type: 'Role', id: null });
    await reconciler().reconcile(later());
    expect(await events().findOne({ _id: id })).toBeNull();
  });

  it('commits an event whose named record is gone (a hard delete leaves nothing to stamp)', async () => {
    const [gone] = await RoleModel.create([role('gone')]);
    const id = await pending('roles.delete', { type: 'Role', id: gone!.id as string }, true);
    await RoleModel.deleteOne({ _id: gone!._id });
    await reconciler().reconcile(later());
    expect(await events().findOne({ _id: id })).toMatchObject({ state: 'committed', target: { type: 'Role', id: gone!.id } });
  });

  it('commits an event whose only evidence is a record of another kind (a password ticket of a User event)', async () => {
    const user = await app.createUser({ tenantId: TENANT });
    const id = await pending('users.password-ticket', { type: 'User', id: user.id });
    await withEventStamp(id, () =>
      PasswordTicketModel.collection.insertOne({ userId: user.id, hash: `h-${Date.now()}`, expiresAt: new Date(Date.now() + 60_000) }),
    );
    await reconciler().reconcile(later());
    expect(await events().findOne({ _id: id })).toMatchObject({ state: 'committed', target: { type: 'User', id: user.id } });
  });

  it('removes an event of another kind whose named record is gone (only a hard delete reads absence as its evidence)', async () => {
    const id = await pending('roles.update', { type: 'Role', id: new ObjectId().toHexString() });
    await reconciler().reconcile(later());
    expect(await events().findOne({ _id: id })).toBeNull();
  });

  it('leaves an event younger than the grace period by the database clock alone, however far ahead the reconciling instance\'s clock runs (its call may still be under way)', async () => {
    const id = await pending('users.update', { type: 'User', id: new ObjectId().toHexString() });
    await reconciler(GRACE_MS).reconcile(later());
    expect(await events().findOne({ _id: id })).toMatchObject({ state: 'pending' });
    await reconciler().reconcile(later()); // settled (removed), not left for the next test
  });

  it('a call that outlives the grace: a reconciler removes its event before the write, and the call writes it committed', async () => {
    const user = await app.createUser({ tenantId: TENANT });
    const settledMeanwhile: string[] = [];
    await outbox.around(
      { type: 'users.update', tenant_id: TENANT, actor: { type: 'user', id: user.id }, target: { type: 'User', id: user.id }, data: { changes: ['firstName'] } },
      async () => {
        settledMeanwhile.push(...(await reconciler().reconcile(later())));
        await UserModel.collection.updateOne({ _id: new Types.ObjectId(user.id) }, { $set: { firstName: 'Slow' } });
      },
      () => ({ tenant_id: TENANT, target: { type: 'User', id: user.id }, data: { changes: ['firstName'] }, alsoChanged: [] }),
    );
    expect(settledMeanwhile).toContain('removed');
    expect(await events().find({ type: 'users.update', 'target.id': user.id }).toArray()).toEqual([
      expect.objectContaining({ state: 'committed', tenant_id: TENANT, data: { changes: ['firstName'] } }),
    ]);
  });

  it('a call that outlives the grace: a reconciler commits its event by the stamped write, and the call\'s commit leaves that event as it is', async () => {
    const user = await app.createUser({ tenantId: TENANT });
    const settledMeanwhile: string[] = [];
    let committedMeanwhile: unknown;
    await outbox.around(
      { type: 'users.update', tenant_id: TENANT, actor: { type: 'user', id: user.id }, target: { type: 'User', id: user.id }, data: { changes: ['firstName'] } },
      async () => {
        await UserModel.collection.updateOne({ _id: new Types.ObjectId(user.id) }, { $set: { firstName: 'Slow' } });
        settledMeanwhile.push(...(await reconciler().reconcile(later())));
        committedMeanwhile = await events().findOne({ type: 'users.update', 'target.id': user.id });
      },
      // What the call says differs from what the reconciler wrote: the first commit stands.
      () => ({ tenant_id: TENANT, target: { type: 'User', id: user.id }, data: { changes: ['firstName', 'lastName'] }, alsoChanged: [] }),
    );
    expect(settledMeanwhile).toContain('committed');
    expect(committedMeanwhile).toMatchObject({ state: 'committed', committedAt: expect.any(Date) });
    expect(await events().find({ type: 'users.update', 'target.id': user.id }).toArray()).toEqual([committedMeanwhile]);
  });

  it('a record written again whole keeps the ids it carried (an earlier call\'s evidence) and adds the new one', async () => {
    const earlier = new Types.ObjectId();
    const now = new Types.ObjectId();
    const _id = new Types.ObjectId();
    await withEventStamp(now, () => RoleModel.collection.insertOne({ _id, ...role('again'), _events: [earlier] }));
    expect((await RoleModel.collection.findOne({ _id }))?.['_events']).toEqual([earlier, now]);
  });

  it('two reconcilers (two instances) settle each event once: the lease in the database decides', async () => {
    const users = await Promise.all(Array.from({ length: 6 }, () => app.createUser({ tenantId: TENANT })));
    const ids = await Promise.all(users.map((user) => pending('users.update', { type: 'User', id: user.id })));
    await Promise.all(
      ids.map((id, i) => withEventStamp(id, () => UserModel.collection.updateOne({ _id: new Types.ObjectId(users[i]!.id) }, { $set: { lastName: 'X' } }))),
    );
    const [a, b] = await Promise.all([reconciler().reconcile(later()), reconciler().reconcile(later())]);
    expect([...a, ...b].filter((s) => s === 'committed')).toHaveLength(ids.length);
    for (const user of users) expect(await events().countDocuments({ 'target.id': user.id, type: 'users.update' })).toBe(1);
  });
});

describe("the outbox's writes of concurrent calls", () => {
  it('go together: the opens in one bulk write, the commits and discards in a few more, each call settled as its own', async () => {
    const users = await Promise.all(Array.from({ length: 8 }, () => app.createUser({ tenantId: TENANT })));
    // Every bulk write the driver is given (the spy passes each through): those of these calls are picked below.
    const eventWrites = vi.spyOn(Collection.prototype, 'bulkWrite');
    try {
      const calls = users.map((user, index) =>
        outbox
          .around(
            { type: 'users.update', tenant_id: TENANT, actor: { type: 'user', id: user.id }, target: { type: 'User', id: user.id }, data: { changes: ['firstName'] } },
            async () => {
              // Every odd call fails: its event is discarded, not committed.
              if (index % 2 === 1) throw new Error(`call ${index} refused`);
              return UserModel.collection.updateOne({ _id: new Types.ObjectId(user.id) }, { $set: { firstName: `Together${index}` } });
            },
            () => ({ tenant_id: TENANT, target: { type: 'User', id: user.id }, data: { changes: ['firstName'] }, alsoChanged: [] }),
          )
          .then(
            () => 'done',
            (error: Error) => error.message,
          ),
      );
      expect(await Promise.all(calls)).toEqual(users.map((_, index) => (index % 2 === 1 ? `call ${index} refused` : 'done')));
      const sent = eventWrites.mock.calls.map(([operations]) => JSON.stringify(operations));
      // The opens name the users; every later write of these calls names an event they opened.
      const opens = JSON.parse(sent.find((text) => users.some((user) => text.includes(user.id)))!) as { insertOne: { document: { _id: string } } }[];
      const eventIds = opens.map((operation) => operation.insertOne.document._id);
      const ofTheseCalls = sent.filter((text) => eventIds.some((id) => text.includes(id))).map((text) => JSON.parse(text) as Record<string, unknown>[]);
      // The 8 opens went out in one command; the 4 discards and 4 commits in a few more (each as its call ended).
      expect(ofTheseCalls[0]!.map((operation) => Object.keys(operation)[0])).toEqual(Array(8).fill('insertOne'));
      expect(ofTheseCalls.flat().map((operation) => Object.keys(operation)[0]).sort()).toEqual([...Array(4).fill('deleteOne'), ...Array(8).fill('insertOne'), ...Array(4).fill('updateOne')]);
      expect(ofTheseCalls.length).toBeLessThanOrEqual(6);
    } finally {
      eventWrites.mockRestore();
    }
    for (const [index, user] of users.entries()) {
      const stored = await events().find({ 'target.id': user.id }).toArray();
      expect(stored).toEqual(index % 2 === 1 ? [] : [expect.objectContaining({ state: 'committed', type: 'users.update' })]);
    }
  });
});

describe("a cascade's events (one call changing several records of its type)", () => {
  const twoRoles = async () => (await RoleModel.create([role('first'), role('second')])).map((made) => made.id as string);

  it('are written before the call\'s own event commits: a crash between leaves them and a pending event', async () => {
    const [first, second] = await twoRoles();
    // The writes to the events collection, as sent; other writers (the instance's reconciler, system events) may come between.
    const writes: { method: string; text: string }[] = [];
    mongoose.set('debug', (collection: string, method: string, ...args: unknown[]) => {
      if (collection === 'events' && !['find', 'findOne', 'aggregate', 'countDocuments'].includes(method)) writes.push({ method, text: JSON.stringify(args) });
    });
    try {
      await outbox.around(
        { type: 'roles.update', tenant_id: TENANT, actor: { type: 'user', id: new ObjectId().toHexString() }, target: { type: 'Role', id: first! }, data: { changes: ['name'] } },
        async () => RoleModel.collection.updateMany({ _id: { $in: [new Types.ObjectId(first), new Types.ObjectId(second)] } }, { $set: { description: 'both' } }),
        () => ({ tenant_id: TENANT, target: { type: 'Role', id: first! }, data: { changes: ['description'] }, alsoChanged: [second!] }),
      );
    } finally {
      mongoose.set('debug', false);
    }
    // The outbox's own writes are bulk writes (grouped with other calls'): told apart by what they hold.
    const kind = (write: { method: string; text: string }) =>
      write.text.includes('cascade:') ? `${write.method} of the cascade` : write.text.includes('"insertOne"') ? `${write.method}: open` : `${write.method}: commit`;
    const opened = writes.find((write) => write.method === 'bulkWrite' && write.text.includes('"insertOne"') && write.text.includes(first!));
    const eventId = (JSON.parse(opened!.text) as [[{ insertOne: { document: { _id: string } } }]])[0][0].insertOne.document._id;
    const order = writes.filter((write) => write.text.includes(String(eventId))).map(kind);
    expect(order).toEqual(['bulkWrite: open', 'bulkWrite of the cascade', 'bulkWrite: commit']);
    expect(await events().countDocuments({ type: 'roles.update', 'target.id': { $in: [first, second] }, state: 'committed' })).toBe(2);
  });

  it("are written by the reconciler before it commits the call's event: a reconciler crashed between leaves the event pending for the next", async () => {
    const [first, second] = await twoRoles();
    const id = await pending('roles.update', { type: 'Role', id: null });
    await withEventStamp(id, () => RoleModel.collection.updateMany({ _id: { $in: [new Types.ObjectId(first), new Types.ObjectId(second)] } }, { $set: { description: 'swept' } }));
    const writes: string[] = [];
    mongoose.set('debug', (collection: string, method: string, ...args: unknown[]) => {
      if (collection === 'events' && JSON.stringify(args).includes(id.toHexString()) && ['bulkWrite', 'updateOne', 'findOneAndUpdate'].includes(method)) writes.push(method);
    });
    try {
      expect(await reconciler().reconcile(later())).toContain('committed');
    } finally {
      mongoose.set('debug', false);
    }
    // The writes naming the event (its claim names none): the cascade, then the commit.
    expect(writes).toEqual(['bulkWrite', 'updateOne']);
    expect(await events().countDocuments({ type: 'roles.update', 'target.id': { $in: [first, second] }, state: 'committed' })).toBe(2);
  });

  it('a crashed call whose cascade was written is committed with one event per record, none twice', async () => {
    const [first, second] = await twoRoles();
    const id = await pending('roles.update', { type: 'Role', id: first! });
    await withEventStamp(id, () => RoleModel.collection.updateMany({ _id: { $in: [new Types.ObjectId(first), new Types.ObjectId(second)] } }, { $set: { description: 'crashed' } }));
    // What the call's commit wrote before the crash: the cascade's event, committed.
    const opened = await events().findOne({ _id: id });
    const { _id: _, leaseUntil: __, ...fields } = opened!;
    await events().insertOne({ ...fields, state: 'committed', committedAt: new Date(), target: { type: 'Role', id: second }, dedupeKey: cascadeKey(id, second!) });
    expect(await reconciler().reconcile(later())).toContain('committed');
    expect(await events().countDocuments({ type: 'roles.update', 'target.id': first })).toBe(1);
    expect(await events().countDocuments({ type: 'roles.update', 'target.id': second })).toBe(1);
  });
});

describe('a refused call that undid its own change (the last platform administrator kept) leaves no evidence of it', () => {
  /** Each: the record made first (unstamped), then the change and its undo as the refused call makes them (stamped); `expected` is the record as before. */
  const cases: { name: string; type: string; target: 'User' | 'Role'; prepare: () => Promise<string>; changeAndUndo: (id: string) => Promise<Record<string, unknown>> }[] = [
    {
      name: 'a disable undone (UserRecords.restoreStatus)',
      type: 'users.disable',
      target: 'User',
      prepare: async () => (await app.createUser({ tenantId: TENANT })).id,
      changeAndUndo: async (id) => {
        const before = await UserModel.findById(id).lean();
        const changed = await UserModel.findOneAndUpdate({ _id: id }, { $set: { status: 'disabled', disabledAt: new Date() }, $inc: { tokenVersion: 1 } }, { returnDocument: 'after' });
        expect(await new UserRecords().restoreStatus(before!, changed!)).toBe(true);
        return { status: 'active', tokenVersion: before!.tokenVersion ?? 0 };
      },
    },
    {
      name: 'a roles change undone (UserRecords.restoreRoles)',
      type: 'users.update',
      target: 'User',
      prepare: async () => (await app.createUser({ tenantId: TENANT, roles: ['admin'] })).id,
      changeAndUndo: async (id) => {
        const before = await UserModel.findById(id).lean();
        const changed = await UserModel.findOneAndUpdate({ _id: id }, { $set: { roles: [] } }, { returnDocument: 'after' });
        expect(await new UserRecords().restoreRoles(before!, changed!)).toBe(true);
        return { roles: ['admin'] };
      },
    },
    {
      name: 'a role delete undone (RoleRecords.restore)',
      type: 'roles.delete',
      target: 'Role',
      prepare: async () => (await RoleModel.create([role('undone')]))[0]!.id as string,
      changeAndUndo: async (id) => {
        const removed = await RoleModel.findOneAndDelete({ _id: id }).lean();
        await new RoleRecords().restore(removed as never);
        return { name: removed!.name };
      },
    },
  ];

  it.each(cases)('$name', async ({ type, target, prepare, changeAndUndo }) => {
    const eventId = new Types.ObjectId();
    const recordId = await prepare();
    const expected = await withEventStamp(eventId, () => changeAndUndo(recordId));
    // The call's event as a crash after the undo leaves it: pending, naming the record.
    await outbox.open({ id: eventId, type, tenant_id: TENANT, actor: { type: 'user', id: new ObjectId().toHexString() }, target: { type: target, id: recordId }, data: { changes: [] }, removesTarget: type === 'roles.delete' });
    const record = await (target === 'User' ? UserModel : RoleModel).collection.findOne({ _id: new Types.ObjectId(recordId) });
    expect(record).toMatchObject(expected);
    expect(((record?.['_events'] as Types.ObjectId[] | undefined) ?? []).map(String)).not.toContain(String(eventId));
    expect(await reconciler().reconcile(later())).toContain('removed');
    expect(await events().findOne({ _id: eventId })).toBeNull();
  });
});

describe("a hard delete's event, its call crashed before the event was settled", () => {
  /** An outbox that reads the records as the service's does, and crashes (settles nothing) after the call. */
  class CrashingOutbox extends EventOutbox {
    override commit(): Promise<void> {
      return Promise.reject(new Error('killed before the commit'));
    }
    override discard(): Promise<void> {
      return Promise.reject(new Error('killed before the discard'));
    }
  }
  const crashing = new CrashingOutbox({ retentionSeconds: 3600, targets: records as never });
  const deleteRole = (id: string) =>
    crashing.around(
      { type: 'roles.delete', tenant_id: TENANT, actor: { type: 'user', id: new ObjectId().toHexString() }, target: { type: 'Role', id }, data: { changes: [] }, removesTarget: true },
      async () => {
        const { deletedCount } = await RoleModel.collection.deleteOne({ _id: new Types.ObjectId(id) });
        if (deletedCount === 0) throw new Error('404: no such role');
        return { id };
      },
      () => ({ tenant_id: TENANT, target: { type: 'Role', id }, data: { changes: [] }, alsoChanged: [] }),
    );

  it('of a record that never existed (a 404) is removed: an absence it did not cause is no evidence', async () => {
    const never = new ObjectId().toHexString();
    await expect(deleteRole(never)).rejects.toThrow('404');
    expect(await events().findOne({ type: 'roles.delete', 'target.id': never })).toMatchObject({ state: 'pending' });
    await reconciler().reconcile(later());
    expect(await events().findOne({ type: 'roles.delete', 'target.id': never })).toBeNull();
  });

  it('of a record that was there and is gone is committed', async () => {
    const [made] = await RoleModel.create([role('deleted')]);
    await deleteRole(made!.id as string);
    await reconciler().reconcile(later());
    expect(await events().findOne({ type: 'roles.delete', 'target.id': made!.id })).toMatchObject({ state: 'committed' });
  });
});
