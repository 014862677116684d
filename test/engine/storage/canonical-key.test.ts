import { describe, expect, it } from 'vitest';
import { Binary, Decimal128, Double, Long, ObjectId } from 'bson';
import { canonicalKey } from '../../../src/engine/storage/index.js';

describe('canonicalKey (hash key of _id and unique index entries)', () => {
  it.each([
    ['int and integral double', 1, new Double(1)],
    ['int and long', 7, Long.fromNumber(7)],
    ['int and decimal with trailing zeros', 2, Decimal128.fromString('2.000')],
    ['double and exact decimal', 0.5, Decimal128.fromString('0.50')],
    ['zero and negative zero', 0, -0],
    ['long beyond 2^53 and decimal', Long.fromString('9007199254740993'), Decimal128.fromString('9007199254740993')],
    ['equal documents', { a: 1, b: [1, 'x'] }, { a: new Double(1), b: [Long.fromNumber(1), 'x'] }],
  ])('is equal for %s', (_name, a, b) => {
    expect(canonicalKey(a)).toBe(canonicalKey(b));
  });

  it.each([
    ['0.1 as double and as decimal (not the same number)', 0.1, Decimal128.fromString('0.1')],
    ['long 2^53+1 and the nearest double', Long.fromString('9007199254740993'), 9007199254740992],
    ['number and string', 1, '1'],
    ['documents with fields in another order', { a: 1, b: 2 }, { b: 2, a: 1 }],
    ['ObjectId and its hex string', new ObjectId('65a1b2c3d4e5f60718293a4b'), '65a1b2c3d4e5f60718293a4b'],
    ['binaries of different subtypes', new Binary(Buffer.from([1]), 0), new Binary(Buffer.from([1]), 4)],
    ['array and its only element', [1], 1],
    ['null and false', null, false],
  ])('differs for %s', (_name, a, b) => {
    expect(canonicalKey(a)).not.toBe(canonicalKey(b));
  });

  it('folds case under a strength 2 collation only', () => {
    expect(canonicalKey('Ann', { locale: 'en', strength: 2 })).toBe(canonicalKey('aNN', { locale: 'en', strength: 2 }));
    expect(canonicalKey('Ann')).not.toBe(canonicalKey('aNN'));
    expect(canonicalKey('Ann', { locale: 'en', strength: 3 })).not.toBe(canonicalKey('aNN', { locale: 'en', strength: 3 }));
  });
});
