import type { IndexSpec } from '../model/index.js';
import { compileFilter, getPathValues, pathExists } from '../query/index.js';
import type { Collation, Document } from '../query/types.js';

/**
 * Which documents an index holds, for a read hinted onto it: mongod then
 * scans that index, so a document the index leaves out is not found even
 * when it matches the filter. Left out are: by a partial index, documents
 * its partialFilterExpression does not match; by a sparse index, documents
 * with none of its fields; by a 2d/2dsphere index (sparse whatever its
 * options), documents without a location in its geo fields (missing, null
 * or an empty array). Undefined: the index holds every document.
 */
export function indexMembership(index: IndexSpec): ((doc: Document) => boolean) | undefined {
  const tests: Array<(doc: Document) => boolean> = [];
  if (index.partialFilterExpression) {
    tests.push(compileFilter(index.partialFilterExpression as Document, { collation: index.collation as Collation | undefined }));
  }
  const fields = Object.keys(index.key);
  const geo = fields.filter((f) => index.key[f] === '2d' || index.key[f] === '2dsphere');
  if (geo.length > 0) {
    tests.push((doc) => geo.some((f) => getPathValues(doc, f).some(hasLocation)));
  } else if (index.sparse) {
    tests.push((doc) => fields.some((f) => pathExists(doc, f)));
  }
  if (tests.length === 0) return undefined;
  return (doc) => tests.every((t) => t(doc));
}

function hasLocation(value: unknown): boolean {
  return value !== null && value !== undefined && !(Array.isArray(value) && value.length === 0);
}
