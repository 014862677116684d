import { mongoError } from '../errors.js';
import { compileFilter } from './filter/compile-filter.js';
import { isPlainObject } from './values.js';
import type { Collation, Document } from './types.js';

/**
 * The positional `$` (projection and update): the index of the first element
 * of the array at `arrayPath` that satisfies the filter's conditions on that
 * path. Each element is tested alone, wrapped as a one-element array at the
 * same path, against the conditions that mention the path.
 */
export function compilePositionalMatcher(
  arrayPath: string,
  filter: Document | undefined,
  collation?: Collation,
): ((arr: unknown[]) => number | undefined) | undefined {
  const relevant: Document = {};
  const collect = (f: Document) => {
    for (const key of Object.keys(f)) {
      if (key === '$and' && Array.isArray(f.$and)) f.$and.forEach((c) => isPlainObject(c) && collect(c));
      else if (key === arrayPath || key.startsWith(`${arrayPath}.`)) relevant[key] = f[key];
    }
  };
  if (filter) collect(filter);
  if (Object.keys(relevant).length === 0) return undefined;
  const test = compileFilter(relevant, { collation });
  const parts = arrayPath.split('.');
  return (arr) => {
    for (let i = 0; i < arr.length; i++) {
      const probe: Document = {};
      let node = probe;
      parts.forEach((p, j) => {
        if (j === parts.length - 1) node[p] = [arr[i]];
        else node = node[p] = {} as Document;
      });
      if (test(probe)) return i;
    }
    return undefined;
  };
}

export function positionalNotFound(): Error {
  return mongoError('BadValue', 'The positional operator did not find the match needed from the query.');
}
