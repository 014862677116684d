import { BSON, Long } from 'bson';
import { bsonType, isSimpleCollation } from '../query/index.js';
import type { Collation, Document } from '../query/types.js';
import { decodeStoredDocument, type StoredBytes } from '../storage/index.js';
import type { Storage } from '../storage/types.js';
import { encodeExhaustedFirstBatchReply, SELF_ENCODER, type ReplyAllocator } from '../wire/index.js';
import { defaultCollation } from './read-documents.js';
import { BUCKETS_PREFIX } from './time-series-buckets.js';
import { isView } from './views.js';

/**
 * The point read every `findOne({_id})` / `findById` sends, answered without
 * the query machinery: one `_id` lookup, no cursor (at most one document),
 * and a reply that splices the stored BSON bytes instead of decoding and
 * re-encoding them. Only a request whose result cannot differ from the
 * general path takes it; anything else returns undefined.
 */

/** Body fields this path knows it may ignore; any other field takes the general path. */
const PLAIN_FIELDS = new Set([
  'find', 'filter', 'sort', 'projection', 'skip', 'limit', 'batchSize', 'singleBatch', 'noCursorTimeout',
  'comment', 'maxTimeMS', 'readConcern', 'lsid', '$db', '$clusterTime', '$readPreference',
]);

export interface FindParams {
  coll: string;
  filter: Document;
  sort?: Document;
  projection?: Document;
  skip?: number;
  batchSize?: number;
  collation?: Collation;
  variables?: Document;
}

export function findById(storage: Storage, db: string, body: Document, params: FindParams): Document | undefined {
  const id = plainIdOf(params);
  if (id === undefined) return undefined;
  for (const key in body) if (!PLAIN_FIELDS.has(key)) return undefined;
  const info = storage.collection(db, params.coll);
  if (isView(info)) return undefined;
  // system.buckets.<name> is derived from a time-series collection's measurements: the read path answers it.
  if (!info && params.coll.startsWith(BUCKETS_PREFIX)) return undefined;
  // A time-series collection has no _id index (measurements may share an _id): a scan finds them.
  if (info?.options.timeseries !== undefined) return undefined;
  // Under a non-simple default collation string ids compare by that collation, which the _id map does not.
  if (typeof id === 'string' && !isSimpleCollation(defaultCollation(info))) return undefined;
  const bytes = info && storage.findRawById(db, params.coll, id);
  return exhaustedFirstBatch(`${db}.${params.coll}`, bytes === undefined ? [] : [bytes]);
}

/** The `_id` of `{_id: <value>}` when equality on it is exactly equality of the `_id` map's keys. */
function plainIdOf({ filter, sort, projection, skip, batchSize, collation, variables }: FindParams): unknown {
  if (sort !== undefined && !isEmpty(sort)) return undefined;
  if (projection !== undefined && !isEmpty(projection)) return undefined;
  if ((skip ?? 0) !== 0 || batchSize === 0 || collation !== undefined || variables !== undefined) return undefined;
  let id: unknown;
  let fields = 0;
  for (const key in filter) {
    if (key !== '_id' || ++fields > 1) return undefined;
    id = filter[key];
  }
  return isPlainId(id) ? id : undefined;
}

function isPlainId(id: unknown): boolean {
  if (typeof id === 'string') return true;
  if (typeof id === 'number') return !Number.isNaN(id);
  const type = bsonType(id);
  return type === 'ObjectId' || type === 'Long' || type === 'Double' || type === 'Int32';
}

function isEmpty(doc: Document): boolean {
  for (const _ in doc) return false;
  return true;
}

/**
 * The cursor of an exhausted first batch over stored bytes. `firstBatch`
 * decodes on first read (in-process callers); the wire never reads it and
 * gets the bytes. A class with a prototype getter: an accessor created per
 * reply costs more than the decode it saves.
 */
class StoredBatchCursor {
  readonly id = Long.fromInt(0);
  readonly ns: string;
  readonly #docs: readonly StoredBytes[];
  #decoded: Document[] | undefined;

  constructor(ns: string, docs: readonly StoredBytes[]) {
    this.ns = ns;
    this.#docs = docs;
  }

  get firstBatch(): Document[] {
    return (this.#decoded ??= this.#docs.map(decodeStoredDocument));
  }

  get storedBytes(): readonly StoredBytes[] {
    return this.#docs;
  }

  /** Whether the documents are still exactly the stored bytes (never read in-process). */
  get pristine(): boolean {
    return this.#decoded === undefined;
  }

  /** What BSON.serialize writes for it when the reply is no longer the shape the raw encoder knows. */
  toBSON(): Document {
    return { firstBatch: this.firstBatch, id: this.id, ns: this.ns };
  }
}

/** `{cursor: {firstBatch, id: 0, ns}}` whose wire form splices the stored bytes. */
function exhaustedFirstBatch(ns: string, docs: StoredBytes[]): Document {
  const cursor = new StoredBatchCursor(ns, docs);
  return { cursor, [SELF_ENCODER]: encodeStoredBatchReply };
}

function encodeStoredBatchReply(body: Document, allocate?: ReplyAllocator): Uint8Array {
  const cursor = body.cursor;
  // The raw form holds only while the reply is exactly as built plus the dispatcher's `ok: 1`.
  const asBuilt = cursor instanceof StoredBatchCursor && cursor.pristine && body.ok === 1 && Object.keys(body).length === 2;
  return asBuilt ? encodeExhaustedFirstBatchReply(cursor.ns, cursor.storedBytes, allocate) : BSON.serialize(body);
}
