import { mongoError } from '../errors.js';
import type { IndexSpec } from '../model/index.js';
import type { Document } from '../query/types.js';
import { isNumeric, isPlainObject, toDouble } from '../query/values.js';
import type { CollectionInfo } from '../storage/types.js';

/**
 * Indexes on a time-series collection, as mongod 7.0 has them: the
 * `{metaField: 1, timeField: 1}` index created with the collection (6.3+), and
 * the index specs mongod refuses while translating them to its buckets
 * (timeseries_commands_conversion_helper.cpp and
 * timeseries_index_schema_conversion_functions.cpp). The engine indexes the
 * measurements themselves, so an accepted index is built as given.
 */

interface TimeSeriesFields {
  timeField: string;
  metaField?: string;
}

function fieldsOf(info: CollectionInfo): TimeSeriesFields {
  const ts = info.options.timeseries as Document;
  return { timeField: ts.timeField as string, metaField: ts.metaField as string | undefined };
}

const isMetaPath = (path: string, metaField: string | undefined): boolean =>
  metaField !== undefined && (path === metaField || path.startsWith(`${metaField}.`));

/** The index mongod 6.3+ creates with a time-series collection that has a metaField. */
export function defaultTimeSeriesIndex(options: Document): IndexSpec | undefined {
  const ts = options.timeseries as Document;
  const { timeField, metaField } = ts as { timeField: string; metaField?: string };
  if (metaField === undefined) return undefined;
  return { v: 2, key: { [metaField]: 1, [timeField]: 1 }, name: `${metaField}_1_${timeField}_1` } as IndexSpec;
}

/** The top-level paths a filter reads (through $and/$or/$nor). */
function filterPaths(filter: unknown, out: string[] = []): string[] {
  if (!isPlainObject(filter)) return out;
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and' || key === '$or' || key === '$nor') {
      if (Array.isArray(value)) for (const clause of value) filterPaths(clause, out);
    } else {
      out.push(key); // a field, or $expr/$where/...: never meta-only
    }
  }
  return out;
}

function invalidKey(spec: IndexSpec, detail: string): Error {
  return mongoError('CannotCreateIndex', `Invalid index spec for time-series collection: ${JSON.stringify(spec.key)}. ${detail}`);
}

/** The measurement-level key check of createBucketsIndexSpecFromTimeseriesIndexSpec (67 when refused). */
function checkKey(spec: IndexSpec, fields: TimeSeriesFields): void {
  const key = spec.key as Document;
  const plugin = Object.values(key).find((v) => typeof v === 'string');
  if (plugin === 'text') throw mongoError('InvalidOptions', 'Text indexes are not supported on time-series collections');
  for (const [field, value] of Object.entries(key)) {
    if (field === fields.timeField) {
      if (!isNumeric(value)) throw invalidKey(spec, `Indexes on the time field must be ascending or descending (numbers only): ${field}: ${JSON.stringify(value)}`);
      continue;
    }
    if (isMetaPath(field, fields.metaField)) continue;
    if (value === '2dsphere') continue;
    if (!isNumeric(value)) {
      throw invalidKey(spec, `Indexes on measurement fields must be ascending or descending (numbers only), or '2dsphere': ${field}: ${JSON.stringify(value)}`);
    }
    // A wildcard on a measurement becomes control.min/max.$**, which mongod cannot build.
    if (field === '$**' || field.endsWith('.$**')) {
      throw mongoError('CannotCreateIndex', `Index key contains an illegal field name: 'control.min.${field}'`);
    }
  }
}

/** Refuses what mongod 7.0 refuses in an index spec on a time-series collection, in the order it checks. */
export function assertTimeSeriesIndex(info: CollectionInfo, spec: IndexSpec): void {
  const fields = fieldsOf(info);
  const raw = spec as unknown as Document;
  let ttl = false;
  let partialOnMetaOnly = false;
  for (const [option, value] of Object.entries(raw)) {
    if (option === 'partialFilterExpression') {
      if (raw.collation !== undefined) {
        throw mongoError('IndexOptionsConflict', 'On a time-series collection, partialFilterExpression and collation arguments are incompatible');
      }
      partialOnMetaOnly = filterPaths(value).every((path) => isMetaPath(path, fields.metaField));
    } else if (option === 'sparse' && value) {
      for (const field of Object.keys(spec.key)) {
        if (field !== fields.timeField && !isMetaPath(field, fields.metaField)) {
          throw mongoError('InvalidOptions', 'Sparse indexes are not supported on time-series measurements');
        }
      }
    } else if (option === 'expireAfterSeconds') {
      ttl = true;
    } else if (option === 'unique' && value && !(isNumeric(value) && toDouble(value) === 0)) {
      throw mongoError('InvalidOptions', 'Unique indexes are not supported on time-series collections');
    } else if (option === 'key') {
      checkKey(spec, fields);
    }
  }
  if (!ttl) return;
  if (!partialOnMetaOnly) {
    throw mongoError('InvalidOptions', 'TTL indexes on time-series collections require a partialFilterExpression on the metaField');
  }
  const keyFields = Object.keys(spec.key);
  if (keyFields.length !== 1) {
    throw mongoError('CannotCreateIndex', `TTL indexes are single-field indexes, compound indexes do not support TTL. Index spec: ${JSON.stringify(spec.key)}`);
  }
  if (keyFields[0] !== fields.timeField) {
    throw mongoError('InvalidOptions', 'TTL indexes on non-time fields are not supported on time-series collections');
  }
}

/**
 * An index of the time-series collection as mongod lists it on
 * `system.buckets.<name>` (createBucketsIndexSpecFromTimeseriesIndexSpec):
 * the time as control.min/max, the metaField as `meta`, a measurement as its
 * control.min/max pair (with the `originalSpec`), a 2dsphere one over `data`.
 */
export function bucketsIndexSpec(info: CollectionInfo, spec: IndexSpec): Document {
  const { timeField, metaField } = fieldsOf(info);
  const key: Document = {};
  let measurement = false;
  const ttl = spec.expireAfterSeconds !== undefined;
  for (const [field, value] of Object.entries(spec.key as Document)) {
    const ascending = !isNumeric(value) || toDouble(value) >= 0;
    if (field === timeField) {
      const [first, second] = ascending ? ['min', 'max'] : ['max', 'min'];
      key[`control.${first}.${field}`] = value;
      // A TTL index expires whole buckets by their start (convertToTTLTimeField).
      if (!ttl) key[`control.${second}.${field}`] = value;
    } else if (isMetaPath(field, metaField)) {
      key[`meta${field.slice(metaField!.length)}`] = value;
    } else if (value === '2dsphere') {
      measurement = true;
      key[`data.${field}`] = '2dsphere_bucket';
    } else {
      measurement = true;
      const [first, second] = ascending ? ['min', 'max'] : ['max', 'min'];
      key[`control.${first}.${field}`] = value;
      key[`control.${second}.${field}`] = value;
    }
  }
  const { v, key: original, name, ...options } = spec;
  const out: Document = { v: v ?? 2, key, name, ...options };
  if (measurement || spec.partialFilterExpression !== undefined) out.originalSpec = { v: v ?? 2, key: original, name, ...options };
  return out;
}
