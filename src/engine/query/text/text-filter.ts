import { mongoError } from '../../errors.js';
import type { IndexSpec } from '../../model/index.js';
import { isOperatorObject } from '../filter/compile-filter.js';
import { planQuery } from '../planner.js';
import { isPlainObject } from '../values.js';
import type { Collation, Document } from '../types.js';
import { isTextIndexSpec } from './text-index-spec.js';
import { setTextScore } from './text-meta.js';
import { buildTextQuery, extractText, parseTextOperand, textUnderOr } from './text-query.js';
import { compileTextSearch, textIndexInfo } from './text-search.js';

/**
 * A read's `$text`, answered through the collection's text index: the rest
 * of the filter to compile as usual, and the test that matches a document
 * against the text search and records its textScore (text-meta.ts).
 */

export interface TextFilter {
  rest: Document;
  /**
   * Undefined when the filter has no `$text`. Also records the document's
   * textScore. Unless `underOr`, the rest must be matched too.
   */
  match?: (doc: Document) => boolean;
  /** The `$text` is a `$or` clause left in `rest`: compile `rest` with `match` as its `$text` (FilterOptions.text). */
  underOr?: boolean;
  /** What explain shows of the search (mongod's TEXT_MATCH stage); set with `match`. */
  explain?: TextExplain;
}

export interface TextExplain {
  index: IndexLike;
  /** The equality values on the compound index's prefix fields. */
  indexPrefix: Document;
  parsedTextQuery: { terms: string[]; negatedTerms: string[]; phrases: string[]; negatedPhrases: string[] };
}

type IndexLike = { key: Record<string, unknown>; [option: string]: unknown };

/** Top-level conditions (and those of a top-level $and), by field. */
function topLevelConditions(filter: Document): Map<string, unknown[]> {
  const out = new Map<string, unknown[]>();
  const walk = (node: Document) => {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$and' && Array.isArray(value)) for (const clause of value) if (isPlainObject(clause)) walk(clause);
      if (key.startsWith('$')) continue;
      out.set(key, [...(out.get(key) ?? []), value]);
    }
  };
  walk(filter);
  return out;
}

const isEquality = (condition: unknown): boolean =>
  !isOperatorObject(condition) || (Object.keys(condition).length === 1 && '$eq' in condition);

/** mongod cannot use a compound text index without an equality on each field before the text part. */
function checkPrefix(prefix: string[], rest: Document): void {
  const conditions = topLevelConditions(rest);
  if (prefix.every((field) => conditions.get(field)?.some(isEquality))) return;
  throw mongoError(
    'NoQueryExecutionPlans',
    'error processing query: planner returned error :: caused by :: failed to use text index to satisfy $text query ' +
      '(if text index is compound, are equality predicates given for all prefix fields?)',
  );
}

/**
 * mongod answers a `$text` in a `$or` only with an indexed plan for every
 * other clause (an OR of index scans beside the text index): a clause the
 * engine's planner can narrow by an index, or a `$or` of such clauses. The
 * engine's planner is narrower than mongod's (no regex, null or sparse
 * index bounds), so a clause it cannot plan is refused where mongod might not.
 */
function usesIndex(clause: unknown, indexes: readonly IndexLike[], collation: Collation | undefined): boolean {
  if (!isPlainObject(clause)) return false;
  if (planQuery(clause, indexes as IndexSpec[], collation)) return true;
  const or = clause.$or;
  return Array.isArray(or) && or.length > 0 && or.every((inner) => usesIndex(inner, indexes, collation));
}

/**
 * Splits off and compiles the filter's `$text`. `indexes` is undefined when
 * the collection does not exist. Refusals as mongod: no text index is
 * IndexNotFound (27); see extractText for misplaced `$text`.
 */
export function planTextFilter(filter: Document, indexes: readonly IndexLike[] | undefined, ns: string, collation?: Collation): TextFilter {
  const { operand, rest, or } = extractText(filter);
  if (operand === undefined) return { rest: filter };
  const parsed = parseTextOperand(operand);
  if (!indexes) throw mongoError('IndexNotFound', `text index required for $text query (no such collection '${ns}')`);
  const textIndexes = indexes.filter(isTextIndexSpec);
  if (textIndexes.length === 0) throw mongoError('IndexNotFound', 'text index required for $text query');
  if (or && !or.others.every((clause) => usesIndex(clause, indexes, collation))) throw textUnderOr();
  const info = textIndexInfo(textIndexes[0]!);
  // Under a $or, the compound text index's prefix equalities belong in the $text's own clause.
  const beside = or ? withoutText(or.textClause) : rest;
  checkPrefix(info.prefix, beside);
  const query = buildTextQuery(parsed, info.defaultLanguage);
  const search = compileTextSearch(info, query);
  const prefixValues = topLevelConditions(beside);
  const equalTo = (c: unknown) => (isOperatorObject(c) ? c.$eq : c);
  const indexPrefix = Object.fromEntries(info.prefix.map((field) => [field, equalTo(prefixValues.get(field)?.find(isEquality))]));
  return {
    rest,
    ...(or ? { underOr: true } : {}),
    explain: {
      index: textIndexes[0]!,
      indexPrefix,
      parsedTextQuery: {
        terms: query.scoringTerms,
        negatedTerms: [...query.negatedTerms].sort(),
        phrases: query.phrases,
        negatedPhrases: query.negatedPhrases,
      },
    },
    match: (doc) => {
      const score = search(doc);
      if (score === undefined) return false;
      setTextScore(doc, score);
      return true;
    },
  };
}

function withoutText(clause: Document): Document {
  const { $text: _text, ...others } = clause;
  return others;
}
