import { BSONRegExp } from 'mongodb';
import { describeCompat, type CompatCase } from './compat-cases.js';

/**
 * Regex options as they arrive on the wire. The driver (js-bson) sends a
 * JavaScript RegExp's `g` flag as the BSON option `s`, which mongod reads as
 * dotAll, and a BSONRegExp's options as given (`x` included); mongod refuses
 * an option it does not know (a literal `g` in `$options`) with 51108.
 */

const seed = [
  { _id: 1, s: 'a\nb' },
  { _id: 2, s: 'axb' },
  { _id: 3, s: 'AB' },
];

const ids = (docs: { _id: number }[]) => docs.map((d) => d._id);

const cases: CompatCase[] = [
  {
    name: 'a RegExp with g is sent as s: its dot matches a newline',
    seed,
    run: async (c) => ids(await c.find({ s: /a.b/g }).toArray()),
    expected: [1, 2],
  },
  {
    name: 'a RegExp with g and i under $regex',
    seed,
    run: async (c) => ids(await c.find({ s: { $regex: /^a.?b$/gi } }).toArray()),
    expected: [1, 2, 3],
  },
  {
    name: 'a RegExp with g in $in',
    seed,
    run: async (c) => ids(await c.find({ s: { $in: [/a.b/g] } }).toArray()),
    expected: [1, 2],
  },
  {
    name: 'a RegExp with g in $regexMatch',
    seed,
    run: async (c) => ids(await c.find({ $expr: { $regexMatch: { input: '$s', regex: /a.b/g } } }).toArray()),
    expected: [1, 2],
  },
  {
    name: 'a BSONRegExp keeps its x option (extended: spaces ignored)',
    seed,
    run: async (c) => ids(await c.find({ s: new BSONRegExp('a x b', 'x') }).toArray()),
    expected: [2],
  },
  {
    // js-bson's BSONRegExp refuses a g option itself, so a literal g reaches the server as $options.
    name: 'a literal g option is refused with 51108',
    seed,
    run: (c) => c.find({ s: { $regex: 'a', $options: 'g' } }).toArray(),
    code: 51108,
  },
  {
    name: 'a stored RegExp with g comes back as the driver reads s (g)',
    run: async (c) => {
      await c.insertOne({ _id: 1, r: /a/g });
      const r = (await c.findOne({ _id: 1 }))!.r as RegExp;
      return [r.source, r.flags];
    },
    expected: ['a', 'g'],
  },
];

describeCompat('regex-flags', cases);
