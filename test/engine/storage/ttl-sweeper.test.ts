import { beforeEach, describe, expect, it, vi } from 'vitest';
import { Long } from 'bson';
import { storageKinds, storagePerTest } from './storage-kinds.js';
import { startTtlSweeper, sweepOnce } from '../../../src/engine/storage/index.js';

describe.each(storageKinds)('$name storage: TTL sweep', (kind) => {
  const { storage: s } = storagePerTest(kind);
  const now = new Date('2026-06-01T12:00:00Z');
  const ago = (seconds: number): Date => new Date(now.getTime() - seconds * 1000);
  const remaining = (): unknown[] => [...s.scan('app', 'sessions')].map((d) => d._id).sort();

  beforeEach(() => s.createIndex('app', 'sessions', { name: 'at_1', key: { at: 1 }, expireAfterSeconds: 3600 }));

  it('removes documents whose date is older than expireAfterSeconds and keeps younger ones', () => {
    s.insert('app', 'sessions', { _id: 'old', at: ago(3601) });
    s.insert('app', 'sessions', { _id: 'young', at: ago(60) });
    expect(sweepOnce(s, now)).toBe(1);
    expect(remaining()).toEqual(['young']);
  });

  it('expires an array by its earliest date', () => {
    s.insert('app', 'sessions', { _id: 'mixed', at: [ago(10), ago(7200)] });
    sweepOnce(s, now);
    expect(remaining()).toEqual([]);
  });

  it('ignores documents without a date in the field', () => {
    s.insert('app', 'sessions', { _id: 'str', at: '2000-01-01' });
    s.insert('app', 'sessions', { _id: 'num', at: 0 });
    s.insert('app', 'sessions', { _id: 'none' });
    expect(sweepOnce(s, now)).toBe(0);
    expect(remaining()).toEqual(['none', 'num', 'str']);
  });

  // The wire can deliver the option as any numeric BSON type.
  it('accepts expireAfterSeconds stored as a Long', () => {
    s.createIndex('app', 'other', { name: 'at_1', key: { at: 1 }, expireAfterSeconds: Long.fromNumber(10) as unknown as number });
    s.insert('app', 'other', { _id: 1, at: ago(11) });
    sweepOnce(s, now);
    expect(s.count('app', 'other')).toBe(0);
  });

  it('leaves collections without a TTL index alone', () => {
    s.createIndex('app', 'plain', { name: 'at_1', key: { at: 1 } });
    s.insert('app', 'plain', { _id: 1, at: new Date(0) });
    sweepOnce(s, now);
    expect(s.count('app', 'plain')).toBe(1);
  });

  it('runs periodically until stopped', async () => {
    s.insert('app', 'sessions', { _id: 'old', at: new Date(Date.now() - 7_200_000) });
    const sweeper = startTtlSweeper(s, { intervalMs: 5 });
    try {
      await vi.waitFor(() => expect(s.count('app', 'sessions')).toBe(0));
    } finally {
      sweeper.stop();
    }
  });
});
