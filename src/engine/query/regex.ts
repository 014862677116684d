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

export function toRegExp(pattern: string, options = ''): RegExp {
  const key = `${options}/${pattern}`;
  let re = cache.get(key);
  if (re) return re;
  if (!VALID_OPTIONS.test(options)) {
    const bad = [...options].find((c) => !'imsxu'.includes(c));
    throw mongoError('Location51108', `invalid flag in regex options: ${bad}`);
  }
  const source = options.includes('x') ? stripExtended(pattern) : pattern;
  const flags = [...new Set(options.replace(/[xu]/g, ''))].join('');
  try {
    re = new RegExp(source, flags);
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
  if (value instanceof RegExp) return value;
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
  return re.test(s);
}
