import { evalExpr } from 'mingo/core';
import { isMongoCommandError, mongoError } from '../errors.js';
import { BUDGET_EXCEEDED, searchFrom, toRegExp } from './regex.js';
import { bsonType, isPlainObject } from './values.js';

/**
 * `$regexMatch`, `$regexFind` and `$regexFindAll`, as mongod 7.0 runs them,
 * in place of mingo's: the pattern compiles and searches through
 * query/regex.ts, so these get the same backtrack budget as a query `$regex`;
 * past it they fail the command with 51156, as mongod does when PCRE stops at
 * its match limit (where a query `$regex` just does not match). Also as
 * mongod and unlike mingo: `idx` counts code points, `$regexFindAll`
 * searches the whole string from each position (so `^` and lookbehind see
 * what came before) and steps past an empty match instead of looping on it,
 * and the arguments are checked with mongod's codes.
 */

type Operator = (obj: unknown, expr: unknown, options: unknown) => unknown;

interface Search {
  name: string;
  re: RegExp;
  input: string;
}

interface Match {
  match: string;
  idx: number;
  captures: Array<string | null>;
}

const ARGUMENTS = new Set(['input', 'regex', 'options']);

/** The compiled search, or undefined when input or regex is null/missing (the operator's "no match"). */
function prepare(name: string, obj: unknown, expr: unknown, options: unknown): Search | undefined {
  if (!isPlainObject(expr)) throw mongoError('Location51103', `${name} expects an object of named arguments but found: ${typeName(expr)}`);
  for (const key of Object.keys(expr)) if (!ARGUMENTS.has(key)) throw mongoError('Location31024', `${name} found an unknown argument: ${key}`);
  if (!('input' in expr)) throw mongoError('Location31022', `${name} requires 'input' parameter`);
  if (!('regex' in expr)) throw mongoError('Location31023', `${name} requires 'regex' parameter`);
  const value = (arg: string) => (arg in expr ? evalExpr(obj, expr[arg], options as never) : undefined);
  const flags = value('options');
  if (flags !== undefined && flags !== null && typeof flags !== 'string') throw mongoError('Location51106', `${name} needs 'options' to be of type string`);
  const regex = value('regex');
  let pattern: string;
  let regexFlags = '';
  if (regex === undefined || regex === null) {
    pattern = '';
  } else if (typeof regex === 'string') {
    pattern = regex;
  } else if (regex instanceof RegExp) {
    pattern = regex.source;
    regexFlags = regex.flags.replace(/[^imsxu]/g, '');
  } else if (bsonType(regex) === 'BSONRegExp') {
    ({ pattern, options: regexFlags } = regex as { pattern: string; options: string });
  } else {
    throw mongoError('Location51105', `${name} needs 'regex' to be of type string or regex`);
  }
  if (regexFlags && typeof flags === 'string' && flags) {
    throw mongoError('Location51075', `${name}: regex option(s) specified in both 'regex' and 'option' fields`);
  }
  const allFlags = regexFlags || (typeof flags === 'string' ? flags : '');
  if (pattern.includes('\0')) throw mongoError('Location51109', `${name}: regular expression cannot contain an embedded null byte`);
  if (allFlags.includes('\0')) throw mongoError('Location51110', `${name}: regular expression options cannot contain an embedded null byte`);
  let re: RegExp;
  try {
    re = toRegExp(pattern, allFlags, true);
  } catch (err) {
    // The query's 51091 (invalid pattern) is 51111 here; a bad flag keeps its 51108.
    if (isMongoCommandError(err) && err.code === 51091) throw mongoError('Location51111', `Invalid Regex in ${name}: ${err.message}`);
    throw err;
  }
  const input = value('input');
  if (input === undefined || input === null || regex === undefined || regex === null) return undefined;
  if (typeof input !== 'string') throw mongoError('Location51104', `${name} needs 'input' to be of type string`);
  return { name, re, input };
}

/** The next match at or after `from` (UTF-16 offset), with its start and end. */
function nextMatch({ name, re, input }: Search, from: number): { m: RegExpExecArray; start: number; end: number } | undefined {
  const m = searchFrom(re, input, from);
  if (m === BUDGET_EXCEEDED) {
    // mongod reports PCRE2's error text for its match limit.
    throw mongoError('Location51156', `Error occurred while executing the regular expression in ${name}. Result code: match limit exceeded`);
  }
  if (!m) return undefined;
  return { m, start: m.index, end: m.index + m[0].length };
}

function toMatch(m: RegExpExecArray, idx: number): Match {
  const captures: Array<string | null> = [];
  for (let i = 1; i < m.length; i++) captures.push(m[i] ?? null);
  return { match: m[0], idx, captures };
}

/** Code points in input[from, to) (mongod's idx counts code points, not UTF-16 units). */
function codePoints(input: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = input.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < to) i++;
    n++;
  }
  return n;
}

const $regexMatch: Operator = (obj, expr, options) => {
  const search = prepare('$regexMatch', obj, expr, options);
  return search !== undefined && nextMatch(search, 0) !== undefined;
};

const $regexFind: Operator = (obj, expr, options) => {
  const search = prepare('$regexFind', obj, expr, options);
  const found = search && nextMatch(search, 0);
  return found ? toMatch(found.m, codePoints(search!.input, 0, found.start)) : null;
};

const $regexFindAll: Operator = (obj, expr, options) => {
  const search = prepare('$regexFindAll', obj, expr, options);
  if (!search) return [];
  const { input } = search;
  const out: Match[] = [];
  let pos = 0;
  let idx = 0;
  // As mongod's loop: search at least once (an empty input can match), then while input remains.
  do {
    const found = nextMatch(search, pos);
    if (!found) break;
    idx += codePoints(input, pos, found.start);
    out.push(toMatch(found.m, idx));
    if (found.end === found.start) {
      // An empty match: the next search starts one code point further on.
      if (found.start >= input.length) break;
      const c = input.charCodeAt(found.start);
      pos = found.start + (c >= 0xd800 && c <= 0xdbff && found.start + 1 < input.length ? 2 : 1);
      idx += 1;
    } else {
      idx += codePoints(input, found.start, found.end);
      pos = found.end;
    }
  } while (pos < input.length);
  return out;
};

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'string' ? 'string' : typeof value;
}

export const regexExpressionOperators: Readonly<Record<string, Operator>> = { $regexMatch, $regexFind, $regexFindAll };
