import { createHash } from 'node:crypto';
import { Binary, BSON, ObjectId } from 'bson';
import { mongoError } from '../errors.js';
import type { Document } from '../query/types.js';
import { compareValues } from '../query/compare.js';
import { isPlainObject } from '../query/values.js';
import { canonicalKey } from '../storage/canonical-key.js';
import type { CollectionInfo, Storage } from '../storage/types.js';

/**
 * `system.buckets.<name>` of a time-series collection. The engine stores the
 * measurements themselves (so reads of the time-series collection and its
 * indexes stay as they are); the buckets mongod would hold are derived from
 * them on each read of this namespace: measurements in insertion order,
 * grouped by meta value into buckets of at most 1000 that span less than
 * bucketMaxSpanSeconds from their rounded-down start; a measurement that
 * fits no open bucket reopens an earlier one it fits in, or opens a new one —
 * mongod 7.0's rules, shown as uncompressed (version 1) buckets. Nothing is
 * stored under this namespace, and writes to it are refused (assertNotBuckets).
 */

export const BUCKETS_PREFIX = 'system.buckets.';

/** mongod's bucket limit on measurements (timeseriesBucketMaxCount). */
const MAX_COUNT = 1000;

/** bucketRoundingSeconds for each granularity. */
const ROUNDING: Readonly<Record<string, number>> = { seconds: 60, minutes: 3600, hours: 86400 };

/** Why a bucket was opened: the first of its meta value, or the one before it was full, too old, or too new. */
type Opened = 'metadata' | 'count' | 'timeForward' | 'timeBackward';

interface Bucket {
  opened: Opened;
  id: ObjectId;
  start: number;
  meta: unknown;
  measurements: Document[];
}

/** The time-series collection a `system.buckets.<name>` namespace belongs to, if it is one. */
export function bucketsOwner(storage: Storage, db: string, coll: string): CollectionInfo | undefined {
  if (!coll.startsWith(BUCKETS_PREFIX) || storage.collection(db, coll)) return undefined;
  const owner = storage.collection(db, coll.slice(BUCKETS_PREFIX.length));
  return owner && isPlainObject(owner.options.timeseries) ? owner : undefined;
}

/** The buckets namespace's catalog entry as mongod lists it: a clustered collection with the time-series options. */
export function bucketsCollectionInfo(owner: CollectionInfo): CollectionInfo {
  const { timeseries, expireAfterSeconds } = owner.options;
  const options: Document = { clusteredIndex: true, timeseries };
  if (expireAfterSeconds !== undefined) options.expireAfterSeconds = expireAfterSeconds;
  // A stable uuid of its own, derived from the time-series collection's.
  const uuid = new Binary(createHash('sha256').update(owner.uuid.buffer).update('buckets').digest().subarray(0, 16), 4);
  return { ...owner, name: `${BUCKETS_PREFIX}${owner.name}`, options, indexes: [], uuid };
}

/** A bucket's _id: its rounded start time, then 8 bytes fixed by its meta and place (stable across reads). */
function bucketId(start: number, metaKey: string, ordinal: number): ObjectId {
  const bytes = Buffer.alloc(12);
  bytes.writeUInt32BE(Math.max(0, Math.min(0xffffffff, Math.floor(start / 1000))), 0);
  createHash('sha256').update(`${metaKey}\u0000${ordinal}`).digest().copy(bytes, 4, 0, 8);
  return new ObjectId(bytes);
}

function roundingMs(ts: Document): number {
  const seconds = typeof ts.bucketRoundingSeconds === 'number' ? ts.bucketRoundingSeconds : ROUNDING[ts.granularity as string] ?? 60;
  return seconds * 1000;
}

/** Groups the measurements into buckets, as mongod 7.0 would have opened them inserting in this order. */
function groupBuckets(storage: Storage, owner: CollectionInfo): Bucket[] {
  const ts = owner.options.timeseries as Document;
  const timeField = ts.timeField as string;
  const metaField = ts.metaField as string | undefined;
  const span = Number(ts.bucketMaxSpanSeconds) * 1000;
  const rounding = roundingMs(ts);
  const open = new Map<string, Bucket>();
  const byMeta = new Map<string, Bucket[]>();
  const buckets: Bucket[] = [];
  const fits = (b: Bucket, time: number): boolean => b.measurements.length < MAX_COUNT && time >= b.start && time < b.start + span;
  for (const doc of storage.scan(owner.db, owner.name)) {
    const time = (doc[timeField] as Date).getTime();
    const meta = metaField === undefined ? undefined : doc[metaField];
    const key = meta === undefined ? '' : canonicalKey(meta);
    let bucket = open.get(key);
    if (!bucket || !fits(bucket, time)) {
      const reason: Opened = !bucket ? 'metadata' : bucket.measurements.length >= MAX_COUNT ? 'count' : time < bucket.start ? 'timeBackward' : 'timeForward';
      const earlier = byMeta.get(key) ?? [];
      // mongod 6.3+ reopens an earlier bucket of that meta value the measurement fits in.
      bucket = earlier.find((b) => fits(b, time));
      if (!bucket) {
        const start = Math.floor(time / rounding) * rounding;
        bucket = { opened: reason, id: bucketId(start, key, earlier.length), start, meta, measurements: [] };
        byMeta.set(key, [...earlier, bucket]);
        buckets.push(bucket);
      }
      open.set(key, bucket);
    }
    bucket.measurements.push(doc);
  }
  // The buckets collection is clustered by _id: a scan reads them in _id order.
  return buckets.sort((a, b) => a.id.toHexString().localeCompare(b.id.toHexString()));
}

