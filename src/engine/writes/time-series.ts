import { mongoError } from '../errors.js';
import type { Document } from '../query/types.js';
import { isNumeric, isPlainObject, toDouble } from '../query/values.js';
import type { CollectionInfo, Storage } from '../storage/types.js';

/**
 * Time-series collections (`create` with `timeseries: {timeField, metaField,
 * granularity}`). The engine keeps the measurements as ordinary documents
 * (system.buckets.<name> is derived from them: reads/time-series-buckets.ts);
 * what mongod 7.0 checks and shows is reproduced — the create options and
 * their errors, `listCollections` type "timeseries" with the options
 * completed as mongod completes them, and the time field every inserted
 * measurement must carry (indexes and updates: time-series-indexes.ts,
 * time-series-updates.ts).
 */

/** mongod's bucketMaxSpanSeconds for each granularity. */
const MAX_SPAN: Readonly<Record<string, number>> = { seconds: 3600, minutes: 86400, hours: 2592000 };

/** `create` options a time-series collection refuses (InvalidOptions). */
const INCOMPATIBLE = ['capped', 'size', 'max', 'autoIndexId', 'idIndex', 'validator', 'validationLevel', 'validationAction', 'viewOn', 'pipeline', 'clusteredIndex'];

/** The largest expireAfterSeconds mongod accepts (2^62 - 1 is refused as "too large"). */
const MAX_EXPIRE = 2 ** 62;

export function isTimeSeries(info: CollectionInfo | undefined): boolean {
  return info !== undefined && isPlainObject(info.options.timeseries);
}

function fieldName(option: string, value: unknown): string {
  if (typeof value !== 'string') {
    throw mongoError('TypeMismatch', `BSON field 'create.timeseries.${option}' is the wrong type '${typeof value}', expected type 'string'`);
  }
  if (value.includes('.')) throw mongoError('InvalidOptions', `The '${option}' cannot contain embedded fields`);
  if (value === '' || value.startsWith('$')) throw mongoError('InvalidOptions', `The '${option}' must be a non-empty name not starting with '$'`);
  return value;
}

function positiveSeconds(option: string, value: unknown): number {
  if (!isNumeric(value)) throw mongoError('TypeMismatch', `BSON field 'create.timeseries.${option}' is the wrong type, expected a number`);
  const n = toDouble(value);
  if (!Number.isInteger(n) || n < 1 || n > 31536000) throw mongoError('InvalidOptions', `Timeseries '${option}' must be between 1 and 31536000`);
  return n;
}

/** Checks `create`'s time-series options and returns them as mongod stores and lists them. */
export function timeSeriesOptions(options: Document): Document {
  const ts = options.timeseries;
  if (!isPlainObject(ts)) throw mongoError('TypeMismatch', "BSON field 'create.timeseries' is the wrong type, expected type 'object'");
  for (const key of Object.keys(ts)) {
    if (!['timeField', 'metaField', 'granularity', 'bucketMaxSpanSeconds', 'bucketRoundingSeconds'].includes(key)) {
      throw mongoError('IDLUnknownField', `BSON field 'create.timeseries.${key}' is an unknown field.`);
    }
  }
  if (ts.timeField === undefined) throw mongoError('Location40414', "BSON field 'create.timeseries.timeField' is missing but a required field");
  const timeField = fieldName('timeField', ts.timeField);
  const metaField = ts.metaField === undefined ? undefined : fieldName('metaField', ts.metaField);
  if (metaField === timeField) throw mongoError('InvalidOptions', "The 'metaField' option cannot be the same as the 'timeField' option");
  if (ts.granularity !== undefined && (typeof ts.granularity !== 'string' || !(ts.granularity in MAX_SPAN))) {
    throw mongoError('BadValue', `Enumeration value '${String(ts.granularity)}' for field 'create.timeseries.granularity' is not a valid value.`);
  }
  const span = ts.bucketMaxSpanSeconds === undefined ? undefined : positiveSeconds('bucketMaxSpanSeconds', ts.bucketMaxSpanSeconds);
  const rounding = ts.bucketRoundingSeconds === undefined ? undefined : positiveSeconds('bucketRoundingSeconds', ts.bucketRoundingSeconds);
  const out: Document = { timeField };
  if (metaField !== undefined) out.metaField = metaField;
  if (span !== undefined || rounding !== undefined) {
    // Custom bucketing: both or neither, equal, and no granularity (a matching maxSpan alone is allowed with one).
    if (ts.granularity !== undefined) {
      if (rounding !== undefined || span !== MAX_SPAN[ts.granularity as string]) {
        throw mongoError('InvalidOptions', "Timeseries 'bucketMaxSpanSeconds' is not configurable to a value other than the default for the provided granularity");
      }
    } else if (span === undefined || rounding === undefined || span !== rounding) {
      throw mongoError('InvalidOptions', "Timeseries 'bucketMaxSpanSeconds' and 'bucketRoundingSeconds' must be set together and be equal");
    } else {
      out.bucketRoundingSeconds = rounding;
      out.bucketMaxSpanSeconds = span;
      return withCreateOptions(options, out);
    }
  }
  const granularity = (ts.granularity as string | undefined) ?? 'seconds';
  out.granularity = granularity;
  out.bucketMaxSpanSeconds = MAX_SPAN[granularity];
  return withCreateOptions(options, out);
}

