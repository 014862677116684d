import { mongoError } from '../errors.js';
import type { IndexSpec } from '../model/index.js';
import { fixTextIndexSpec, isNumeric, isTextIndexSpec, toDouble } from '../query/index.js';
import { canonicalKey } from './canonical-key.js';
import { formatBsonValue } from './dup-key-error.js';

/**
 * mongod's rules for createIndexes against the existing catalog
 * (IndexCatalog's "does the spec conflict with an existing index").
 */

export const ID_INDEX: IndexSpec = { v: 2, key: { _id: 1 }, name: '_id_' };

/** Options that do not change an index's meaning and are ignored in comparisons. */
const IGNORED = new Set(['name', 'key', 'v', 'background', 'ns']);
/**
 * Options that make two indexes on the same key pattern different indexes
 * (mongod >= 5.0 counts unique and sparse too, absent == false; a wildcard
 * index's projection decides what it holds).
 */
const IDENTIFYING = ['collation', 'partialFilterExpression', 'unique', 'sparse', 'wildcardProjection'];

/** Validates and normalizes a requested spec (v: 2 by default). */
export function normalizeIndexSpec(spec: IndexSpec): IndexSpec {
  if (typeof spec.name !== 'string' || spec.name === '') {
    throw mongoError('FailedToParse', "The 'name' field is a required property of an index specification");
  }
  const key = spec.key;
  if (!key || typeof key !== 'object' || Object.keys(key).length === 0) {
    throw mongoError('CannotCreateIndex', 'Index keys cannot be empty.');
  }
  for (const [field, dir] of Object.entries(key)) {
    const ok = typeof dir === 'string' || (isNumeric(dir) && toDouble(dir) !== 0 && Number.isFinite(toDouble(dir)));
    if (!ok || field === '') {
      throw mongoError('CannotCreateIndex', `Values in the index key pattern can only be numbers or strings: ${field}`);
    }
  }
  if (spec.expireAfterSeconds !== undefined && Object.keys(key).length !== 1) {
    throw mongoError('CannotCreateIndex', 'TTL indexes are single-field indexes, compound indexes do not support TTL.');
  }
  // A text index is stored in mongod's form (_fts/_ftsx key, weights, languages, version).
  const fixed = isTextIndexSpec(spec) ? fixTextIndexSpec(spec) : spec;
  // listIndexes shows mongod's field order: v, key, name, then the options.
  const { v = 2, key: fixedKey, name, ...options } = fixed;
  return { v, key: fixedKey, name, ...options };
}

function optionsKey(spec: IndexSpec, only?: string[]): string {
  const opts: Record<string, unknown> = {};
  for (const k of Object.keys(spec).sort()) {
    if (IGNORED.has(k) || (only && !only.includes(k))) continue;
    const v = spec[k];
    // unique: false / sparse: false mean the same as absent.
    if (v === undefined || v === false) continue;
    opts[k] = v;
  }
  return canonicalKey(opts);
}

const sameKey = (a: IndexSpec, b: IndexSpec): boolean => canonicalKey(a.key) === canonicalKey(b.key);

function describe(spec: IndexSpec): string {
  return formatBsonValue(spec);
}

/**
 * Returns the existing index identical to the request (a no-op create), or
 * undefined when the index is new; throws 85/86 on a conflict. Follows
 * mongod's IndexCatalog: first by name, then by key pattern + identifying options.
 */
export function checkIndexConflict(existing: readonly IndexSpec[], requested: IndexSpec): IndexSpec | undefined {
  const equivalent = (s: IndexSpec): boolean =>
    sameKey(s, requested) && optionsKey(s, IDENTIFYING) === optionsKey(requested, IDENTIFYING);
  const identical = (s: IndexSpec): boolean => equivalent(s) && optionsKey(s) === optionsKey(requested);

  const sameName = existing.find((s) => s.name === requested.name);
  if (sameName) {
    if (identical(sameName)) return sameName;
    const detail = `Requested index: ${describe(requested)}, existing index: ${describe(sameName)}`;
    if (equivalent(sameName)) {
      throw mongoError(
        'IndexOptionsConflict',
        `An equivalent index already exists with the same name but different options. ${detail}`,
      );
    }
    throw mongoError(
      'IndexKeySpecsConflict',
      'An existing index has the same name as the requested index. When index names are not specified, ' +
        `they are auto generated and can cause conflicts. Please refer to our documentation. ${detail}`,
    );
  }
  const other = existing.find(equivalent);
  if (other) {
    if (identical(other)) {
      throw mongoError('IndexOptionsConflict', `Index already exists with a different name: ${other.name}`);
    }
    throw mongoError(
      'IndexOptionsConflict',
      'An equivalent index already exists with a different name and options. ' +
        `Requested index: ${describe(requested)}, existing index: ${describe(other)}`,
    );
  }
  // After the name and key checks, as in mongod: a second text index (another key pattern) is 67.
  const text = isTextIndexSpec(requested) ? existing.find(isTextIndexSpec) : undefined;
  if (text) {
    throw mongoError('CannotCreateIndex', `only one text index per collection allowed, found existing text index "${text.name}"`);
  }
  return undefined;
}
