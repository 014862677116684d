import { BSON, Decimal128, Long, ObjectId } from 'bson';
import { describe, expect, it } from 'vitest';
import { encodeUpdatedValueReply } from '../../../src/engine/wire/index.js';

/** The hand-written reply must be byte for byte what BSON.serialize writes for the same object. */
const serialized = (value: object) => Buffer.from(BSON.serialize({ lastErrorObject: { n: 1, updatedExisting: true }, value, ok: 1 }));
const raw = (value: object) => encodeUpdatedValueReply(BSON.serialize(value));

describe('encodeUpdatedValueReply', () => {
  it('embeds the stored document as BSON.serialize writes the reply', () => {
    const doc = { _id: new ObjectId(), tenant_id: 't1', date: new Date(0), estimatedPortions: 12, courses: [{ name: 'soup', allergens: ['celery'] }] };
    expect(raw(doc)).toEqual(serialized(doc));
  });

  it('keeps numeric types and text outside ASCII', () => {
    const doc = { _id: 1, l: Long.fromNumber(2 ** 40), d: Decimal128.fromString('1.50'), f: 1.5, s: 'é✓' };
    expect(raw(doc)).toEqual(serialized(doc));
  });

  it('is read back by BSON as the reply object', () => {
    const doc = { _id: 2, a: { b: [1, 2] } };
    expect(BSON.deserialize(raw(doc))).toEqual({ lastErrorObject: { n: 1, updatedExisting: true }, value: doc, ok: 1 });
  });
});
