import { Types } from 'mongoose';
import { describe, expect, it } from 'vitest';
import { EventModel, EventState, EventTail, type TailedEvent } from '../../src/events/index.js';
import { serviceModelsOnEngine } from '../support/models-on-engine.js';

/**
 * The tail every instance follows (src/events/event-tail.ts): each committed
 * event once, in commit order, whoever wrote it, also when a writer's commit
 * lands after a later-stamped one of another writer (that one comes with the
 * next sweep of the lookback).
 */
serviceModelsOnEngine('event_tail');

/** A committed event as a writer inserts it, stamped `committedAt`. */
async function commit(committedAt: Date, type = 'menus.create'): Promise<string> {
  const _id = new Types.ObjectId();
  await EventModel.collection.insertOne({
    _id,
    type,
    tenant_id: 't',
    occurredAt: committedAt,
    actor: { type: 'system', id: null },
    target: { type: 'MealMenu', id: null },
    data: {},
    state: EventState.committed,
    committedAt,
    expireAt: new Date(Date.now() + 3600_000),
  });
  return _id.toHexString();
}

function follow(tail: EventTail): { seen: TailedEvent[]; stop: () => void } {
  const seen: TailedEvent[] = [];
  const stop = tail.subscribe((events) => seen.push(...events));
  return { seen, stop };
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('EventTail', () => {
  it('hands a first listener what commits right after it subscribed, before the next interval (anchored at once)', async () => {
    // No interval read within the test: only the subscription's own read and the commit's wake.
    const tail = new EventTail(undefined, { intervalMs: 60_000 });
    const { seen, stop } = follow(tail);
    try {
      const { localTime } = (await EventModel.db.db!.command({ hello: 1 })) as { localTime: Date };
      const id = await commit(localTime);
      tail.wake();
      await until(() => seen.some((event) => event.id === id), 'the event committed after subscribing');
    } finally {
      stop();
      await tail.close();
    }
  });

  it('hands out events of two writers once each, also one that lands after a later-stamped one', async () => {
    const tail = new EventTail(undefined, { intervalMs: 20 });
    const { seen, stop } = follow(tail);
    try {
      await new Promise((r) => setTimeout(r, 300));
      const now = Date.now();
      const first = await commit(new Date(now));
      await until(() => seen.some((e) => e.id === first), 'the first event');
      // Writer B's commit, stamped before the one already seen, lands now (within the lookback).
      const late = await commit(new Date(now - 100));
      const after = await commit(new Date());
      await until(() => seen.some((e) => e.id === late) && seen.some((e) => e.id === after), 'the late event');
      await new Promise((r) => setTimeout(r, 1200));
      // Each once; the late one comes with the next sweep of the lookback, possibly after a later one.
      expect(seen.map((e) => e.id).sort()).toEqual([first, late, after].sort());
    } finally {
      stop();
    }
  });

  it('reads more than a batch committed in one window, in commit order, each once', async () => {
    const tail = new EventTail(undefined, { intervalMs: 20, batch: 7 });
    const { seen, stop } = follow(tail);
    try {
      await new Promise((r) => setTimeout(r, 50));
      const at = new Date();
      const ids: string[] = [];
      // Same committedAt for all: the page boundary falls inside equal stamps (ordered by id).
      for (let i = 0; i < 30; i++) ids.push(await commit(at));
      await until(() => seen.length >= 30, '30 events');
      await new Promise((r) => setTimeout(r, 200));
      expect(seen.map((e) => e.id)).toEqual(ids);
    } finally {
      stop();
    }
  });

  it('two tails on one database (two instances) each see every event', async () => {
    const a = follow(new EventTail(undefined, { intervalMs: 20 }));
    const b = follow(new EventTail(undefined, { intervalMs: 20 }));
    try {
      await new Promise((r) => setTimeout(r, 50));
      const ids = [await commit(new Date()), await commit(new Date()), await commit(new Date())];
      await until(() => ids.every((id) => a.seen.some((e) => e.id === id) && b.seen.some((e) => e.id === id)), 'both tails');
      expect(a.seen.map((e) => e.id)).toEqual(ids);
      expect(b.seen.map((e) => e.id)).toEqual(ids);
    } finally {
      a.stop();
      b.stop();
    }
  });
});
