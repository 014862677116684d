import { BSON } from 'bson';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CursorStore } from '../../../src/engine/cursors/index.js';

const docs = (n: number) => Array.from({ length: n }, (_, i) => ({ _id: i }));

describe('CursorStore', () => {
  let store: CursorStore | undefined;
  afterEach(() => {
    store?.close();
    vi.useRealTimers();
  });

  it('returns everything and no cursor when the results fit in the first batch', () => {
    store = new CursorStore();
    const r = store.open('db.c', docs(3));
    expect([r.batch.length, r.id]).toEqual([3, 0n]);
  });

  it('defaults the first batch to 101 documents', () => {
    store = new CursorStore();
    expect(store.open('db.c', docs(150)).batch.length).toBe(101);
  });

  it('keeps a cursor for the rest and closes it when exhausted', () => {
    store = new CursorStore();
    const first = store.open('db.c', docs(5), { batchSize: 2 });
    const second = store.getMore(first.id, 'db.c', 2);
    const last = store.getMore(first.id, 'db.c');
    expect([second.batch.map((d) => d._id), last.batch.map((d) => d._id), last.id]).toEqual([[2, 3], [4], 0n]);
  });

  it('fills a getMore batch of tiny documents only as far as the whole array fits in 16 MiB', () => {
    store = new CursorStore();
    // Empty documents are 5 bytes, their array entries 9-10 more: 3.4M of them would be 16 MiB of documents alone.
    const { id } = store.open('db.c', (function* () {
      for (let i = 0; i < 3_500_000; i++) yield {};
    })(), { batchSize: 1 });
    const { batch } = store.getMore(id, 'db.c');
    const arrayBytes = BSON.calculateObjectSize({ firstBatch: batch }) - 4 - 1 - 'firstBatch'.length - 1 - 1;
    expect(batch.length).toBeGreaterThan(1_000_000);
    expect(arrayBytes).toBeLessThanOrEqual(16 * 1024 * 1024);
  });

  it('does not open a cursor for a single batch', () => {
    store = new CursorStore();
    expect(store.open('db.c', docs(5), { batchSize: 2, singleBatch: true }).id).toBe(0n);
  });

  it('refuses a getMore from another namespace (13)', () => {
    store = new CursorStore();
    const { id } = store.open('db.c', docs(5), { batchSize: 1 });
    expect(() => store!.getMore(id, 'db.other')).toThrow(expect.objectContaining({ code: 13 }));
  });

  it('forgets a killed cursor (43)', () => {
    store = new CursorStore();
    const { id } = store.open('db.c', docs(5), { batchSize: 1 });
    expect(store.kill('db.c', [id]).cursorsKilled).toHaveLength(1);
    expect(() => store!.getMore(id, 'db.c')).toThrow(expect.objectContaining({ code: 43 }));
  });

  it('drops a cursor left idle longer than the timeout', () => {
    vi.useFakeTimers();
    store = new CursorStore({ idleTimeoutMs: 1000 });
    const { id } = store.open('db.c', docs(5), { batchSize: 1 });
    vi.advanceTimersByTime(2500);
    expect(() => store!.getMore(id, 'db.c')).toThrow(expect.objectContaining({ code: 43 }));
  });

  it('keeps a cursor that is used within the timeout', () => {
    vi.useFakeTimers();
    store = new CursorStore({ idleTimeoutMs: 1000 });
    const { id } = store.open('db.c', docs(5), { batchSize: 1 });
    vi.advanceTimersByTime(600);
    store.getMore(id, 'db.c', 1);
    vi.advanceTimersByTime(600);
    expect(store.getMore(id, 'db.c', 1).batch).toEqual([{ _id: 2 }]);
  });

  it('never drops a noTimeout cursor for idleness', () => {
    vi.useFakeTimers();
    store = new CursorStore({ idleTimeoutMs: 1000 });
    const { id } = store.open('db.c', docs(5), { batchSize: 1, noTimeout: true });
    vi.advanceTimersByTime(5000);
    expect(store.getMore(id, 'db.c', 1).batch).toEqual([{ _id: 1 }]);
  });

  it('kills every cursor of a dropped collection', () => {
    store = new CursorStore();
    store.open('db.c', docs(5), { batchSize: 1 });
    store.open('db.cc', docs(5), { batchSize: 1 });
    store.killNamespace('db', 'c');
    expect(store.size).toBe(1);
  });
});
