import { mongoError } from '../errors.js';
import { formatValue } from './format.js';
import { isPlainObject } from './values.js';
import type { Collation } from './types.js';

/**
 * Collation locales as mongod takes them: ICU locale IDs (`en_US`,
 * `zh_Hant`, `de@collation=phonebook`), accepted only when ICU would use
 * exactly that ID (mongod's validateLocaleID), so `en-US` or `EN` are
 * refused with BadValue. JavaScript's Intl wants BCP 47 tags instead
 * (`en-US`, `de-u-co-phonebk`): intlLocaleOf() (collation/collator.ts) translates.
 */

/** mongod 7.0's documented collation locales, each with its `@collation=` variants. */
const LOCALES: Readonly<Record<string, readonly string[]>> = {
  af: [], sq: [], am: [], ar: ['compat'], hy: [], as: [], az: ['search'], bn: ['traditional'], be: [],
  bs: ['search'], bs_Cyrl: [], bg: [], my: [], ca: ['search'], chr: [],
  zh: ['big5han', 'gb2312han', 'unihan', 'zhuyin'], zh_Hant: [], hr: ['search'], cs: ['search'],
  da: ['search'], nl: [], dz: [], en: [], en_US: [], en_US_POSIX: [], eo: [], et: [], ee: [], fo: [],
  fil: [], fi: ['search', 'traditional'], fr: [], fr_CA: [], gl: ['search'], ka: [],
  de: ['search', 'eor', 'phonebook'], de_AT: ['phonebook'], el: [], gu: [], ha: [], haw: [],
  he: ['search'], hi: [], hu: [], is: ['search'], ig: [], smn: ['search'], id: [], ga: [], it: [],
  ja: ['unihan'], kl: ['search'], kn: ['traditional'], kk: [], km: [], kok: [],
  ko: ['search', 'searchjl', 'unihan'], ky: [], lkt: [], lo: [], lv: [], ln: ['phonetic'], lt: [],
  dsb: [], lb: [], mk: [], ms: [], ml: [], mt: [], mr: [], mn: [], ne: [], se: ['search'],
  nb: ['search'], nn: ['search'], or: [], om: [], ps: [], fa: [], fa_AF: [], pl: [], pt: [], pa: [],
  ro: [], ru: [], sr: [], sr_Latn: ['search'], si: ['dictionary'], sk: ['search'], sl: [],
  es: ['search', 'traditional'], sw: [], sv: ['search'], ta: [], te: [], th: [], bo: [], to: [],
  tr: ['search'], uk: [], hsb: [], ur: [], ug: [], vi: ['traditional'], wae: [], cy: [],
  yi: ['search'], yo: [], zu: [],
};

const ID = /^([A-Za-z]+(?:_[A-Za-z0-9]+)*)(?:@collation=([a-z0-9]+))?$/;

/** Whether mongod accepts this locale ID exactly as written. */
export function isKnownLocale(locale: string): boolean {
  const m = ID.exec(locale);
  if (!m) return false;
  const variants = Object.hasOwn(LOCALES, m[1]!) ? LOCALES[m[1]!]! : undefined;
  return variants !== undefined && (m[2] === undefined || variants.includes(m[2]));
}

/** The ID mongod would suggest ("Did you mean"): ICU canonicalises `-` to `_` and the case of each part. */
function suggestion(locale: string): string | undefined {
  const [base = '', keyword] = locale.split('@');
  const parts = base.split(/[-_]/);
  const canonical = parts
    .map((p, i) => (i === 0 ? p.toLowerCase() : p.length === 4 ? p[0]!.toUpperCase() + p.slice(1).toLowerCase() : p.toUpperCase()))
    .join('_');
  const candidate = keyword === undefined ? canonical : `${canonical}@${keyword.toLowerCase()}`;
  return candidate !== locale && isKnownLocale(candidate) ? candidate : undefined;
}

/**
 * Checks a collation document as mongod's collation parser does, before any
 * work: `{locale: "simple"}` alone, or a known ICU locale ID.
 */
export function validateCollation(collation: unknown): asserts collation is Collation {
  if (!isPlainObject(collation)) throw mongoError('TypeMismatch', 'collation must be an object');
  const locale = collation.locale;
  if (locale === undefined) throw mongoError('Location40414', "BSON field 'locale' is missing but a required field");
  if (typeof locale !== 'string') {
    throw mongoError('TypeMismatch', `BSON field 'locale' is the wrong type '${typeof locale}', expected type 'string'`);
  }
  if (locale === 'simple') {
    if (Object.keys(collation).length > 1) {
      throw mongoError('FailedToParse', `If locale=simple, no other fields should be present in: ${formatValue(collation)}`);
    }
    return;
  }
  if (locale === '') throw mongoError('BadValue', `Field 'locale' cannot be the empty string in: ${formatValue(collation)}`);
  if (!isKnownLocale(locale)) {
    const hint = suggestion(locale);
    throw mongoError('BadValue', `Field 'locale' is invalid in: ${formatValue(collation)}${hint ? `. Did you mean '${hint}'?` : ''}`);
  }
  checkCombinations(collation as Collation);
}

/** mongod's validateCollationSpec: options that cannot take effect at the given strength. */
function checkCombinations(collation: Collation): void {
  const strength = typeof collation.strength === 'number' ? collation.strength : 3;
  if (collation.backwards === true && strength === 1) {
    throw mongoError('BadValue', `'backwards' is invalid with 'strength' of 1 in: ${formatValue(collation)}`);
  }
  const caseFirst = collation.caseFirst ?? 'off';
  if (caseFirst !== 'off' && collation.caseLevel !== true && strength < 3) {
    throw mongoError('BadValue', `'caseFirst' is invalid unless 'caseLevel' is on or 'strength' is greater than 2 in: ${formatValue(collation)}`);
  }
}
