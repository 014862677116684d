import { Binary, BSONRegExp, BSONSymbol, Code, Decimal128, Double, Int32, Long, MaxKey, MinKey, ObjectId, Timestamp, UUID } from 'bson';
import { describe, expect, it } from 'vitest';
import { decodeScannedDocument, decodeStoredDocument, encodeStoredDocument, fieldNames } from '../../../src/engine/storage/bson-codec.js';

// A partial decode steps over the stored elements itself: every BSON type must be skipped by its exact size.
describe('decodeScannedDocument with chosen top-level fields', () => {
  const doc = {
    _id: new ObjectId('64b7f0c2a1b2c3d4e5f60718'),
    double: 2.5,
    integral: new Double(3),
    string: 'héllo',
    document: { a: new Int32(1), b: [1, 2] },
    array: [new Int32(1), 'x', { y: null }],
    binary: new Binary(Buffer.from([1, 2, 3]), 4),
    oid: new ObjectId(),
    bool: true,
    date: new Date(1234),
    null: null,
    regex: new BSONRegExp('a.c', 'imx'),
    code: new Code('function () {}'),
    symbol: new BSONSymbol('sym'),
    codeWithScope: new Code('x', { x: new Int32(1) }),
    int32: new Int32(7),
    timestamp: new Timestamp({ t: 5, i: 6 }),
    int64: Long.fromNumber(8),
    decimal: Decimal128.fromString('9.5'),
    minKey: new MinKey(),
    maxKey: new MaxKey(),
    'ünïcode': 'name in UTF-8',
  };
  const bytes = encodeStoredDocument(doc);
  // As the storage holds it (CollectionData): one char per byte.
  const stored = bytes.toString('latin1');
  const whole = decodeStoredDocument(bytes);

  it.each(Object.keys(doc))('decodes %s (with _id) as the whole document has it', (name) => {
    const partial = decodeScannedDocument(stored, fieldNames(new Set([name, '_id'])));
    const expected = name === '_id' ? { _id: whole._id } : { _id: whole._id, [name]: whole[name] };
    expect(partial).toEqual(expected);
    expect(Object.keys(partial)).toEqual(Object.keys(expected));
  });

  it('gives an empty document when no field is named, and all fields when all are', () => {
    expect(decodeScannedDocument(stored, fieldNames(new Set(['absent'])))).toEqual({});
    expect(decodeScannedDocument(stored, fieldNames(new Set(Object.keys(doc))))).toEqual(whole);
  });

  it('keeps what it decoded intact when the next documents are decoded (their bytes go through one reused buffer)', () => {
    const names = fieldNames(new Set(['binary', 'string']));
    const first = decodeScannedDocument(stored, names);
    const other = encodeStoredDocument({ binary: new Binary(Buffer.from([9, 9, 9, 9, 9]), 4), string: 'other' }).toString('latin1');
    decodeScannedDocument(other, names);
    const large = encodeStoredDocument({ binary: new Binary(Buffer.alloc(100_000, 7), 0), string: 'x'.repeat(70_000) }).toString('latin1');
    const decodedLarge = decodeScannedDocument(large, names);
    expect(first).toEqual({ binary: whole.binary, string: 'héllo' });
    expect((decodedLarge.binary as Binary).buffer).toEqual(Buffer.alloc(100_000, 7));
    expect(decodedLarge.string).toHaveLength(70_000);
  });
});

// A decoded Binary is a view into the bytes it was decoded from: those must be the document's own, not a pooled or reused buffer.
describe('decoded Binary values', () => {
  const uuid = new UUID('0e6a3c39-5f0b-4b5e-9f2a-0123456789ab');
  const stored = encodeStoredDocument({ _id: 1, uuid, data: new Binary(Buffer.from([1, 2, 3]), 0), text: 'x' }).toString('latin1');
  const memoryOf = (value: unknown) => (value as Binary).buffer.buffer.byteLength;

  it("hold memory of their document's exact size, whole or partly decoded", () => {
    const whole = decodeStoredDocument(stored);
    expect(memoryOf(whole.uuid)).toBe(stored.length);
    expect(memoryOf(whole.data)).toBe(stored.length);
    const partial = decodeScannedDocument(stored, fieldNames(new Set(['data'])));
    expect(memoryOf(partial.data)).toBeLessThan(stored.length);
    expect((partial.data as Binary).buffer).toEqual(Buffer.from([1, 2, 3]));
  });

  it('stay intact when other documents are decoded after them', () => {
    const first = decodeStoredDocument(stored);
    const firstPartial = decodeScannedDocument(stored, fieldNames(new Set(['uuid'])));
    for (let i = 0; i < 1000; i++) {
      const other = encodeStoredDocument({ _id: 2, uuid: new UUID(), data: new Binary(Buffer.from([i & 255, 9, 9]), 0), text: 'y' }).toString('latin1');
      decodeStoredDocument(other);
      decodeScannedDocument(other, fieldNames(new Set(['uuid'])));
    }
    expect((first.uuid as UUID).toHexString()).toBe(uuid.toHexString());
    expect((first.data as Binary).buffer).toEqual(Buffer.from([1, 2, 3]));
    expect((firstPartial.uuid as UUID).toHexString()).toBe(uuid.toHexString());
  });

  it('leave documents without one decoded as before', () => {
    expect(decodeStoredDocument(encodeStoredDocument({ _id: 1, n: new Int32(2), s: 'a' }).toString('latin1'))).toEqual({ _id: 1, n: 2, s: 'a' });
  });
});