function withCreateOptions(options: Document, timeseries: Document): Document {
  const refused = INCOMPATIBLE.find((k) => options[k] !== undefined);
  if (refused) throw mongoError('InvalidOptions', `Time-series collections do not support the '${refused}' option`);
  const { timeseries: _given, expireAfterSeconds, ...rest } = options;
  const out: Document = { ...rest, timeseries };
  if (expireAfterSeconds !== undefined) {
    if (!isNumeric(expireAfterSeconds)) {
      throw mongoError('TypeMismatch', "BSON field 'create.expireAfterSeconds' is the wrong type, expected type 'long'");
    }
    const n = toDouble(expireAfterSeconds);
    if (n < 0) throw mongoError('InvalidOptions', "TTL index 'expireAfterSeconds' option cannot be less than 0");
    if (n >= MAX_EXPIRE) throw mongoError('InvalidOptions', "TTL index 'expireAfterSeconds' option must be within an acceptable range");
    out.expireAfterSeconds = expireAfterSeconds;
  }
  return out;
}

/** `expireAfterSeconds` without `timeseries` (or clusteredIndex) is refused by mongod. */
export function assertExpireNeedsTimeSeries(options: Document): void {
  if (options.expireAfterSeconds !== undefined && options.timeseries === undefined && options.clusteredIndex === undefined) {
    throw mongoError('InvalidOptions', "'expireAfterSeconds' is only supported on time-series collections or when the 'clusteredIndex' option is specified");
  }
}

/** Every measurement needs its time field as a BSON date (mongod: BadValue). */
export function timeSeriesCheck(storage: Storage, db: string, coll: string): (doc: Document) => void {
  const info = storage.collection(db, coll);
  if (!isTimeSeries(info)) return () => {};
  const timeField = (info!.options.timeseries as Document).timeField as string;
  return (doc) => {
    if (!(doc[timeField] instanceof Date)) {
      throw mongoError('BadValue', `'${timeField}' must be present and contain a valid BSON UTC datetime value`);
    }
  };
}

/** A time-series `create` repeated with the same options succeeds (mongod), with others it is 48. */
export function sameTimeSeries(info: CollectionInfo | undefined, stored: Document): boolean {
  if (!isTimeSeries(info)) return false;
  const a = info!.options;
  const keys = new Set([...Object.keys(a), ...Object.keys(stored)].filter((k) => !['writeConcern', 'comment', 'lsid', '$db'].includes(k)));
  return [...keys].every((k) => JSON.stringify(a[k]) === JSON.stringify(stored[k]));
}
