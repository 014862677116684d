import { Binary, BSONRegExp, Decimal128, Double, Long, MaxKey, MinKey, ObjectId, Timestamp } from 'bson';
import { describe, expect, it } from 'vitest';
import { compareValues, valuesEqual } from '../../../src/engine/query/index.js';

const sign = (n: number) => (n < 0 ? -1 : n > 0 ? 1 : 0);

describe('compareValues follows mongod BSON order', () => {
  const cases: Array<[string, unknown, unknown, number]> = [
    ['int equals integral double', 1, new Double(1), 0],
    ['int equals long', 5, Long.fromNumber(5), 0],
    ['int equals decimal', 5, Decimal128.fromString('5.00'), 0],
    ['double vs decimal exact', 0.1, Decimal128.fromString('0.1'), 1],
    ['long beyond 2^53 compared exactly', Long.fromString('9007199254740993'), 9007199254740992, 1],
    ['NaN lowest among numbers', Number.NaN, -Infinity, -1],
    ['NaN equals decimal NaN', Number.NaN, Decimal128.fromString('NaN'), 0],
    ['-0 equals 0', -0, 0, 0],
    ['null equals missing', null, undefined, 0],
    ['MinKey below null', new MinKey(), null, -1],
    ['null below numbers', null, -5, -1],
    ['numbers below strings', 1e9, '', -1],
    ['strings binary order', 'B', 'a', -1],
    ['strings below objects', 'z', {}, -1],
    ['objects below arrays', { a: 1 }, [], -1],
    ['arrays below binData', [1], new Binary(Buffer.from('a')), -1],
    ['binData by length first', new Binary(Buffer.from('zz')), new Binary(Buffer.from('aaa')), -1],
    ['binData below ObjectId', new Binary(Buffer.from('a')), new ObjectId(), -1],
    ['ObjectId by bytes', new ObjectId('000000000000000000000001'), new ObjectId('000000000000000000000002'), -1],
    ['ObjectId by its first byte', new ObjectId('ff0000000000000000000000'), new ObjectId('7fffffffffffffffffffffff'), 1],
    ['ObjectId by a middle byte', new ObjectId('0000000080000000000000ff'), new ObjectId('00000000ff00000000000000'), -1],
    ['ObjectId by its ninth byte', new ObjectId('0000000000000000010000ff'), new ObjectId('000000000000000002000000'), -1],
    ['ObjectId equal when built from hex and bytes', new ObjectId('65a1b2c3d4e5f60718293a4b'), new ObjectId(Buffer.from('65a1b2c3d4e5f60718293a4b', 'hex')), 0],
    ['ObjectId below boolean', new ObjectId(), false, -1],
    ['false below true', false, true, -1],
    ['boolean below Date', true, new Date(0), -1],
    ['dates by time', new Date(1), new Date(2), -1],
    ['Date below Timestamp', new Date(), new Timestamp({ t: 1, i: 1 }), -1],
    ['Timestamp below regex', new Timestamp({ t: 1, i: 1 }), new BSONRegExp('a', ''), -1],
    ['regex below MaxKey', new BSONRegExp('a', ''), new MaxKey(), -1],
    ['objects field by field', { a: 1, b: 2 }, { a: 1, b: 3 }, -1],
    ['objects compare field type before name', { a: 'x' }, { b: 1 }, 1],
    ['shorter object first', { a: 1 }, { a: 1, b: 1 }, -1],
    ['arrays element-wise', [1, 2], [1, 3], -1],
    ['shorter array first', [1], [1, 0], -1],
    ['arrays with equal numbers of other types', [1, Long.fromNumber(2)], [new Double(1), 2], 0],
    ['surrogate pairs above BMP private use', '\u{1F600}', '\uFFFD', 1],
  ];
  it.each(cases)('%s', (_name, a, b, expected) => {
    expect(sign(compareValues(a, b))).toBe(expected);
    expect(sign(compareValues(b, a))).toBe(0 - expected || 0);
  });

  it('compares strings case-insensitively with a strength 2 collation', () => {
    expect(valuesEqual('ABC', 'abc', { locale: 'en', strength: 2 })).toBe(true);
  });
  it('distinguishes accents with strength 2 but not with strength 1', () => {
    expect(valuesEqual('é', 'e', { locale: 'en', strength: 2 })).toBe(false);
    expect(valuesEqual('É', 'e', { locale: 'en', strength: 1 })).toBe(true);
  });
});
