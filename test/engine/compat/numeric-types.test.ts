import { Decimal128, Double, Int32, Long } from 'bson';
import type { Document } from 'mongodb';
import { describeCompat, type CompatCase } from './compat-cases.js';

/**
 * Expression operators keep BSON numeric types as mongod does: int op int
 * stays int (long past int32), long stays long, a double gives a double even
 * when integral, a Decimal128 gives an exact Decimal128. Read back with
 * promoteValues: false, so the reply's types are what is compared.
 */

const seed = [
  {
    _id: 1,
    i: 7,
    neg: -7,
    l: Long.fromString('9007199254740993'),
    d: 2.5,
    x: Decimal128.fromString('10.25'),
    y: Decimal128.fromString('3'),
    big: 2147483647,
  },
];

function project(expr: Document): CompatCase['run'] {
  return async (c) => {
    const [doc] = await c.aggregate([{ $project: { _id: 0, v: expr } }], { promoteValues: false }).toArray();
    return doc!.v;
  };
}

const cases: CompatCase[] = [
  { name: '$subtract long - int stays long (exactly)', seed, run: project({ $subtract: ['$l', 1] }), expected: Long.fromString('9007199254740992') },
  { name: '$subtract int - int stays int', seed, run: project({ $subtract: ['$i', 10] }), expected: new Int32(-3) },
  { name: '$subtract int overflow becomes long', seed, run: project({ $subtract: ['$neg', '$big'] }), expected: Long.fromString('-2147483654') },
  { name: '$subtract decimal - int is decimal', seed, run: project({ $subtract: ['$x', 1] }), expected: Decimal128.fromString('9.25') },
  { name: '$subtract double - int gives a double even when integral', seed, run: project({ $subtract: ['$d', 0.5] }), expected: new Double(2) },
  { name: '$divide int / int is a double', seed, run: project({ $divide: [10, 2] }), expected: new Double(5) },
  { name: '$divide decimal / decimal is an exact decimal', seed, run: project({ $divide: ['$x', Decimal128.fromString('0.5')] }), expected: Decimal128.fromString('20.5') },
  { name: '$mod long % int stays long', seed, run: project({ $mod: ['$l', 10] }), expected: Long.fromNumber(3) },
  { name: '$mod decimal % decimal is decimal', seed, run: project({ $mod: ['$x', '$y'] }), expected: Decimal128.fromString('1.25') },
  { name: '$mod int % int keeps the dividend sign', seed, run: project({ $mod: ['$neg', 4] }), expected: new Int32(-3) },
  { name: '$abs long stays long', seed, run: project({ $abs: { $subtract: [0, '$l'] } }), expected: Long.fromString('9007199254740993') },
  { name: '$abs decimal stays decimal', seed, run: project({ $abs: Decimal128.fromString('-1.50') }), expected: Decimal128.fromString('1.50') },
  { name: '$ceil decimal', seed, run: project({ $ceil: '$x' }), expected: Decimal128.fromString('11') },
  { name: '$floor negative decimal', seed, run: project({ $floor: Decimal128.fromString('-10.25') }), expected: Decimal128.fromString('-11') },
  { name: '$floor long stays long', seed, run: project({ $floor: '$l' }), expected: Long.fromString('9007199254740993') },
  { name: '$ceil double gives a double', seed, run: project({ $ceil: '$d' }), expected: new Double(3) },
  { name: '$round decimal to one place (half to even)', seed, run: project({ $round: ['$x', 1] }), expected: Decimal128.fromString('10.2') },
  { name: '$round int to tens stays int', seed, run: project({ $round: [1250, -2] }), expected: new Int32(1200) },
  { name: '$trunc decimal to one place', seed, run: project({ $trunc: ['$x', 1] }), expected: Decimal128.fromString('10.2') },
  { name: '$trunc double gives a double', seed, run: project({ $trunc: '$d' }), expected: new Double(2) },
  { name: '$sum of long and int (expression) stays long', seed, run: project({ $sum: ['$l', 1] }), expected: Long.fromString('9007199254740994') },
  { name: '$sum with a decimal is decimal', seed, run: project({ $sum: ['$x', '$y', 1] }), expected: Decimal128.fromString('14.25') },
  { name: '$avg of ints is a double', seed, run: project({ $avg: [1, 2] }), expected: new Double(1.5) },
  { name: '$avg with a decimal is decimal', seed, run: project({ $avg: ['$x', '$y'] }), expected: Decimal128.fromString('6.625') },
  {
    name: '$group $avg over decimals is decimal, $sum over longs is long',
    seed: [
      { _id: 1, x: Decimal128.fromString('1.5'), l: Long.fromNumber(1) },
      { _id: 2, x: Decimal128.fromString('2'), l: Long.fromNumber(2) },
    ],
    run: async (c) =>
      (await c.aggregate([{ $group: { _id: null, a: { $avg: '$x' }, s: { $sum: '$l' } } }, { $project: { _id: 0 } }], { promoteValues: false }).toArray())[0],
    expected: { a: Decimal128.fromString('1.75'), s: Long.fromNumber(3) },
  },
  { name: '$subtract of a date and a number still works', seed: [{ _id: 1, t: new Date(1000) }], run: project({ $subtract: ['$t', 500] }), expected: new Date(500) },
  {
    name: '$divide by zero is an error',
    seed,
    run: (c) => c.aggregate([{ $project: { v: { $divide: ['$i', 0] } } }]).toArray(),
    code: 2,
  },
];

describeCompat('numeric types', cases);
