import { mongoError } from '../../errors.js';
import { bsonTypeName } from '../type-names.js';
import { isPlainObject } from '../values.js';
import type { Document } from '../types.js';
import { findTextLanguage, type TextLanguage } from './text-languages.js';
import { tokenize } from './text-tokenizer.js';

/**
 * `$text: {$search, $language, $caseSensitive, $diacriticSensitive}`: its
 * place in a filter, its arguments, and its search string, read as mongod
 * reads it: words are OR-ed, `"an exact phrase"` must appear as written
 * (its words also count as search terms), a `-` right before a word or a
 * phrase (after white space) negates it, and "-foo-bar" negates both words.
 */

export interface TextOperand {
  search: string;
  language?: string;
  caseSensitive: boolean;
  diacriticSensitive: boolean;
}

export interface TextQuery {
  language: TextLanguage;
  caseSensitive: boolean;
  diacriticSensitive: boolean;
  /** Folded terms (case and diacritic insensitive): what finds documents and scores them, sorted. */
  scoringTerms: string[];
  /** The terms as the query's sensitivity compares them. */
  positiveTerms: Set<string>;
  negatedTerms: Set<string>;
  phrases: string[];
  negatedPhrases: string[];
}

const OPTIONAL: Record<string, 'string' | 'bool'> = { $language: 'string', $caseSensitive: 'bool', $diacriticSensitive: 'bool' };

function wrongType(field: string, expected: string, value: unknown): Error {
  return mongoError('TypeMismatch', `"${field}" had the wrong type. Expected ${expected}, found ${bsonTypeName(value)}`);
}

/** Validates the operand (mongod: BadValue, NoSuchKey, TypeMismatch). */
export function parseTextOperand(operand: unknown): TextOperand {
  if (!isPlainObject(operand)) throw mongoError('BadValue', '$text expects an object');
  if (!('$search' in operand)) throw mongoError('NoSuchKey', 'Missing expected field "$search"');
  if (typeof operand.$search !== 'string') throw wrongType('$search', 'string', operand.$search);
  let known = 1;
  for (const [field, type] of Object.entries(OPTIONAL)) {
    if (!(field in operand)) continue;
    const value = operand[field];
    if (type === 'string' ? typeof value !== 'string' : typeof value !== 'boolean') {
      throw wrongType(field, type === 'string' ? 'string' : 'bool', value);
    }
    known++;
  }
  if (Object.keys(operand).length !== known) throw mongoError('BadValue', 'extra fields in $text');
  return {
    search: operand.$search,
    language: operand.$language as string | undefined,
    caseSensitive: operand.$caseSensitive === true,
    diacriticSensitive: operand.$diacriticSensitive === true,
  };
}

// ------------------------------------------------------------ the search string

const isSpace = (c: string): boolean => c === ' ' || c === '\n' || c === '\v' || c === '\f' || c === '\r';

interface SearchToken {
  kind: 'text' | '-' | '"';
  text: string;
  offset: number;
  /** White space (or the start) came right before it. */
  afterSpace: boolean;
}

/** Splits the search string into runs of text and the two delimiters, `-` and `"`. */
function searchTokens(search: string): SearchToken[] {
  const tokens: SearchToken[] = [];
  let i = 0;
  let afterSpace = true;
  while (i < search.length) {
    if (isSpace(search[i]!)) {
      afterSpace = true;
      i++;
      continue;
    }
    const start = i;
    const c = search[i]!;
    if (c === '-' || c === '"') {
      i++;
      tokens.push({ kind: c, text: c, offset: start, afterSpace });
    } else {
      while (i < search.length && !isSpace(search[i]!) && search[i] !== '-' && search[i] !== '"') i++;
      tokens.push({ kind: 'text', text: search.slice(start, i), offset: start, afterSpace });
    }
    afterSpace = false;
  }
  return tokens;
}

interface SearchParts {
  positive: string;
  negative: string;
  phrases: string[];
  negatedPhrases: string[];
}

function splitSearch(search: string): SearchParts {
  const parts: SearchParts = { positive: '', negative: '', phrases: [], negatedPhrases: [] };
  let negated = false;
  let inPhrase = false;
  let phraseStart = 0;
  for (const token of searchTokens(search)) {
    if (token.kind === 'text') {
      // Words of a negated phrase are not terms at all.
      if (inPhrase && negated) continue;
      // A negation lasts until the next white space.
      if (negated && token.afterSpace) negated = false;
      if (negated) parts.negative += `${token.text} `;
      else parts.positive += `${token.text} `;
    } else if (token.kind === '-') {
      // Words inside a phrase cannot be negated.
      if (!inPhrase && token.afterSpace) negated = true;
    } else if (inPhrase) {
      const phrase = search.slice(phraseStart + 1, token.offset);
      (negated ? parts.negatedPhrases : parts.phrases).push(phrase);
      inPhrase = false;
    } else {
      inPhrase = true;
      // `- "phrase"`: the minus must touch the quote.
      if (negated && token.afterSpace) negated = false;
      phraseStart = token.offset;
    }
  }
  return parts;
}

