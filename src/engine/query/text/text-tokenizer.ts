import type { TextLanguage } from './text-languages.js';

/**
 * Words as a version 3 text index sees them. A word runs between delimiters:
 * the Unicode White_Space, Dash, Hyphen, Quotation_Mark,
 * Terminal_Punctuation, Pattern_Syntax and Sentence_Terminal characters (so
 * every ASCII punctuation mark but `_`), except that in English the
 * apostrophe stays inside a word ("don't"). Each word is lower-cased, dropped
 * when it is a stop word, stemmed, and stripped of diacritics; a
 * case-sensitive or diacritic-sensitive `$text` query keeps those instead.
 */

/** The Hyphen property (not in JavaScript's property escapes) adds these to Dash. */
const HYPHENS = '\\u00AD\\u058A\\u1806\\u2010\\u2011\\u2E17\\u30FB\\uFE63\\uFF0D\\uFF65';
const DELIMITERS =
  `\\p{White_Space}\\p{Dash}\\p{Quotation_Mark}\\p{Terminal_Punctuation}\\p{Pattern_Syntax}\\p{Sentence_Terminal}${HYPHENS}`;
const SPLIT_ANY = new RegExp(`[${DELIMITERS}]+`, 'v');
const SPLIT_ENGLISH = new RegExp(`[[${DELIMITERS}]--[']]+`, 'v');

export interface TokenOptions {
  /** Drop stop words (documents and query terms do; positive/negative term checks need not). */
  stopWords: boolean;
  caseSensitive?: boolean;
  diacriticSensitive?: boolean;
}

/** Lower case as the index folds it (Turkish folds dotted and dotless i its own way). */
export function foldCase(text: string, language: TextLanguage): string {
  return language.name === 'turkish' ? text.toLocaleLowerCase('tr') : text.toLowerCase();
}

/** Removes diacritics: decomposed, the marks dropped, recomposed. */
export function stripDiacritics(text: string): string {
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(text)) return text;
  return text.normalize('NFD').replace(/\p{Diacritic}/gu, '').normalize('NFC');
}

/** The raw words of a string, split at delimiters. */
export function splitWords(text: string, language: TextLanguage): string[] {
  return text.split(language.name === 'english' ? SPLIT_ENGLISH : SPLIT_ANY).filter((w) => w !== '');
}

/**
 * Stems keeping the word's own letter case where the stem keeps the letters
 * (the stemmer works on lower case): "Running" -> "Run", "Happy" -> "Happi".
 */
function stemKeepingCase(word: string, lower: string, language: TextLanguage): string {
  const stemmed = language.stem(lower);
  if (word.length !== lower.length) return stemmed;
  let same = 0;
  while (same < stemmed.length && stemmed[same] === lower[same]) same++;
  return word.slice(0, same) + stemmed.slice(same);
}

export function tokenize(text: string, language: TextLanguage, options: TokenOptions): string[] {
  const out: string[] = [];
  for (const word of splitWords(text, language)) {
    // Stop words are listed lower case, with their diacritics.
    const lower = foldCase(word, language);
    if (options.stopWords && language.isStopWord(lower)) continue;
    // The stemmer is diacritic sensitive: stem first, strip after.
    const stemmed = options.caseSensitive ? stemKeepingCase(word, lower, language) : language.stem(lower);
    out.push(options.diacriticSensitive ? stemmed : stripDiacritics(stemmed));
  }
  return out;
}

/** How a phrase and a text are compared: folded as the query asks. */
export function foldForPhrase(text: string, language: TextLanguage, caseSensitive: boolean, diacriticSensitive: boolean): string {
  const cased = caseSensitive ? text : foldCase(text, language);
  return diacriticSensitive ? cased : stripDiacritics(cased);
}
