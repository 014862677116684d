import { setFlagsFromString } from 'node:v8';
import { mongoError } from '../errors.js';
import { bsonType } from './values.js';

/** BSON regular expressions ({pattern, options}) turned into cached JS RegExps. */

/**
 * Patterns come from clients, and V8's backtracking engine runs one like
 * `^(a+)+$` for minutes on the single thread every connection shares. This
 * flag makes V8 switch to its linear-time engine once a match backtracks too
 * much (same results; patterns with backreferences or lookaround cannot
 * switch). It applies to regexps compiled from now on, process-wide.
 */
setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');

/**
 * Backreferences and lookaround keep a pattern on the backtracking engine,
 * so those patterns get a backtrack budget instead: past it V8 gives up, as
 * mongod's PCRE gives up past its match limit (a query `$regex` then does not
 * match; the aggregation operators fail with 51156). The budget needs V8's
 * `%NewRegExpWithBacktrackLimit` (natives syntax; `%Name(` is not valid
 * JavaScript otherwise, so enabling it changes no other code). Without it,
 * patterns compile as plain RegExps.
 */
const BACKTRACK_LIMIT = 1_000_000;
const NEEDS_BUDGET = /\\[1-9]|\\k<|\(\?<?[=!]/;
const limitedRegExp = makeLimitedRegExpFactory();

function makeLimitedRegExpFactory(): ((source: string, flags: string, limit: number) => RegExp) | undefined {
  try {
    setFlagsFromString('--allow-natives-syntax');
    const factory = new Function('p', 'f', 'l', 'return %NewRegExpWithBacktrackLimit(p, f, l)') as (p: string, f: string, l: number) => RegExp;
    if (!(factory('a', '', 10) instanceof RegExp)) return undefined;
    return factory;
  } catch {
    return undefined;
  }
}

/**
 * V8 answers "no match" both when a budgeted pattern does not match and when
 * it ran out of budget. A probe tells them apart: the pattern or, failing it
 * everywhere, an empty match at the end of the input, so the probe finds
 * something unless the budget ran out. V8 counts the budget over a whole
 * search while PCRE counts it per start position, so a probe's budget grows
 * with the input (tiers of doubling limits: a long string is not "out of
 * budget" merely for being long).
 */
interface BudgetedPattern {
  source: string;
  flags: string;
  /** The pattern alone, global: decides an empty match at the very end. */
  atEnd?: RegExp;
  probes: RegExp[];
}
const budgeted = new WeakMap<RegExp, BudgetedPattern>();
/** Backtracks a search may spend per character of its input, beyond the base budget. */
const BUDGET_PER_CHAR = 4;
/**
 * V8 aborts the process unless the limit is a small integer, hence shifts
 * (int32) rather than products; 1M << 6 already covers a 16 MiB string.
 */
const MAX_TIER = 8;

/** What `searchFrom` answers when the pattern ran out of its backtrack budget. */
export const BUDGET_EXCEEDED = Symbol('regex backtrack budget exceeded');

/**
 * The first match at or after `from` (UTF-16 offset), null when there is
 * none, or BUDGET_EXCEEDED when a budgeted pattern gave up before knowing.
 * The query's `$regex` and the aggregation operators both search through it;
 * a search from past 0 needs a global RegExp (toRegExp's `global`).
 */
export function searchFrom(re: RegExp, input: string, from: number): RegExpExecArray | null | typeof BUDGET_EXCEEDED {
  const pattern = budgeted.get(re);
  if (!pattern || !limitedRegExp) {
    re.lastIndex = from;
    return re.exec(input);
  }
  let tier = 0;
  while (tier < MAX_TIER && BACKTRACK_LIMIT << tier < BUDGET_PER_CHAR * (input.length - from)) tier++;
  const probe = (pattern.probes[tier] ??= limitedRegExp(`(?:${pattern.source})|(?![\\s\\S])`, pattern.flags, BACKTRACK_LIMIT << tier));
  probe.lastIndex = from;
  const m = probe.exec(input);
  if (m === null) return BUDGET_EXCEEDED;
  if (m.index < input.length || m[0] !== '') return m;
  // An empty match at the end: the pattern's own, or the probe's fallback.
  const atEnd = (pattern.atEnd ??= limitedRegExp(pattern.source, pattern.flags, BACKTRACK_LIMIT));
  atEnd.lastIndex = input.length;
  return atEnd.exec(input);
}

/** mongod's (PCRE2's) longest accepted pattern. */
const MAX_PATTERN_LENGTH = 16384;

const cache = new Map<string, RegExp>();
const VALID_OPTIONS = /^[imsxu]*$/;

/** Removes unescaped whitespace and `#` comments (PCRE extended mode, option `x`). */
function stripExtended(pattern: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      out += c + (pattern[i + 1] ?? '');
      i++;
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === ']') inClass = false;
    if (!inClass && /\s/.test(c)) continue;
    if (!inClass && c === '#') {
      while (i < pattern.length && pattern[i] !== '\n') i++;
      continue;
    }
    out += c;
  }
  return out;
}

