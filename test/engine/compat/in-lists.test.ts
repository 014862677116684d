import { BSONSymbol, Decimal128, Double, Int32, Long, ObjectId } from 'bson';
import { describeCompat, type CompatCase } from './compat-cases.js';

/**
 * `$in` and `$nin` find exactly what equality finds, also where the engine
 * looks items up in sets (strings without a collation, plain numbers,
 * ObjectIds) instead of testing each: numbers of every BSON type by value,
 * NaN and -0, strings under a collation, arrays and their elements, regexes
 * and null beside set items, and a list of 20,000 ids.
 */
const ids = Array.from({ length: 6 }, (_, i) => new ObjectId(`00000000000000000000000${i}`.slice(-24)));
const numbers = [
  { _id: 1, v: new Int32(5) },
  { _id: 2, v: Long.fromNumber(5) },
  { _id: 3, v: new Double(5) },
  { _id: 4, v: Decimal128.fromString('5.0') },
  { _id: 5, v: 6 },
  { _id: 6, v: NaN },
  { _id: 7, v: -0 },
  { _id: 8, v: '5' },
];
const matched = async (cursor: { project(p: object): { toArray(): Promise<{ _id: unknown }[]> } }) => (await cursor.project({ _id: 1 }).toArray()).map((d) => d._id);

const cases: CompatCase[] = [
  {
    name: 'a plain number item finds every numeric type of that value, never the string',
    seed: numbers,
    run: (c) => matched(c.find({ v: { $in: [5] } }).sort({ _id: 1 })),
    expected: [1, 2, 3, 4],
  },
  {
    name: 'a Long or Decimal128 item finds plain numbers of its value',
    seed: numbers,
    run: (c) => matched(c.find({ v: { $in: [Long.fromNumber(6), Decimal128.fromString('5')] } }).sort({ _id: 1 })),
    expected: [1, 2, 3, 4, 5],
  },
  { name: 'NaN finds NaN', seed: numbers, run: (c) => matched(c.find({ v: { $in: [NaN] } })), expected: [6] },
  { name: '0 finds -0', seed: numbers, run: (c) => matched(c.find({ v: { $in: [0] } })), expected: [7] },
  {
    name: '$nin of a number leaves out every numeric type of it',
    seed: numbers,
    run: (c) => matched(c.find({ v: { $nin: [5, NaN] } }).sort({ _id: 1 })),
    expected: [5, 7, 8],
  },
  {
    name: 'strings: exact without a collation, by the collation with one',
    seed: [
      { _id: 1, s: 'Ada' },
      { _id: 2, s: 'ada' },
      { _id: 3, s: 'Bob' },
    ],
    run: async (c) => [
      await matched(c.find({ s: { $in: ['ada', 'eve'] } })),
      await matched(c.find({ s: { $in: ['ada', 'eve'] } }, { collation: { locale: 'en', strength: 2 } }).sort({ _id: 1 })),
    ],
    expected: [[2], [1, 2]],
  },
  {
    name: 'a symbol value is found by its string',
    seed: [{ _id: 1, s: new BSONSymbol('ada') }, { _id: 2, s: 'eve' }],
    run: (c) => matched(c.find({ s: { $in: ['ada'] } })),
    expected: [1],
  },
  {
    name: 'ObjectIds by their bytes, with null (missing too) and a regex beside them',
    seed: [
      { _id: 1, ref: ids[1] },
      { _id: 2, ref: ids[2] },
      { _id: 3 },
      { _id: 4, ref: 'x-ray' },
      { _id: 5, ref: ids[1]!.toHexString() },
    ],
    run: (c) => matched(c.find({ ref: { $in: [new ObjectId(ids[1]!.toHexString()), null, /^x-/] } }).sort({ _id: 1 })),
    expected: [1, 3, 4],
  },
  {
    name: 'an array value is found by one of its elements, or as a whole',
    seed: [
      { _id: 1, tags: ['a', 'b'] },
      { _id: 2, tags: [['a', 'b']] },
      { _id: 3, tags: ['c'] },
    ],
    run: async (c) => [await matched(c.find({ tags: { $in: ['b'] } })), await matched(c.find({ tags: { $in: [['a', 'b']] } }).sort({ _id: 1 }))],
    expected: [[1], [1, 2]],
  },
  {
    name: '_id among 20,000 ids (a few of them stored)',
    seed: ids.map((_id, n) => ({ _id, n })),
    run: (c) => {
      const list = [...Array.from({ length: 19_997 }, () => new ObjectId()), ids[0]!, ids[3]!, ids[5]!];
      return matched(c.find({ _id: { $in: list } }).sort({ n: 1 }));
    },
    expected: [ids[0], ids[3], ids[5]],
  },
  {
    name: 'a nested operator inside the list is still refused (BadValue)',
    seed: [{ _id: 1 }],
    run: (c) => c.find({ v: { $in: [5, { $gt: 1 }] } }).toArray(),
    code: 2,
  },
];

describeCompat('$in lists', cases);
