import { isPlainObject, ownField } from './values.js';
import type { Document } from './types.js';

/**
 * Dotted-path reading. Three flavours, for three callers:
 * - `getPath`: one value, no array expansion (a numeric component indexes an
 *   array); what updates and projections of a single value need.
 * - `getPathValues`: every value the path reaches when arrays on the way are
 *   traversed element by element (mongod's query / index traversal). Array
 *   LEAVES are returned as arrays, not expanded. Missing -> `undefined` entries.
 * - `getMatchCandidates`: `getPathValues` plus the elements of array leaves:
 *   what a query operator tests ("any element matches, or the whole array").
 * - `getIndexKeyValues`: the index keys of a path: array leaves replaced by
 *   their elements (an empty array gives `undefined`), missing gives `null`.
 */

const NUMERIC = /^(0|[1-9]\d*)$/;

export function isArrayIndex(component: string): boolean {
  return NUMERIC.test(component);
}

export function splitPath(path: string): string[] {
  return path.split('.');
}

export function getPath(doc: unknown, path: string | string[]): unknown {
  const parts = typeof path === 'string' ? splitPath(path) : path;
  let cur: unknown = doc;
  for (const part of parts) {
    if (Array.isArray(cur)) {
      if (!isArrayIndex(part)) return undefined;
      cur = cur[Number(part)];
    } else if (isPlainObject(cur)) {
      cur = ownField(cur, part);
    } else {
      return undefined;
    }
    if (cur === undefined) return undefined;
  }
  return cur;
}

function collect(value: unknown, parts: string[], i: number, out: unknown[]): void {
  if (i === parts.length) {
    out.push(value);
    return;
  }
  const part = parts[i]!;
  if (Array.isArray(value)) {
    // A numeric component indexes the array ...
    if (isArrayIndex(part)) {
      const idx = Number(part);
      if (idx < value.length) collect(value[idx], parts, i + 1, out);
    }
    // ... and the path also applies to each sub-document element (mongod does both).
    // Scalars and nested arrays inside the array are not traversed.
    for (const el of value) {
      if (isPlainObject(el)) collect(ownField(el, part), parts, i + 1, out);
    }
    return;
  }
  if (isPlainObject(value)) {
    const next = ownField(value, part);
    if (next === undefined) out.push(undefined);
    else collect(next, parts, i + 1, out);
    return;
  }
  out.push(undefined);
}

export function getPathValues(doc: unknown, path: string | string[]): unknown[] {
  const parts = typeof path === 'string' ? splitPath(path) : path;
  const out: unknown[] = [];
  collect(doc, parts, 0, out);
  if (out.length === 0) out.push(undefined);
  return out;
}

export function getMatchCandidates(doc: unknown, path: string | string[]): unknown[] {
  const out: unknown[] = [];
  for (const v of getPathValues(doc, path)) {
    out.push(v);
    if (Array.isArray(v)) out.push(...v);
  }
  return out;
}

export function getIndexKeyValues(doc: unknown, path: string | string[]): unknown[] {
  const out: unknown[] = [];
  for (const v of getPathValues(doc, path)) {
    if (Array.isArray(v)) {
      if (v.length === 0) out.push(undefined);
      else out.push(...v);
    } else {
      out.push(v === undefined ? null : v);
    }
  }
  return out;
}

/** Whether the path exists in the document (through arrays, as `$exists` sees it). */
export function pathExists(doc: unknown, path: string | string[]): boolean {
  return getPathValues(doc, path).some((v) => v !== undefined);
}

export type { Document };
