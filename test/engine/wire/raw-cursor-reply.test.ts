import { BSON, Long } from 'bson';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeCursorReply, encodeExhaustedFirstBatchReply, type BatchKey } from '../../../src/engine/wire/index.js';

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

describe('encodeCursorReply', () => {
  const serializedAs = (ns: string, id: bigint, key: BatchKey, docs: object[]) =>
    Buffer.from(BSON.serialize({ cursor: { [key]: docs, id: Long.fromBigInt(id), ns }, ok: 1 }));
  const rawAs = (ns: string, id: bigint, key: BatchKey, docs: object[]) => encodeCursorReply(ns, id, key, docs.map((d) => BSON.serialize(d)));

  it('writes an open cursor id and a next batch past 100 documents as BSON.serialize does', () => {
    const docs = Array.from({ length: 150 }, (_, i) => ({ _id: i, s: 'é'.repeat(i % 4) }));
    for (const key of ['firstBatch', 'nextBatch'] as const) {
      for (const id of [0n, 1n, 0x4fedcba987654321n, -2n]) expect(rawAs('db.c', id, key, docs)).toEqual(serializedAs('db.c', id, key, docs));
    }
  });

  it('writes any batch of JSON-like documents, namespace and cursor id as BSON.serialize does', () => {
    const doc = fc.dictionary(fc.string(), fc.jsonValue()).filter((d) => !Object.keys(d).some((k) => k.includes('\0')));
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', minLength: 1 }).filter((s) => !s.includes('\0')),
        fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
        fc.constantFrom<BatchKey>('firstBatch', 'nextBatch'),
        fc.array(doc, { maxLength: 25 }),
        (ns, id, key, docs) => {
          expect(rawAs(ns, id, key, docs)).toEqual(serializedAs(ns, id, key, docs));
        },
      ),
      { numRuns: 200 },
    );
  });
});
