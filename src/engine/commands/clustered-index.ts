import { mongoError } from '../errors.js';
import type { Document } from '../query/types.js';
import { valuesEqual } from '../query/index.js';
import { isNumeric, isPlainObject, toDouble } from '../query/values.js';
import type { CollectionInfo } from '../storage/types.js';

/**
 * Clustered collections (`create` with `clusteredIndex: {key: {_id: 1},
 * unique: true, name?, v?}`). The engine already keeps every collection's
 * documents by `_id`, so a clustered collection is stored as any other; what
 * mongod 7.0 checks and shows is reproduced: the option's errors, its spec
 * completed as mongod stores it (`v: 2`, the default name `_id_`), listed by
 * `listCollections` (without an `idIndex`) and as the `clustered: true`
 * index of `listIndexes`.
 */

const SPEC_FIELDS = ['v', 'key', 'name', 'unique'];

/** `create`'s options with `clusteredIndex` checked and completed (`false` means not clustered, and is not kept). */
export function clusteredCreateOptions(options: Document): Document {
  const { clusteredIndex, ...rest } = options;
  if (clusteredIndex === undefined || clusteredIndex === false) return rest;
  // `{clusteredIndex: true}` is the legacy form of time-series buckets only.
  if (clusteredIndex === true) {
    throw mongoError('Location5979703', 'The legacy clustered index format is not supported for this namespace');
  }
  if (!isPlainObject(clusteredIndex)) {
    throw mongoError('TypeMismatch', "BSON field 'create.clusteredIndex' is the wrong type, expected types '[bool, object]'");
  }
  if (rest.viewOn !== undefined) throw mongoError('Location6026500', 'The clusteredIndex option is not supported with views');
  if (rest.autoIndexId === false) throw mongoError('Location6026501', 'The clusteredIndex option requires autoIndexId: true');
  for (const field of Object.keys(clusteredIndex)) {
    if (!SPEC_FIELDS.includes(field)) throw mongoError('IDLUnknownField', `BSON field 'clusteredIndex.${field}' is an unknown field.`);
  }
  for (const field of ['key', 'unique']) {
    if (clusteredIndex[field] === undefined) {
      throw mongoError('Location40414', `BSON field 'clusteredIndex.${field}' is missing but a required field`);
    }
  }
  const v = clusteredIndex.v ?? 2;
  if (!isNumeric(v) || toDouble(v) !== 2) throw mongoError('Location5979704', `Invalid clustered index spec version: ${String(v)}. Only version 2 is supported`);
  if (clusteredIndex.unique !== true) throw mongoError('Location5979700', 'The clusteredIndex option requires unique: true');
  if (!isPlainObject(clusteredIndex.key) || !valuesEqual(clusteredIndex.key, { _id: 1 })) {
    throw mongoError('InvalidIndexSpecificationOption', 'The clusteredIndex option is only supported for key: {_id: 1}');
  }
  if (clusteredIndex.name !== undefined && typeof clusteredIndex.name !== 'string') {
    throw mongoError('TypeMismatch', "BSON field 'clusteredIndex.name' is the wrong type, expected type 'string'");
  }
  const spec: Document = { v: 2, key: { _id: 1 }, name: clusteredIndex.name ?? '_id_', unique: true };
  return { ...rest, clusteredIndex: spec };
}

/** The clustered index spec of a clustered collection, undefined for any other. */
export function clusteredIndexOf(info: CollectionInfo): Document | undefined {
  const spec = info.options.clusteredIndex;
  return isPlainObject(spec) ? (spec as Document) : undefined;
}
