import { describeCompat, type CompatCase, type LooseCollection } from './compat-cases.js';

/**
 * $regexMatch, $regexFind and $regexFindAll: results as mongod 7.0 gives
 * them (idx in code points, null for a capture that took no part, a search
 * from each position over the whole string), argument errors with its codes,
 * and the query $regex's backtrack budget, so a catastrophic pattern fails
 * with 51156 (as mongod past PCRE's match limit) instead of holding the only
 * thread.
 */

const texts = [{ _id: 1, s: 'xab' }];
/** Evaluates one expression against the seeded document. */
const evaluate = async (c: LooseCollection, expr: unknown) => (await c.aggregate([{ $project: { _id: 0, v: expr } }]).toArray())[0]?.v;

const cases: CompatCase[] = [
  { name: '$regexMatch: a match', seed: texts, run: (c) => evaluate(c, { $regexMatch: { input: '$s', regex: 'a.' } }), expected: true },
  { name: '$regexMatch: options i', seed: texts, run: (c) => evaluate(c, { $regexMatch: { input: '$s', regex: 'AB', options: 'i' } }), expected: true },
  { name: '$regexMatch: a BSON regex with its flags', seed: texts, run: (c) => evaluate(c, { $regexMatch: { input: '$s', regex: /AB/i } }), expected: true },
  { name: '$regexMatch: a missing input is false', seed: texts, run: (c) => evaluate(c, { $regexMatch: { input: '$nope', regex: 'a' } }), expected: false },
  {
    name: '$regexFind: match, idx and captures (null for a group that took no part)',
    seed: texts,
    run: (c) => evaluate(c, { $regexFind: { input: '$s', regex: '(a)(z)?b' } }),
    expected: { match: 'ab', idx: 1, captures: ['a', null] },
  },
  { name: '$regexFind: no match is null', seed: texts, run: (c) => evaluate(c, { $regexFind: { input: '$s', regex: 'q' } }), expected: null },
  {
    name: '$regexFind: idx counts code points',
    seed: [{ _id: 1, s: 'é😀ab' }],
    run: (c) => evaluate(c, { $regexFind: { input: '$s', regex: 'ab' } }),
    expected: { match: 'ab', idx: 2, captures: [] },
  },
  {
    name: '$regexFindAll: every match with its idx',
    seed: [{ _id: 1, s: 'XaXaX' }],
    run: (c) => evaluate(c, { $regexFindAll: { input: '$s', regex: 'X' } }),
    expected: [0, 2, 4].map((idx) => ({ match: 'X', idx, captures: [] })),
  },
  {
    name: '$regexFindAll: ^ matches only at the start of the string',
    seed: [{ _id: 1, s: 'aaa' }],
    run: (c) => evaluate(c, { $regexFindAll: { input: '$s', regex: '^a' } }),
    expected: [{ match: 'a', idx: 0, captures: [] }],
  },
  {
    name: '$regexFindAll: an empty match steps one character on',
    seed: [{ _id: 1, s: 'ab' }],
    run: (c) => evaluate(c, { $regexFindAll: { input: '$s', regex: 'x*' } }),
    expected: [
      { match: '', idx: 0, captures: [] },
      { match: '', idx: 1, captures: [] },
    ],
  },
  {
    name: '$regexFindAll: a lookbehind sees what came before',
    seed: [{ _id: 1, s: 'a1b2a3' }],
    run: (c) => evaluate(c, { $regexFindAll: { input: '$s', regex: '(?<=a)\\d' } }),
    expected: [
      { match: '1', idx: 1, captures: [] },
      { match: '3', idx: 5, captures: [] },
    ],
  },
  {
    name: '$regexFindAll: a backreference matches within the budget',
    seed: [{ _id: 1, s: 'abab cdcd' }],
    run: async (c) => ((await evaluate(c, { $regexFindAll: { input: '$s', regex: '(\\w\\w)\\1' } })) as { match: string }[]).map((m) => m.match),
    expected: ['abab', 'cdcd'],
  },
  {
    // Each start position backtracks in the lookahead: a budget for the whole search, not growing with it, runs out.
    name: '$regexFind: a lookahead far into a long string is found (the budget grows with the input)',
    seed: [{ _id: 1, s: `${'x'.repeat(1_200_000)}ab` }],
    run: (c) => evaluate(c, { $regexFind: { input: '$s', regex: 'x(?=(ab))' } }),
    expected: { match: 'x', idx: 1_199_999, captures: ['ab'] },
  },
  {
    name: '$regexFind: a lookbehind whose only match is empty at the end',
    seed: [{ _id: 1, s: 'ab' }],
    run: (c) => evaluate(c, { $regexFind: { input: '$s', regex: '(?<=b)' } }),
    expected: { match: '', idx: 2, captures: [] },
  },
  { name: '$regexFind: a lookbehind that matches nowhere is null', seed: [{ _id: 1, s: 'ab' }], run: (c) => evaluate(c, { $regexFind: { input: '$s', regex: '(?<=x)' } }), expected: null },
  { name: '$regexMatch: a lookahead that matches nowhere is false', seed: [{ _id: 1, s: 'ab' }], run: (c) => evaluate(c, { $regexMatch: { input: '$s', regex: 'a(?=x)' } }), expected: false },

  // Past the backtrack budget (mongod: PCRE's match limit) the command fails; without the budget these would run for minutes.
  ...['$regexMatch', '$regexFind', '$regexFindAll'].map(
    (op): CompatCase => ({
      name: `${op}: a catastrophic pattern fails with 51156`,
      seed: [{ _id: 1, s: `${'a'.repeat(32)}b` }],
      run: (c) => evaluate(c, { [op]: { input: '$s', regex: '^(a+)+\\1$' } }),
      code: 51156,
    }),
  ),
  {
    name: '$regexFindAll: a catastrophic pattern fails with 51156 after earlier matches',
    seed: [{ _id: 1, s: `aa\n${'a'.repeat(32)}b` }],
    run: (c) => evaluate(c, { $regexFindAll: { input: '$s', regex: '^(a+)+\\1$', options: 'm' } }),
    code: 51156,
  },
  {
    name: '$regexMatch in $match ($expr) fails with 51156 for a catastrophic pattern',
    seed: [{ _id: 1, s: `${'a'.repeat(32)}b` }, { _id: 2, s: 'aaaa' }],
    run: (c) => c.aggregate([{ $match: { $expr: { $regexMatch: { input: '$s', regex: '^(a+)+\\1$' } } } }]).toArray(),
    code: 51156,
  },

  // refusals
  { name: 'an argument that is not an object is 51103', seed: texts, run: (c) => evaluate(c, { $regexMatch: 'a' }), code: 51103 },
  { name: 'an unknown argument is 31024', seed: texts, run: (c) => evaluate(c, { $regexMatch: { input: '$s', regex: 'a', flags: 'i' } }), code: 31024 },
  { name: 'no input is 31022', seed: texts, run: (c) => evaluate(c, { $regexFind: { regex: 'a' } }), code: 31022 },
  { name: 'no regex is 31023', seed: texts, run: (c) => evaluate(c, { $regexFind: { input: '$s' } }), code: 31023 },
  { name: 'an input that is no string is 51104', seed: texts, run: (c) => evaluate(c, { $regexMatch: { input: 5, regex: 'a' } }), code: 51104 },
  { name: 'a regex that is no string or regex is 51105', seed: texts, run: (c) => evaluate(c, { $regexMatch: { input: '$s', regex: 5 } }), code: 51105 },
  { name: 'options that are no string are 51106', seed: texts, run: (c) => evaluate(c, { $regexMatch: { input: '$s', regex: 'a', options: 1 } }), code: 51106 },
  { name: 'options in both regex and options are 51075', seed: texts, run: (c) => evaluate(c, { $regexMatch: { input: '$s', regex: /a/i, options: 'm' } }), code: 51075 },
  { name: 'an invalid pattern is 51111', seed: texts, run: (c) => evaluate(c, { $regexFindAll: { input: '$s', regex: '(a' } }), code: 51111 },
  { name: 'an unknown option is 51108', seed: texts, run: (c) => evaluate(c, { $regexFind: { input: '$s', regex: 'a', options: 'q' } }), code: 51108 },
];

describeCompat('regex expressions', cases);
