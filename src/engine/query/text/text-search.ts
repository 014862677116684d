import { mongoError } from '../../errors.js';
import { isPlainObject } from '../values.js';
import type { Document } from '../types.js';
import { WILDCARD } from './text-index-spec.js';
import { findTextLanguage, type TextLanguage } from './text-languages.js';
import type { TextQuery } from './text-query.js';
import { foldForPhrase, tokenize } from './text-tokenizer.js';

/**
 * A text index evaluated by reading the documents (the engine keeps no
 * inverted index): which strings a text index covers, the score it gives each
 * term of a document, and whether a document matches a `$text` query.
 *
 * The score is mongod's: for each indexed string, every term (stemmed, stop
 * words left out) scores weight * freq * coeff * boost, where freq sums 1,
 * 1/2, 1/4, ... over its occurrences, coeff = 0.5 + 0.5 * occurrences / terms
 * in the string, and boost is 1.1 when the whole string is just that term
 * (1 otherwise); a term's scores add up over strings and fields. A document's
 * textScore is the sum of its scores for the query's terms.
 */

export interface TextIndexInfo {
  /** Weighted field paths, byte-sorted, without `$**`; and their UTF-8 bytes, for lowerBound. */
  paths: string[];
  pathBytes: Buffer[];
  weights: Map<string, number>;
  wildcard: boolean;
  defaultLanguage: TextLanguage;
  languageOverride: string;
  /** Key fields before the text part: a query must give each an equality. */
  prefix: string[];
}

export function textIndexInfo(spec: { key: Record<string, unknown>; [option: string]: unknown }): TextIndexInfo {
  const weights = new Map<string, number>();
  let wildcard = false;
  for (const [field, weight] of Object.entries((spec.weights ?? {}) as Document)) {
    if (field === WILDCARD) wildcard = true;
    else weights.set(field, Number(weight));
  }
  const keys = Object.keys(spec.key);
  const paths = [...weights.keys()].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  return {
    paths,
    pathBytes: paths.map((p) => Buffer.from(p)),
    weights,
    wildcard,
    defaultLanguage: findTextLanguage(String(spec.default_language ?? 'english')) ?? findTextLanguage('english')!,
    languageOverride: String(spec.language_override ?? 'language'),
    prefix: keys.slice(0, Math.max(0, keys.indexOf('_fts'))),
  };
}

interface IndexedString {
  text: string;
  language: TextLanguage;
  weight: number;
}

/** The first weighted path not below `probe` in byte order (the paths are sorted). */
function lowerBound(info: TextIndexInfo, probe: string): string | undefined {
  const target = Buffer.from(probe);
  const i = info.pathBytes.findIndex((p) => Buffer.compare(p, target) >= 0);
  return i < 0 ? undefined : info.paths[i];
}

/** A sub-document may name its own language in the override field; mongod refuses a bad one on insert. */
function languageOf(obj: Document, inherited: TextLanguage, info: TextIndexInfo): TextLanguage {
  if (!Object.hasOwn(obj, info.languageOverride)) return inherited;
  const value = obj[info.languageOverride];
  if (typeof value !== 'string') {
    throw mongoError('Location17261', 'found language override field in document with non-string type');
  }
  const language = findTextLanguage(value);
  if (!language) throw mongoError('Location17262', `language override unsupported: ${value}`);
  return language;
}

/**
 * The strings the index covers, each with its language and weight. Arrays
 * are transparent (an array's elements have the array's path), but an array
 * directly inside an array is not looked into unless the index is `$**`.
 */