/** The query for one `$text`, in the given language (the index's default when `$language` is absent). */
export function buildTextQuery(operand: TextOperand, defaultLanguage: TextLanguage): TextQuery {
  const language = operand.language === undefined || operand.language === '' ? defaultLanguage : findTextLanguage(operand.language);
  if (!language) throw mongoError('BadValue', `unsupported language: "${operand.language}" for text index version 3`);
  const parts = splitSearch(operand.search);
  const sensitive = { stopWords: true, caseSensitive: operand.caseSensitive, diacriticSensitive: operand.diacriticSensitive };
  return {
    language,
    caseSensitive: operand.caseSensitive,
    diacriticSensitive: operand.diacriticSensitive,
    scoringTerms: [...new Set(tokenize(parts.positive, language, { stopWords: true }))].sort(),
    positiveTerms: new Set(tokenize(parts.positive, language, sensitive)),
    negatedTerms: new Set(tokenize(parts.negative, language, sensitive)),
    phrases: parts.phrases,
    negatedPhrases: parts.negatedPhrases,
  };
}

// ------------------------------------------------------------ the place of $text in a filter

/** Whether a filter (or any of its logical branches) holds a `$text`. */
export function containsText(filter: unknown): boolean {
  if (!isPlainObject(filter)) return false;
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$text') return true;
    if ((key === '$and' || key === '$or' || key === '$nor') && Array.isArray(value) && value.some(containsText)) return true;
  }
  return false;
}

/**
 * Splits the filter's `$text` (at the top level or inside a top-level
 * `$and`) from the rest. A `$text` at the top of a `$or` clause stays in
 * place (the filter then evaluates it there), and `or` gives that `$or`'s
 * clauses, which mongod answers only when every other clause can use an
 * index (text-filter.ts); a clause that is only a `$or` is flattened into
 * it first. mongod's refusals: two `$text` (BadValue), one under `$nor`
 * (BadValue) or deeper in a `$or` clause (NoQueryExecutionPlans).
 */
export function extractText(filter: Document): { operand?: unknown; rest: Document; or?: { textClause: Document; others: unknown[] } } {
  const found: unknown[] = [];
  let or: { textClause: Document; others: unknown[] } | undefined;
  const strip = (node: Document): Document => {
    const out: Document = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === '$text') {
        found.push(value);
        continue;
      }
      if (key === '$and' && Array.isArray(value)) {
        out.$and = value.map((clause) => (isPlainObject(clause) ? strip(clause) : clause));
        continue;
      }
      if (key === '$nor' && Array.isArray(value) && value.some(containsText)) {
        throw mongoError('BadValue', 'text expression not allowed in nor');
      }
      if (key === '$or' && Array.isArray(value) && value.some(containsText)) {
        const clauses = flattenOr(value);
        const textClause = clauses.find(containsText) as Document;
        const { $text: operand, ...besideText } = textClause;
        if (operand === undefined || containsText(besideText)) throw textUnderOr();
        for (const clause of clauses) if (clause !== textClause && containsText(clause)) found.push(clause);
        found.push(operand);
        or = { textClause, others: clauses.filter((clause) => clause !== textClause) };
      }
      out[key] = value;
    }
    return out;
  };
  const rest = strip(filter);
  if (found.length > 1) throw mongoError('BadValue', 'Too many text expressions');
  if (found.length === 0) return { rest };
  return or ? { operand: found[0], rest, or } : { operand: found[0], rest };
}

/** A `$or` clause that is only a `$or` counts as that `$or`'s clauses, as mongod's optimizer flattens them. */
function flattenOr(clauses: unknown[]): unknown[] {
  return clauses.flatMap((clause) => {
    if (!isPlainObject(clause)) return [clause];
    const keys = Object.keys(clause);
    return keys.length === 1 && keys[0] === '$or' && Array.isArray(clause.$or) ? flattenOr(clause.$or) : [clause];
  });
}

export function textUnderOr(): Error {
  return mongoError(
    'NoQueryExecutionPlans',
    'error processing query: planner returned error :: caused by :: Failed to produce a solution for TEXT under OR - other non-TEXT clauses under OR have to be indexed as well.',
  );
}

/** Whether a projection, sort or pipeline stage asks for `{$meta: "textScore"}` anywhere. */
export function usesTextScore(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(usesTextScore);
  if (!isPlainObject(value)) return false;
  if (value.$meta === 'textScore') return true;
  return Object.values(value).some(usesTextScore);
}

export function textScoreUnavailable(): Error {
  return mongoError('Location40218', 'query requires text score metadata, but it is not available');
}
