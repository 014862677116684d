import { compileFilter } from '../query/index.js';
import type { Collation, Document } from '../query/index.js';

/**
 * A partial index's partialFilterExpression as a predicate. mongod evaluates
 * it under the index's collation.
 */
export function compilePartialFilter(filter: Document, collation?: Collation): (doc: Document) => boolean {
  return compileFilter(filter, { collation });
}