export function* indexedStrings(
  info: TextIndexInfo,
  node: Document | unknown[],
  inherited: TextLanguage,
  parentPath = '',
): Generator<IndexedString> {
  const inArray = Array.isArray(node);
  const language = inArray ? inherited : languageOf(node, inherited, info);
  const entries: Array<[string, unknown]> = inArray ? node.map((v, i) => [String(i), v]) : Object.entries(node);
  for (const [field, value] of entries) {
    if (info.wildcard && field === info.languageOverride) continue;
    const path = parentPath === '' ? field : inArray ? parentPath : `${parentPath}.${field}`;
    const isObject = isPlainObject(value);
    const candidate = lowerBound(info, isObject ? `${path}.` : path);
    if (!info.wildcard && (candidate === undefined || (candidate !== path && !candidate.startsWith(`${path}.`)))) continue;
    const exact = candidate === path;
    // As mongod does, a `$**` index weighs a field by the next weighted path, exact or not.
    const weight = candidate === undefined ? 1 : info.weights.get(candidate)!;
    if (typeof value === 'string') {
      if (exact || info.wildcard) yield { text: value, language, weight };
    } else if (isObject) {
      if (!exact || info.wildcard) yield* indexedStrings(info, value, language, path);
    } else if (Array.isArray(value)) {
      if (!inArray || info.wildcard) yield* indexedStrings(info, value, language, path);
    }
  }
}

/** Throws mongod's 17261/17262 when a document names a language the index cannot use. */
export function checkTextLanguages(info: TextIndexInfo, doc: Document): void {
  for (const _ of indexedStrings(info, doc, info.defaultLanguage));
}

const utf8Length = (s: string): number => Buffer.byteLength(s);

/** Each term's score in one document. */
export function termScores(info: TextIndexInfo, doc: Document): Map<string, number> {
  const scores = new Map<string, number>();
  for (const { text, language, weight } of indexedStrings(info, doc, info.defaultLanguage)) {
    const seen = new Map<string, { count: number; freq: number; step: number }>();
    let total = 0;
    for (const term of tokenize(text, language, { stopWords: true })) {
      const data = seen.get(term) ?? { count: 0, freq: 0, step: 0 };
      data.step = data.step === 0 ? 1 : data.step * 2;
      data.count += 1;
      data.freq += 1 / data.step;
      seen.set(term, data);
      total++;
    }
    for (const [term, data] of seen) {
      const coeff = (0.5 * data.count) / total + 0.5;
      const whole = utf8Length(text) === utf8Length(term) && text.toLowerCase() === term.toLowerCase();
      const boost = whole ? 1.1 : 1;
      scores.set(term, (scores.get(term) ?? 0) + weight * data.freq * coeff * boost);
    }
  }
  return scores;
}

function anyTerm(info: TextIndexInfo, doc: Document, query: TextQuery, terms: Set<string>): boolean {
  if (terms.size === 0) return false;
  const options = { stopWords: false, caseSensitive: query.caseSensitive, diacriticSensitive: query.diacriticSensitive };
  for (const { text, language } of indexedStrings(info, doc, info.defaultLanguage)) {
    for (const token of tokenize(text, language, options)) if (terms.has(token)) return true;
  }
  return false;
}

function hasPhrase(info: TextIndexInfo, doc: Document, query: TextQuery, phrase: string): boolean {
  const fold = (s: string, language: TextLanguage) => foldForPhrase(s, language, query.caseSensitive, query.diacriticSensitive);
  for (const { text, language } of indexedStrings(info, doc, info.defaultLanguage)) {
    if (fold(text, language).includes(fold(phrase, language))) return true;
  }
  return false;
}

/**
 * The textScore of a document for the query, or undefined when it does not
 * match: it must hold a query term (with no terms, as when every word is a
 * stop word or negated, nothing matches), no negated term, every phrase and
 * no negated phrase.
 */
export function compileTextSearch(info: TextIndexInfo, query: TextQuery): (doc: Document) => number | undefined {
  const sensitive = query.caseSensitive || query.diacriticSensitive;
  return (doc) => {
    if (query.scoringTerms.length === 0) return undefined;
    const scores = termScores(info, doc);
    let score = 0;
    let found = false;
    for (const term of query.scoringTerms) {
      const s = scores.get(term);
      if (s === undefined) continue;
      score += s;
      found = true;
    }
    if (!found) return undefined;
    if (sensitive && !anyTerm(info, doc, query, query.positiveTerms)) return undefined;
    if (anyTerm(info, doc, query, query.negatedTerms)) return undefined;
    if (!query.phrases.every((p) => hasPhrase(info, doc, query, p))) return undefined;
    if (query.negatedPhrases.some((p) => hasPhrase(info, doc, query, p))) return undefined;
    return score;
  };
}
