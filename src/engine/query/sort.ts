import { mongoError } from '../errors.js';
import { compareValues } from './compare.js';
import { getPathValues } from './path.js';
import { textScoreOf } from './text/text-meta.js';
import { textScoreUnavailable } from './text/text-query.js';
import { isNumeric, isPlainObject, toDouble } from './values.js';
import type { Collation, Document } from './types.js';

/**
 * Sort specifications, mongod semantics: an array field sorts by its smallest
 * element ascending and its largest descending; missing sorts as null; an
 * empty array sorts below null.
 */

export type SortDirection = 1 | -1;
/** `meta`: the key is the document's text score (`{$meta: "textScore"}`), highest first. */
export type SortSpec = Array<[path: string, direction: SortDirection, meta?: 'textScore']>;

/** Validates a sort document into (path, direction) pairs. */
export function parseSort(sort: Document): SortSpec {
  const out: SortSpec = [];
  for (const key of Object.keys(sort)) {
    const value = sort[key];
    if (isPlainObject(value)) {
      if (value.$meta === 'textScore' && Object.keys(value).length === 1) {
        out.push([key, -1, 'textScore']);
        continue;
      }
      if ('$meta' in value) throw mongoError('BadValue', `$meta sort by '${String(value.$meta)}' is not supported`);
      throw mongoError('Location17312', '$meta is the only expression supported by $sort right now');
    }
    if (!isNumeric(value)) {
      throw mongoError('Location15974', `Illegal key in $sort specification: ${key}: ${JSON.stringify(value)}`);
    }
    const n = toDouble(value);
    if (n !== 1 && n !== -1) {
      throw mongoError('Location15975', '$sort key ordering must be 1 (for ascending) or -1 (for descending)');
    }
    out.push([key, n]);
  }
  return out;
}

/** Marks an empty array in a sort key: below null, as mongod orders it. */
const EMPTY_ARRAY = Symbol('emptyArray');

function compareKeys(a: unknown, b: unknown, collation?: Collation): number {
  if (a === EMPTY_ARRAY || b === EMPTY_ARRAY) return a === b ? 0 : a === EMPTY_ARRAY ? -1 : 1;
  return compareValues(a, b, collation);
}

/** The sort key of one document for one path and direction. */
export function sortKey(doc: Document, path: string, direction: SortDirection, collation?: Collation): unknown {
  let best: unknown;
  let has = false;
  const consider = (v: unknown) => {
    if (!has || direction * compareKeys(v, best, collation) < 0) {
      best = v;
      has = true;
    }
  };
  for (const leaf of getPathValues(doc, path)) {
    if (Array.isArray(leaf)) {
      if (leaf.length === 0) consider(EMPTY_ARRAY);
      else for (const el of leaf) consider(el === undefined ? null : el);
    } else {
      consider(leaf === undefined ? null : leaf);
    }
  }
  return has ? best : null;
}

function metaKey(doc: Document): number {
  const score = textScoreOf(doc);
  if (score === undefined) throw textScoreUnavailable();
  return score;
}

/**
 * The n of a `{$natural: <n>}` sort or hint (`$natural` its only key), as a
 * number: n > 0 asks for storage order, anything else for the reverse. Any
 * other spec gives undefined. The value is not validated (a hint takes any).
 */
export function naturalDirection(spec: Document | undefined): number | undefined {
  if (!spec) return undefined;
  const keys = Object.keys(spec);
  return keys.length === 1 && keys[0] === '$natural' ? Number(spec.$natural) : undefined;
}

/**
 * A comparator for Array.prototype.sort (stable: ties keep input order).
 * `$natural` only asks for storage order: it is validated and then ignored
 * here (see `naturalDirection` for callers that honour `$natural: -1`).
 */
export function compileSort(sort: Document, collation?: Collation): (a: Document, b: Document) => number {
  const spec = parseSort(sort).filter(([path]) => path !== '$natural');
  if (spec.length === 0) return () => 0;
  const cache = new WeakMap<Document, unknown[]>();
  const keysOf = (doc: Document): unknown[] => {
    let keys = cache.get(doc);
    if (!keys) {
      keys = spec.map(([path, dir, meta]) => (meta ? metaKey(doc) : sortKey(doc, path, dir, collation)));
      cache.set(doc, keys);
    }
    return keys;
  };
  return (a, b) => {
    const ka = keysOf(a);
    const kb = keysOf(b);
    for (let i = 0; i < spec.length; i++) {
      const c = compareKeys(ka[i], kb[i], collation);
      if (c !== 0) return c * spec[i]![1];
    }
    return 0;
  };
}