/** control.min/max: field by field, into embedded documents, by BSON order. */
function extreme(current: unknown, value: unknown, sign: 1 | -1): unknown {
  if (current === undefined) return value;
  if (isPlainObject(current) && isPlainObject(value)) {
    const out: Document = { ...current };
    for (const [k, v] of Object.entries(value)) out[k] = extreme(out[k], v, sign);
    return out;
  }
  return compareValues(value, current) * sign < 0 ? value : current;
}

function bucketDocument(bucket: Bucket, timeField: string, metaField: string | undefined, rounding: number): Document {
  const min: Document = {};
  const max: Document = {};
  const data: Document = {};
  bucket.measurements.forEach((doc, i) => {
    for (const [field, value] of Object.entries(doc)) {
      if (field === metaField) continue;
      min[field] = extreme(min[field], value, 1);
      max[field] = extreme(max[field], value, -1);
      const column = (data[field] ??= {}) as Document;
      column[String(i)] = value;
    }
  });
  // mongod's control.min of the time is the bucket's rounded-down start.
  min[timeField] = new Date(Math.floor((min[timeField] as Date).getTime() / rounding) * rounding);
  const out: Document = { _id: bucket.id, control: { version: 1, min, max } };
  if (metaField !== undefined && bucket.meta !== undefined) out.meta = bucket.meta;
  out.data = data;
  return out;
}

/** The bucket documents of a time-series collection, in _id order. */
export function bucketDocuments(storage: Storage, owner: CollectionInfo): Document[] {
  const ts = owner.options.timeseries as Document;
  const rounding = roundingMs(ts);
  return groupBuckets(storage, owner).map((b) => bucketDocument(b, ts.timeField as string, ts.metaField as string | undefined, rounding));
}

/**
 * collStats' `timeseries` section. mongod counts its bucket catalog's events
 * since startup; the engine gives the figures of inserting the stored
 * measurements in their order once (the same after a restart), and none of
 * the commit, wait or memory figures.
 */
export function bucketStats(storage: Storage, owner: CollectionInfo): Document {
  const ts = owner.options.timeseries as Document;
  const rounding = roundingMs(ts);
  const buckets = groupBuckets(storage, owner);
  const measurements = buckets.reduce((n, b) => n + b.measurements.length, 0);
  const opened = (why: Opened): number => buckets.filter((b) => b.opened === why).length;
  const bytes = buckets.reduce((n, b) => n + BSON.calculateObjectSize(bucketDocument(b, ts.timeField as string, ts.metaField as string | undefined, rounding)), 0);
  return {
    bucketsNs: `${owner.db}.${BUCKETS_PREFIX}${owner.name}`,
    bucketCount: buckets.length,
    avgBucketSize: buckets.length === 0 ? 0 : Math.floor(bytes / buckets.length),
    numBucketInserts: buckets.length,
    numBucketUpdates: measurements - buckets.length,
    numBucketsOpenedDueToMetadata: opened('metadata'),
    numBucketsClosedDueToCount: opened('count'),
    numBucketsClosedDueToTimeForward: opened('timeForward'),
    numBucketsClosedDueToTimeBackward: opened('timeBackward'),
    numMeasurementsCommitted: measurements,
  };
}

/**
 * Writes to the derived buckets are refused: mongod accepts bucket documents
 * there, the engine has none to write. InvalidNamespace, as mongod refuses
 * other system namespaces (IllegalOperation, 20, is what drivers take for
 * "no retryable writes" on a write and would hide the message).
 */
export function assertNotBuckets(storage: Storage, db: string, coll: string): void {
  const owner = bucketsOwner(storage, db, coll);
  if (owner) {
    throw mongoError(
      'InvalidNamespace',
      `cannot write to '${db}.${coll}' here: the engine derives the buckets of time-series collection ${db}.${owner.name} from its measurements; write to ${db}.${owner.name} instead`,
    );
  }
}
