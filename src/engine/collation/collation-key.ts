import { collatorFor, isSimpleCollation, type Collation, type SharedCollator } from './collator.js';

/**
 * The collation key of a string: two strings are equal under a collation
 * exactly when their keys are. It stands in for ICU's sort key (which mongod
 * stores in collated indexes; JavaScript's Intl does not expose it):
 * - characters the collation ignores completely (soft hyphen, zero-width
 *   space, tatweel, Hebrew cantillation marks, controls...; every one that
 *   this runtime's ICU ignores, see ignorableCharacters) are dropped;
 * - strength 1 and 2 also fold compatibility forms (full-width letters,
 *   ligatures) and letter case, unless caseLevel asks for case;
 *   strength 1 also drops accents;
 * - strength 3 and 4 keep case and compatibility forms, and canonically
 *   equivalent spellings (é and e + U+0301) share a key;
 * - strength 5 (identical) keeps every character, as ICU's identical level.
 * compareCollated derives equality from it, so index keys and queries agree.
 */
export function collationKey(text: string, collation?: Collation): string {
  if (isSimpleCollation(collation)) return text;
  return keyOf(text, foldFor(collation!));
}

/** ICU's order under a collation, with equality exactly that of collationKey. */
export function compareCollated(a: string, b: string, collation: Collation): number {
  if (a === b) return 0;
  const fold = foldFor(collation);
  // Printable ASCII holds nothing ICU ignores (without alternate=shifted) and no compatibility
  // form: ICU's equality is the key's there, so most comparisons skip building keys.
  if (!fold.shifted && isPlainAscii(a) && isPlainAscii(b)) return Math.sign(fold.shared.collator.compare(a, b));
  const ka = keyOf(a, fold);
  const kb = keyOf(b, fold);
  if (ka === kb) return 0;
  const order = fold.shared.collator.compare(a, b);
  // ICU calls them equal but the keys differ (a fold finer than ICU's): the keys decide, consistently.
  if (order === 0) return ka < kb ? -1 : 1;
  return order < 0 ? -1 : 1;
}

/**
 * The characters a collation ignores completely, as one `gu` pattern: found
 * by asking this runtime's ICU collator (the one comparisons use) once per
 * collation, so the key drops exactly what the comparison skips.
 */
export function ignorableCharacters(collation: Collation): RegExp {
  return foldFor(collation).ignorable;
}

interface Fold {
  shared: SharedCollator;
  ignorable: RegExp;
  strength: number;
  foldCase: boolean;
  numeric: boolean;
  shifted: boolean;
}

const folds = new Map<string, Fold>();
/** Per collation object, as collatorFor: a sort compares many strings under one collation. */
const foldsByObject = new WeakMap<Collation, Fold>();

function foldFor(collation: Collation): Fold {
  let fold = foldsByObject.get(collation);
  if (!fold) foldsByObject.set(collation, (fold = sharedFoldFor(collation)));
  return fold;
}

function sharedFoldFor(collation: Collation): Fold {
  const shared = collatorFor(collation);
  let fold = folds.get(shared.id);
  if (!fold) {
    const strength = typeof collation.strength === 'number' ? collation.strength : 3;
    fold = {
      shared,
      ignorable: scanIgnorables(shared.collator),
      strength,
      foldCase: strength <= 2 && collation.caseLevel !== true,
      numeric: collation.numericOrdering === true,
      shifted: collation.alternate === 'shifted',
    };
    folds.set(shared.id, fold);
  }
  return fold;
}

/** Printable ASCII (without alternate=shifted) needs no normalisation and holds nothing ignorable. */
function isPlainAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code > 0x7e) return false;
  }
  return true;
}

function keyOf(text: string, fold: Fold): string {
  let key: string;
  if (fold.strength >= 5) {
    key = text.normalize('NFD');
  } else if (isPlainAscii(text) && !fold.shifted) {
    key = fold.foldCase ? text.toLowerCase() : text;
  } else {
    key = text.normalize(fold.strength <= 2 ? 'NFKD' : 'NFD').replace(fold.ignorable, '');
    if (fold.foldCase) key = key.toLowerCase();
  }
  // numericOrdering compares digit runs by value: 007 is 7.
  return fold.numeric ? key.replace(/\d+/g, (digits) => digits.replace(/^0+(?=\d)/, '')) : key;
}

/**
 * Code point ranges that hold no ignorable character (CJK ideographs, Hangul
 * syllables, Tangut, private use, surrogates, unassigned planes), skipped so
 * the scan takes milliseconds, once per collation.
 */
const NEVER_IGNORABLE: ReadonlyArray<readonly [number, number]> = [
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xac00, 0xd7a3],
  [0xd800, 0xf8ff],
  [0x17000, 0x18aff],
  [0x20000, 0xdffff],
  [0xe1000, 0x10ffff],
];

function scanIgnorables(collator: Intl.Collator): RegExp {
  const ranges: string[] = [];
  let start = -1;
  const close = (end: number) => {
    if (start >= 0) ranges.push(start === end ? `\\u{${start.toString(16)}}` : `\\u{${start.toString(16)}}-\\u{${end.toString(16)}}`);
    start = -1;
  };
  let skip = 0;
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    const range = NEVER_IGNORABLE[skip];
    if (range && cp === range[0]) {
      close(cp - 1);
      cp = range[1];
      skip++;
      continue;
    }
    // Ignored between two letters: a contraction or a context cannot make it count.
    if (collator.compare(`a${String.fromCodePoint(cp)}b`, 'ab') === 0) {
      if (start < 0) start = cp;
    } else {
      close(cp - 1);
    }
  }
  close(0x10ffff);
  return new RegExp(ranges.length > 0 ? `[${ranges.join('')}]` : '(?!)', 'gu');
}
