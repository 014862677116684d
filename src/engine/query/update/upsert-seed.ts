import { isOperatorObject } from '../filter/compile-filter.js';
import { isRegexValue } from '../regex.js';
import { cloneValue, isPlainObject } from '../values.js';
import type { Document } from '../types.js';
import { locate, writeValue } from './update-paths.js';

/**
 * The document an upsert starts from: the equality conditions of the filter
 * (`a: v`, `a: {$eq: v}`, those inside top-level `$and`), dotted paths made
 * into sub-documents. Regexes and other operators contribute nothing.
 */
export function upsertSeed(filter: Document | undefined): Document {
  const seed: Document = {};
  const visit = (f: Document) => {
    for (const key of Object.keys(f)) {
      const value = f[key];
      if (key === '$and' && Array.isArray(value)) {
        for (const clause of value) if (isPlainObject(clause)) visit(clause);
        continue;
      }
      if (key.startsWith('$')) continue;
      let eq: unknown;
      if (isOperatorObject(value)) {
        if (!('$eq' in value)) continue;
        eq = value.$eq;
      } else {
        eq = value;
      }
      if (isRegexValue(eq)) continue;
      try {
        const slot = locate(seed, key.split('.'), true);
        if (slot) writeValue(slot, cloneValue(eq));
      } catch {
        // Conflicting paths in the filter: mongod reports them on insert; skip here.
      }
    }
  };
  if (filter) visit(filter);
  // mongod puts _id first in an upserted document.
  return '_id' in seed ? { _id: seed._id, ...seed } : seed;
}
