import { BSON, Decimal128, Double, Int32, Long, ObjectId } from 'bson';
import { describe, expect, it } from 'vitest';
import { fromBson, fromBsonDocument, isNumeric, numericType, toDouble } from '../../../src/engine/query/index.js';
import type { Document } from '../../../src/engine/query/index.js';

const roundTrip = (doc: Document) => fromBson(BSON.deserialize(BSON.serialize(doc), { promoteValues: false })) as Document;

describe('fromBson builds the value model', () => {
  const doc = roundTrip({
    i: new Int32(1),
    d: new Double(2),
    f: 2.5,
    l: Long.fromNumber(3),
    m: Decimal128.fromString('4.5'),
    s: 'str',
    o: new ObjectId('64b7f0c2a1b2c3d4e5f60718'),
    nested: { arr: [new Int32(5), new Double(6)] },
  });

  it.each([
    ['int32 becomes a JS number', 'i', 'int'],
    ['integral double keeps a Double wrapper', 'd', 'double'],
    ['fractional double becomes a JS number', 'f', 'double'],
    ['int64 stays Long', 'l', 'long'],
    ['decimal128 stays Decimal128', 'm', 'decimal'],
  ])('%s', (_n, field, type) => {
    expect(numericType(doc[field])).toBe(type);
  });

  it('int32 is a plain number', () => {
    expect(doc.i).toBe(1);
  });
  it('converts inside arrays and sub-documents', () => {
    expect((doc.nested as Document).arr).toEqual([5, new Double(6)]);
  });
  it('serializes back with the original types', () => {
    const again = BSON.deserialize(BSON.serialize(doc), { promoteValues: false });
    expect(again.i).toBeInstanceOf(Int32);
    expect(again.d).toBeInstanceOf(Double);
    expect(again.l).toBeInstanceOf(Long);
  });
  it('leaves strings and ObjectIds alone', () => {
    expect([doc.s, (doc.o as ObjectId).toHexString()]).toEqual(['str', '64b7f0c2a1b2c3d4e5f60718']);
  });
});

// fromBsonDocument converts a freshly deserialized document in place instead of copying it.
describe('fromBsonDocument gives what fromBson gives', () => {
  const source: Document = {
    i: new Int32(1),
    d: new Double(2),
    z: new Double(-0),
    f: 2.5,
    l: Long.fromNumber(3),
    m: Decimal128.fromString('4.5'),
    s: 'str',
    n: null,
    o: new ObjectId('64b7f0c2a1b2c3d4e5f60718'),
    at: new Date(0),
    nested: { arr: [new Int32(5), new Double(6), 6.5, [new Int32(7), { deep: new Double(8) }]], sub: { i: new Int32(9) } },
  };
  const bytes = BSON.serialize(source);
  const parsed = () => BSON.deserialize(bytes, { promoteValues: false }) as Document;
  const describeTypes = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(describeTypes)
      : value !== null && typeof value === 'object' && value.constructor === Object
        ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, describeTypes(v)]))
        : [numericType(value) ?? typeof value, Object.is(value, -0) ? '-0' : String(value)];

  it('with the same values and numeric types, nested ones included', () => {
    expect(describeTypes(fromBsonDocument(parsed()))).toEqual(describeTypes(fromBson(parsed())));
  });
  it('serializes back to the same bytes', () => {
    expect(Buffer.from(BSON.serialize(fromBsonDocument(parsed())))).toEqual(Buffer.from(bytes));
  });
  it('keeps a field named __proto__ an own field', () => {
    const raw = BSON.deserialize(BSON.serialize({ a: new Int32(1) }), { promoteValues: false }) as Document;
    Object.defineProperty(raw, '__proto__', { value: { x: new Int32(2) }, enumerable: true, configurable: true, writable: true });
    const doc = fromBsonDocument(raw);
    expect(Object.getPrototypeOf(doc)).toBe(Object.prototype);
    expect(Object.keys(doc)).toEqual(['a', '__proto__']);
    expect(Object.getOwnPropertyDescriptor(doc, '__proto__')?.value).toEqual({ x: 2 });
  });
});

describe('numeric helpers', () => {
  it.each([
    [1, true, 1],
    [new Double(2), true, 2],
    [Long.fromNumber(3), true, 3],
    [Decimal128.fromString('4.5'), true, 4.5],
    ['5', false, Number.NaN],
  ])('%o', (value, numeric, asDouble) => {
    expect([isNumeric(value), toDouble(value)]).toEqual([numeric, asDouble]);
  });
});
