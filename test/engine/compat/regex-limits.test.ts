import { describeCompat, type CompatCase } from './compat-cases.js';

/**
 * Regular expressions with backreferences or lookaround cannot use V8's
 * linear engine: they run with a backtrack budget, and a match that runs
 * out of it does not match (mongod's PCRE answers the same past its match
 * limit). Without the budget, the catastrophic cases below would not finish.
 */

const strings = [
  { _id: 1, s: 'abab' },
  { _id: 2, s: 'xY' },
  { _id: 3, s: `${'a'.repeat(32)}b` },
  { _id: 4, s: 'aaaa' },
];
const ids = (docs: { _id: unknown }[]) => docs.map((d) => d._id);

const cases: CompatCase[] = [
  { name: 'a backreference matches', seed: strings, run: async (c) => ids(await c.find({ s: { $regex: '^(ab)\\1$' } }).toArray()), expected: [1] },
  { name: 'a lookbehind matches (case-insensitive)', seed: strings, run: async (c) => ids(await c.find({ s: { $regex: '(?<=x)y', $options: 'i' } }).toArray()), expected: [2] },
  { name: 'a negative lookahead matches', seed: strings, run: async (c) => ids(await c.find({ s: { $regex: '^a(?!b)' } }).toArray()), expected: [3, 4] },
  {
    name: 'a catastrophic backreference pattern answers without matching the adversarial string',
    seed: strings,
    run: async (c) => ids(await c.find({ s: { $regex: '^(a+)+\\1$' } }).toArray()),
    expected: [4],
  },
  {
    name: 'a catastrophic lookahead pattern answers',
    seed: strings,
    run: async (c) => ids(await c.find({ s: { $regex: '^(?=(a|aa)+$)' } }).toArray()),
    expected: [4],
  },
  {
    name: 'a catastrophic pattern in $in answers',
    seed: strings,
    run: async (c) => ids(await c.find({ s: { $in: [/^(a+)+\1$/, /^ab/] } }).toArray()),
    expected: [1, 4],
  },
  {
    // Each start position backtracks in the lookahead: a budget for the whole search, not growing with it, runs out.
    name: 'a lookahead far into a long string matches (the budget grows with the input)',
    seed: [{ _id: 1, s: `${'x'.repeat(1_200_000)}ab` }, { _id: 2, s: 'x'.repeat(1_200_000) }],
    run: async (c) => ids(await c.find({ s: { $regex: 'x(?=ab)' } }, { projection: { _id: 1 } }).toArray()),
    expected: [1],
  },
  { name: 'a pattern longer than 16384 characters is 51091', seed: strings, run: (c) => c.find({ s: { $regex: 'a'.repeat(16385) } }).toArray(), code: 51091 },
  { name: 'an invalid pattern is 51091', seed: strings, run: (c) => c.find({ s: { $regex: '(a' } }).toArray(), code: 51091 },
  { name: 'an invalid backreference pattern is 51091', seed: strings, run: (c) => c.find({ s: { $regex: '(?<=a' } }).toArray(), code: 51091 },
];

describeCompat('regex limits', cases);
