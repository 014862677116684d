import { BSON, Long } from 'bson';
import { describe, expect, it } from 'vitest';
import { encodeExhaustedFirstBatchReply } from '../../../src/engine/wire/index.js';

/** The hand-written reply must be byte for byte what BSON.serialize writes for the same object. */
const serialized = (ns: string, docs: object[]) => Buffer.from(BSON.serialize({ cursor: { firstBatch: docs, id: Long.fromInt(0), ns }, ok: 1 }));
const raw = (ns: string, docs: object[]) => encodeExhaustedFirstBatchReply(ns, docs.map((d) => BSON.serialize(d)));

describe('encodeExhaustedFirstBatchReply', () => {
  it('writes an empty first batch as BSON.serialize does', () => {
    expect(raw('db.coll', [])).toEqual(serialized('db.coll', []));
  });

  it('embeds one stored document unchanged', () => {
    const doc = { _id: 7, name: 'n7', nested: { a: [1, 2.5, 'x'] } };
    expect(raw('bench.points', [doc])).toEqual(serialized('bench.points', [doc]));
  });

  it('numbers array keys past 9 as BSON does', () => {
    const docs = Array.from({ length: 12 }, (_, i) => ({ _id: i }));
    expect(raw('db.coll', docs)).toEqual(serialized('db.coll', docs));
  });

  it('writes a namespace outside ASCII as UTF-8', () => {
    expect(raw('dbé.collé✓', [{ _id: 1 }])).toEqual(serialized('dbé.collé✓', [{ _id: 1 }]));
  });
});
