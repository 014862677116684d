import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareValues, type Collation } from '../../../src/engine/query/index.js';
import { canonicalKey } from '../../../src/engine/storage/index.js';

/**
 * A unique index with a collation refuses exactly what the collation calls
 * equal (as mongod's ICU sort keys do): the index key (canonicalKey) and the
 * query comparison (compareValues) come from one collation key. Property
 * tests over strings rich in characters ICU ignores, letter case and
 * compatibility forms, at the strengths the service (emails: 2) and mongoose
 * users use.
 */

/** Spellings of one letter, from plain to case and compatibility forms. */
const LETTERS = [
  ['a', 'A', 'ａ', 'Ａ'],
  ['b', 'B', 'ｂ'],
  ['e', 'E', 'ｅ'],
  ['é', 'e\u0301', 'É', 'E\u0301'],
  ['fi', 'FI', 'Fi', 'ﬁ'],
  ['s', 'S', 'ｓ'],
  ['o', 'O', 'ö', 'Ö'],
  ['1', '１'],
  ['@', '＠'],
] as const;

/** Characters ICU ignores completely (the U+0640, U+0591-U+05AF, U+0488, U+05BD, U+0610, soft hyphen, zero-width ones, a control). */
const IGNORABLES = ['\u00AD', '\u200B', '\u200D', '\uFEFF', '\u0640', '\u0591', '\u05A0', '\u05AF', '\u0488', '\u05BD', '\u0610', '\u0001'];

const ignorable = fc.array(fc.constantFrom(...IGNORABLES), { maxLength: 2 }).map((chars) => chars.join(''));

/** One letter in each string: the same letter in two spellings, or (sometimes) two letters. */
const unit = fc
  .record({ letter: fc.nat(LETTERS.length - 1), other: fc.option(fc.nat(LETTERS.length - 1), { freq: 5 }), a: fc.nat(), b: fc.nat(), ignoredA: ignorable, ignoredB: ignorable })
  .map(({ letter, other, a, b, ignoredA, ignoredB }) => {
    const spellingsA = LETTERS[letter]!;
    const spellingsB = LETTERS[other ?? letter]!;
    return [spellingsA[a % spellingsA.length]! + ignoredA, ignoredB + spellingsB[b % spellingsB.length]!] as const;
  });

/** Two strings, often equal under a collation though spelt differently. */
const pair = fc.array(unit, { maxLength: 6 }).map((units) => [units.map((u) => u[0]).join(''), units.map((u) => u[1]).join('')] as const);

const COLLATIONS: Collation[] = [
  { locale: 'en', strength: 2 },
  { locale: 'en', strength: 1 },
  { locale: 'en', strength: 3 },
  { locale: 'en' },
  { locale: 'fr', strength: 2 },
];

const sensitivity = (c: Collation) => (c.strength === 1 ? 'base' : c.strength === 2 ? 'accent' : 'variant');

describe.each(COLLATIONS)('collation key under %o', (collation) => {
  it('gives two strings one index key exactly when the comparison calls them equal', () => {
    fc.assert(
      fc.property(pair, ([a, b]) => {
        expect(canonicalKey(a, collation) === canonicalKey(b, collation)).toBe(compareValues(a, b, collation) === 0);
        expect(Math.sign(compareValues(a, b, collation))).toBe(-Math.sign(compareValues(b, a, collation)) || 0);
      }),
      { numRuns: 2000 },
    );
  });

  it('calls equal exactly what ICU calls equal', () => {
    const icu = new Intl.Collator(collation.locale, { sensitivity: sensitivity(collation), usage: 'sort' });
    fc.assert(
      fc.property(pair, ([a, b]) => {
        expect(compareValues(a, b, collation) === 0).toBe(icu.compare(a, b) === 0);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('collated index key', () => {
  const emails = { locale: 'en', strength: 2 };

  it.each([
    ['soft hyphen', 'new\u00ADhire@acme.test', 'newhire@acme.test'],
    ['zero-width space', 'bo\u200Bss@acme.test', 'boss@acme.test'],
    ['Arabic tatweel', 'bo\u0640ss@globex.test', 'boss@globex.test'],
    ['Hebrew accent', 'bo\u0591ss@acme.test', 'BOSS@acme.test'],
  ])('folds an ignored character (%s) as the comparison does', (_name, spelling, email) => {
    expect(compareValues(spelling, email, emails)).toBe(0);
    expect(canonicalKey(spelling, emails)).toBe(canonicalKey(email, emails));
    expect(canonicalKey({ e: [spelling] }, emails)).toBe(canonicalKey({ e: [email] }, emails));
  });

  it('keeps the identical strength (5) apart on every character', () => {
    const identical = { locale: 'en', strength: 5 };
    expect(canonicalKey('a\u00ADb', identical)).not.toBe(canonicalKey('ab', identical));
    expect(compareValues('a\u00ADb', 'ab', identical)).not.toBe(0);
    expect(canonicalKey('e\u0301', identical)).toBe(canonicalKey('é', identical));
  });
});
