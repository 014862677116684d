import fc from 'fast-check';
import { Binary, BSON, BSONRegExp, Decimal128, Long, ObjectId, Timestamp, type Document } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { decodeDocument } from '../../src/shared/bson-documents.js';

/**
 * decodeDocument must answer exactly what the driver's `find` answers with
 * its default options (bson's deserialize, UTF-8 checked), for every record:
 * the element types it decodes itself and those it leaves to bson.
 */
const { serialize } = BSON;
const theDrivers = (bytes: Uint8Array) => BSON.deserialize(bytes, { validation: { utf8: true } });

function sameAsBson(bytes: Uint8Array): void {
  let theirs: Document | Error;
  try {
    theirs = theDrivers(bytes);
  } catch (error) {
    theirs = error as Error;
  }
  if (theirs instanceof Error) {
    expect(() => decodeDocument(bytes)).toThrow(theirs.message);
    return;
  }
  const ours = decodeDocument(bytes);
  expect(ours).toStrictEqual(theirs);
}

const keyName = fc.oneof(
  fc.constantFrom('name', 'items', '_id', 'deletedAt', 'x', ''),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 6 }),
).filter((key) => !key.includes('\0')); // BSON keys are C strings
const text = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 40 }), fc.constantFrom('Crème brûlée 🍮 "du chef"', '\uFFFD', ''));
const scalar = fc.oneof(
  text,
  fc.double(),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.date({ noInvalidDate: true }),
  fc.uint8Array({ minLength: 12, maxLength: 12 }).map((bytes) => new ObjectId(bytes)),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map((n) => Long.fromBigInt(n)),
  // Left to bson:
  fc.constantFrom(new Binary(Buffer.from('bytes')), Decimal128.fromString('1.5'), new BSONRegExp('a+', 'i'), new Timestamp({ t: 1, i: 2 })),
);
const value = fc.letrec<{ value: unknown; record: Record<string, unknown> }>((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, scalar, tie('record'), fc.array(tie('value'), { maxLength: 4 })),
  record: fc.dictionary(keyName, tie('value'), { maxKeys: 6 }),
}));

describe('decodeDocument', () => {
  it('answers what bson answers for any record', () => {
    fc.assert(
      fc.property(value.record, (record) => sameAsBson(serialize(record))),
      { numRuns: 500 },
    );
  });

  it('answers a menu as stored, with the types a read relies on', () => {
    const record = {
      _id: new ObjectId(),
      name: 'Tuesday lunch',
      items: [{ name: 'Smørrebrød', description: null, allergens: ['gluten'] }],
      estimatedPortions: 40,
      deletedAt: null,
      createdAt: new Date('2026-04-01T12:00:00.123Z'),
      __v: 0,
    };
    const ours = decodeDocument(serialize(record));
    expect(ours).toStrictEqual(record);
    expect(ours['_id']).toBeInstanceOf(ObjectId);
    expect(ours['createdAt']).toBeInstanceOf(Date);
  });

  it.each([
    ['an int64 beyond 2^53 (a Long)', { n: Long.fromBigInt(2n ** 60n) }],
    ['exactly 2^53 as an int64', { n: Long.fromBigInt(2n ** 53n) }],
    ['a DBRef', { ref: { $ref: 'menus', $id: new ObjectId() } }],
    ['a __proto__ key', JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Document],
    ['dates before 1970 and far ahead', { a: new Date(-86_400_000 * 365 * 100), b: new Date(8.64e15) }],
    ['undefined (deprecated type 6)', { u: undefined }],
  ])('answers what bson answers for %s', (_why, record) => {
    sameAsBson(serialize(record, { ignoreUndefined: false }));
  });

  it('refuses a string of invalid UTF-8 as bson does, and accepts a real U+FFFD', () => {
    const bad = Buffer.from(serialize({ s: 'abcd' }));
    bad.set([0xff, 0xfe], bad.indexOf('abcd'));
    expect(() => theDrivers(bad)).toThrow();
    sameAsBson(bad);
    sameAsBson(serialize({ s: 'a\uFFFDb' }));
  });

  it.each([
    ['cut short', (b: Buffer) => b.subarray(0, b.length - 3)],
    ['with a string length past the end', (b: Buffer) => (b.writeInt32LE(1000, b.indexOf('abc') - 4), b)],
    ['followed by more bytes than its size says', (b: Buffer) => Buffer.concat([b, Buffer.from([0, 0, 0])])],
    ['shorter than its size says, with a terminator where the size puts none', (b: Buffer) => (b.writeInt32LE(b.length + 2, 0), b)],
  ])('answers as bson does for bytes %s', (_why, damage) => {
    sameAsBson(damage(Buffer.from(serialize({ s: 'abc', n: 1 }))));
  });

  it('answers texts right when more of them than the table holds share its slots', () => {
    // 5,000 short texts for 4,096 slots: some share one, whatever the hash.
    const texts = Array.from({ length: 5000 }, (_, n) => `t${n}`);
    const record = { texts, keyed: Object.fromEntries(texts.map((text) => [text, text])) };
    for (let round = 0; round < 2; round += 1) expect(decodeDocument(BSON.serialize(record))).toStrictEqual(record);
    expect(decodeDocument(BSON.serialize({ texts: [...texts].reverse() }))).toStrictEqual({ texts: [...texts].reverse() });
  });
});
