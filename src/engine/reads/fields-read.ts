import type { Document } from '../query/types.js';
import { isPlainObject } from '../query/values.js';

/**
 * The top-level fields a filter and sort read, when that is all they read:
 * field conditions (`a`, `a.b.c`, with any operators under them, which
 * apply to that field's value), combined with $and/$or/$nor. Anything that
 * can read the whole document ($expr's $$ROOT, $jsonSchema, $text, $where,
 * an unknown operator) gives undefined: the reader needs whole documents.
 */
const FIELDLESS = new Set(['$comment', '$alwaysTrue', '$alwaysFalse']);

export function fieldsRead(filter: Document, sort: Document | undefined): Set<string> | undefined {
  const fields = new Set<string>();
  if (!addFilterFields(filter, fields)) return undefined;
  for (const key in sort) {
    if (!isPlainObject(sort) || key.startsWith('$')) return undefined;
    // A `{$meta: ...}` sort reads metadata that a whole document carries.
    if (isPlainObject(sort[key])) return undefined;
    fields.add(topLevel(key));
  }
  return fields;
}

function addFilterFields(filter: Document, fields: Set<string>): boolean {
  for (const key in filter) {
    if (key === '$and' || key === '$or' || key === '$nor') {
      const branches = filter[key];
      if (!Array.isArray(branches) || !branches.every((b) => isPlainObject(b) && addFilterFields(b as Document, fields))) return false;
    } else if (key.startsWith('$')) {
      if (!FIELDLESS.has(key)) return false;
    } else {
      fields.add(topLevel(key));
    }
  }
  return true;
}

function topLevel(path: string): string {
  const dot = path.indexOf('.');
  return dot < 0 ? path : path.slice(0, dot);
}
