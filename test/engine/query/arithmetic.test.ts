import { Decimal128, Double, Long } from 'bson';
import { describe, expect, it } from 'vitest';
import { arithmetic } from '../../../src/engine/query/arithmetic.js';

describe('arithmetic follows mongod result types', () => {
  it.each([
    ['int + int = int', 1, 2, 'add', 3],
    ['int + int overflow = long', 2147483647, 2147483647, 'add', Long.fromNumber(4294967294)],
    ['int + long = long', 1, Long.fromNumber(2), 'add', Long.fromNumber(3)],
    ['int + double = double', 1, 0.5, 'add', 1.5],
    ['integral double result keeps the Double wrapper', new Double(1.5), 0.5, 'add', new Double(2)],
    ['decimal + int = decimal', Decimal128.fromString('1.25'), 1, 'add', Decimal128.fromString('2.25')],
    ['decimal * double = decimal', Decimal128.fromString('2'), 0.5, 'mul', Decimal128.fromString('1.0')],
    ['int * int = int', 6, 7, 'mul', 42],
    ['long overflow is undefined', Long.MAX_VALUE, 1, 'add', undefined],
  ] as Array<[string, unknown, unknown, 'add' | 'mul', unknown]>)('%s', (_n, a, b, op, expected) => {
    expect(arithmetic(a, b, op)).toEqual(expected);
  });
});