/** `global` gives a RegExp that searches from its lastIndex (the aggregation operators' repeated search). */
export function toRegExp(pattern: string, options = '', global = false): RegExp {
  const key = `${global ? 'g' : ''}${options}/${pattern}`;
  let re = cache.get(key);
  if (re) return re;
  if (!VALID_OPTIONS.test(options)) {
    const bad = [...options].find((c) => !'imsxu'.includes(c));
    throw mongoError('Location51108', `invalid flag in regex options: ${bad}`);
  }
  if (pattern.length > MAX_PATTERN_LENGTH) throw mongoError('Location51091', 'Regular expression is invalid: pattern string is too long');
  const source = options.includes('x') ? stripExtended(pattern) : pattern;
  const flags = [...new Set(options.replace(/[xu]/g, ''))].join('') + (global ? 'g' : '');
  try {
    if (limitedRegExp && NEEDS_BUDGET.test(source)) {
      re = limitedRegExp(source, flags, BACKTRACK_LIMIT);
      budgeted.set(re, { source, flags: flags.includes('g') ? flags : `${flags}g`, probes: [] });
    } else {
      re = new RegExp(source, flags);
    }
  } catch (err) {
    throw mongoError('Location51091', `Regular expression is invalid: ${(err as Error).message}`);
  }
  if (cache.size > 1000) cache.clear();
  cache.set(key, re);
  return re;
}

export function isRegexValue(value: unknown): boolean {
  return value instanceof RegExp || bsonType(value) === 'BSONRegExp';
}

/** A JS RegExp for a BSONRegExp or RegExp value. */
export function regexOf(value: unknown): RegExp {
  // A JS RegExp (a decoded BSON regex can be one) is rebuilt, so it gets the backtrack budget too.
  if (value instanceof RegExp) return toRegExp(value.source, value.flags.replace(/[^ims]/g, ''));
  const r = value as { pattern: string; options: string };
  return toRegExp(r.pattern, r.options);
}

/** Whether a value is a string (or symbol) matched by the regex. */
export function regexMatches(re: RegExp, value: unknown): boolean {
  let s: string;
  if (typeof value === 'string') s = value;
  else if (bsonType(value) === 'BSONSymbol') s = String((value as { value: unknown }).value);
  else return false;
  re.lastIndex = 0;
  if (re.test(s)) return true;
  // Past its budget a query's pattern does not match, as mongod's $regex answers; but a long
  // string can use up the base budget merely by its length: that one is searched again.
  if (!budgeted.has(re) || BUDGET_PER_CHAR * s.length <= BACKTRACK_LIMIT) return false;
  const m = searchFrom(re, s, 0);
  return m !== null && m !== BUDGET_EXCEEDED;
}
