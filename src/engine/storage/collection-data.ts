import { ObjectId } from 'bson';
import { mongoError } from '../errors.js';
import type { IndexSpec, ScanPlan } from '../model/index.js';
import { bsonType, isPlainObject } from '../query/index.js';
import type { Document } from '../query/index.js';
import { decodeStoredDocument, encodeStoredDocument } from './bson-codec.js';
import { canonicalKey } from './canonical-key.js';
import { duplicateKeyError, formatBsonValue } from './dup-key-error.js';
import { IndexRuntime, sameDocKeys } from './index-runtime.js';
import { NaturalRecords } from './natural-records.js';
import type { DocKeys } from './index-runtime.js';
import type { CollectionSizes, StoredBytes } from './types.js';

/** The `_id` key of a document in the document map and in lmdb. */
export const idKeyOf = (id: unknown): string => canonicalKey(id);

/**
 * The key of a time-series measurement: its record number, with a tag no
 * canonical key starts with (so an `_id` key never finds one).
 */
const recordKey = (record: number): string => '@' + record;

/**
 * One collection's live data: BSON bytes by `_id` key (a time-series
 * collection's by record number), plus its indexes.
 * Every write checks all unique indexes before it changes anything, so a
 * DuplicateKey leaves the collection exactly as it was.
 *
 * The bytes are held as latin1 strings, one char per byte (StoredBytes),
 * and handed out as they are. V8 starts a full GC whenever the memory
 * outside its heap has grown enough ("external memory pressure"), and a
 * Buffer's bytes are outside. With a Buffer per document the bench's writes
 * set one off every 3 to 5 seconds (a serialized Buffer is even a slice of
 * Node's 8 KiB pool, holding its whole slab), each marking every stored
 * document and index entry while the requests in flight waited: issue 12's
 * p99. A string is one object inside the heap, whose own limit grows with
 * the data.
 */
export class CollectionData {
  /** Insertion-ordered: iteration is the collection's natural order (mongod's record order). */
  private readonly docs = new Map<string, StoredBytes>();
  private readonly indexes = new Map<string, IndexRuntime>();
  /** Each document's record number (natural order): the durable storage stores it with every version of the document. */
  private readonly recordOf = new Map<string, number>();
  /** The next insert's record number (natural order, kept by the durable storage across restarts). */
  private nextRecord = 1;
  /** Sum of the stored documents' lengths, kept as they change: a capped collection checks it on every insert. */
  private dataBytes = 0;
  /** The highest record number capping removed (0: none): a tailable cursor positioned at or before it lost its place. */
  private cappedThrough = 0;
  /** Natural order searchable by record, made by the first tailable read (capped collections only). */
  private natural: NaturalRecords | undefined;

  /**
   * @param keyedByRecord a time-series collection: its documents are keyed by
   *   their record number, and `_id` is an ordinary field (mongod's
   *   measurements may share one).
   */
  constructor(
    private readonly ns: string,
    specs: readonly IndexSpec[],
    readonly keyedByRecord = false,
  ) {
    for (const spec of specs) this.indexes.set(spec.name, new IndexRuntime(spec));
  }

  get count(): number {
    return this.docs.size;
  }

  /**
   * Loads stored documents in natural order (by record number; documents
   * stored before record numbers existed first, in the order given) and
   * builds every index in one pass each (startup).
   */
  restore(stored: Iterable<Buffer>, given: ReadonlyArray<number | undefined> = []): Array<[string, Buffer, number]> {
    const records = [...given];
    const decoded: Array<[string, Document]> = [];
    const loaded: Array<[string, Buffer, number]> = [];
    const buffers = [...stored];
    const docs = buffers.map((bytes) => decodeStoredDocument(bytes));
    if (this.keyedByRecord) {
      // A measurement stored before record numbers existed gets the next free one: its key needs one.
      let next = records.reduce<number>((max, r) => Math.max(max, (r ?? 0) + 1), this.nextRecord);
      docs.forEach((_, i) => (records[i] ??= next++));
    }
    docs.forEach((doc, i) => {
      const key = this.keyedByRecord ? recordKey(records[i]!) : idKeyOf(doc._id);
      decoded.push([key, doc]);
      loaded.push([key, buffers[i]!, records[i] ?? 0]);
    });
    // `loaded` stays in the given order (the caller matches it to its keys); the map takes record order.
    const order = loaded.map((_, i) => i).sort((a, b) => (records[a] ?? 0) - (records[b] ?? 0));
    for (const i of order) {
      this.docs.set(loaded[i]![0], loaded[i]![1].toString('latin1'));
      this.dataBytes += loaded[i]![1].length;
      this.recordOf.set(loaded[i]![0], records[i] ?? 0);
      this.nextRecord = Math.max(this.nextRecord, (records[i] ?? 0) + 1);
    }
    for (const index of this.indexes.values()) index.build(this.ns, decoded, false);
    return loaded;
  }

  /** Builds a new index over the data; DuplicateKey leaves the collection unchanged. */
  addIndex(spec: IndexSpec): void {
    const index = new IndexRuntime(spec);
    index.build(this.ns, this.decodedDocs());
    this.indexes.set(spec.name, index);
  }

  dropIndex(name: string): void {
    this.indexes.delete(name);
  }

  /**
   * Builds an index again after collMod changed whether it refuses duplicates
   * (`prepareUnique`, `unique`); the keys it already holds stay, duplicates included.
   */
  rebuildIndex(spec: IndexSpec): void {
    const index = new IndexRuntime(spec);
    index.build(this.ns, this.decodedDocs(), false);
    this.indexes.set(spec.name, index);
  }

  /** The `_id`s of each group of documents sharing a key of an index that refuses new duplicates. */
  duplicateIds(name: string): unknown[][] {
    return this.index(name)
      .duplicateGroups()
      .map((group) => group.map((idKey) => decodeStoredDocument(this.docs.get(idKey)!)._id));
  }

  private *decodedDocs(): Iterable<[string, Document]> {
    for (const [idKey, bytes] of this.docs) yield [idKey, decodeStoredDocument(bytes)];
  }

  get(idKey: string): StoredBytes | undefined {
    return this.docs.get(idKey);
  }

  recordId(idKey: string): number | undefined {
    return this.recordOf.get(idKey);
  }

  /**
   * Returns the stored key and bytes, and the record number (natural order) for the journal.
   * `at`: the key a time-series measurement had (a removal taken back keeps it).
   */
  insert(doc: Document, at?: string): [string, Buffer, number] {
    if (doc._id === undefined) doc._id = new ObjectId();
    checkIdValue(doc._id);
    const record = this.keyedByRecord && at !== undefined ? Number(at.slice(1)) : this.nextRecord;
    const idKey = this.keyedByRecord ? recordKey(record) : idKeyOf(doc._id);
    if (this.docs.has(idKey)) throw duplicateKeyError(this.ns, this.index('_id_').spec, [doc._id]);
    if (exceedsStorageDepth(doc)) {
      throw mongoError('Overflow', `cannot insert document because it exceeds ${MAX_STORAGE_DEPTH} levels of nesting`);
    }
    const bytes = encodeStoredDocument(doc);
    const keys = this.keysFor(doc);
    for (const [name, k] of keys) this.index(name).check(this.ns, k, idKey);
    this.docs.set(idKey, bytes.toString('latin1'));
    this.dataBytes += bytes.length;
    for (const [name, k] of keys) this.index(name).add(k, idKey);
    if (record === this.nextRecord) this.nextRecord++;
    this.recordOf.set(idKey, record);
    this.natural?.append(idKey, record);
    return [idKey, bytes, record];
  }

  /**
   * `previous`: the stored document as just read (see Storage.replace); saves decoding its bytes again.
   * `at`: its key, when not its `_id`'s (a time-series measurement).
   * Returns the stored key and bytes, the document's unchanged record number, and its bytes before.
   */
  replace(doc: Document, previous?: Document, at?: string): [string, Buffer, number, StoredBytes] {
    const idKey = at ?? idKeyOf(doc._id);
    const oldBytes = this.docs.get(idKey);
    if (oldBytes === undefined) throw mongoError('NoSuchKey', `no document with _id ${formatBsonValue(doc._id)} in ${this.ns}`);
    if (exceedsStorageDepth(doc)) throw mongoError('Overflow', `Document exceeds maximum nesting depth of ${MAX_STORAGE_DEPTH}`);
    const bytes = encodeStoredDocument(doc);
    const before = previous !== undefined && (at !== undefined || idKeyOf(previous._id) === idKey) ? previous : decodeStoredDocument(oldBytes);
    // Indexes whose key fields the change left alone keep their entries: no keys to extract, check or move.
    const changed = [...this.indexes.values()].filter((index) => !index.sameKeysBetween(before, doc));
    const newKeys = this.keysFor(doc, true, changed);
    const oldKeys = this.keysFor(before, false, changed);
    for (const [name, k] of newKeys) this.index(name).check(this.ns, k, idKey);
    this.docs.set(idKey, bytes.toString('latin1'));
    this.dataBytes += bytes.length - oldBytes.length;
    for (const index of changed) {
      const before = oldKeys.get(index.name);
      const after = newKeys.get(index.name);
      if (sameDocKeys(before, after)) continue;
      index.remove(before, idKey);
      index.add(after, idKey);
    }
    return [idKey, bytes, this.recordOf.get(idKey) ?? 0, oldBytes];
  }

  remove(idKey: string): boolean {
    const bytes = this.docs.get(idKey);
    if (bytes === undefined) return false;
    const keys = this.keysFor(decodeStoredDocument(bytes), false);
    for (const [name, k] of keys) this.index(name).remove(k, idKey);
    this.docs.delete(idKey);
    this.dataBytes -= bytes.length;
    this.recordOf.delete(idKey);
    // Capping, and deletes taking the oldest first (a capped collection used as a queue), let its oldest entries go.
    this.natural?.dropRemovedOldest();
    return true;
  }

  /** Sum of the stored documents' lengths (a capped collection's size). */
  get byteCount(): number {
    return this.dataBytes;
  }

  /** The `_id` key of the first document in natural order (a capped collection's oldest). */
  oldest(): string | undefined {
    return this.docs.keys().next().value;
  }

  /** Removes the oldest document to make room in a capped collection, remembering its record number. */
  removeOldest(): string | undefined {
    const idKey = this.oldest();
    if (idKey === undefined) return undefined;
    this.cappedThrough = Math.max(this.cappedThrough, this.recordOf.get(idKey) ?? 0);
    this.remove(idKey);
    return idKey;
  }

  /** The record number (natural order) of the document with this `_id` key; 0 when there is none. */
  recordNumber(idKey: string): number {
    return this.recordOf.get(idKey) ?? 0;
  }

  /** Whether capping removed the document with record number `record`. */
  cappedAway(record: number): boolean {
    return record > 0 && record <= this.cappedThrough;
  }

  /**
   * The `_id` keys and record numbers of the documents inserted after record
   * `after`, in natural order, read live: a document inserted while the
   * caller iterates comes too, a removed one is skipped.
   */
  *insertedAfter(after: number): Generator<[string, number]> {
    this.natural ??= new NaturalRecords(this.recordOf, (idKey) => this.recordOf.get(idKey));
    for (let found = this.natural.next(after); found; found = this.natural.next(found[1])) yield found;
  }

  /**
   * The `_id` keys of a scan's candidates: fixed now, except a scan within
   * compound bounds of an index without array keys, which reads the index as
   * the caller goes (SortedEntries.idKeysIn says how it goes on after
   * writes). Callers look each one up when they reach it (`get`), so a
   * document deleted meanwhile is skipped and a changed one is seen as it
   * is then, as a mongod cursor does across getMores.
   */
  scan(plan?: ScanPlan): Iterable<string> {
    return this.candidateIds(plan);
  }

  private candidateIds(plan?: ScanPlan): Iterable<string> {
    // Without an index a read is a collection scan: natural (insertion) order, as mongod's COLLSCAN.
    if (!plan) return [...this.docs.keys()];
    const index = this.indexes.get(plan.index);
    if (!index) throw mongoError('BadValue', `hint provided does not correspond to an existing index: ${plan.index}`);
    if (plan.keyBounds?.points) return pointRuns(index, plan.keyBounds.equals, plan.keyBounds.points);
    if (plan.keyBounds) return index.within(plan.keyBounds, plan.backward);
    const ids = plan.equals ? index.lookup(plan.equals) : plan.range ? index.range(plan.range) : index.all();
    return plan.backward ? ids.reverse() : ids;
  }

  /** The index entries a plan's scan would examine, counted without reading them (planning). */
  countKeys(plan?: ScanPlan): number {
    if (!plan) return this.docs.size;
    const index = this.indexes.get(plan.index);
    if (!index) return 0;
    const points = plan.keyBounds?.points;
    if (points) return points.reduce<number>((n, p) => n + index.countWithin({ equals: [...plan.keyBounds!.equals, p] }), 0);
    if (plan.keyBounds) return index.countWithin(plan.keyBounds);
    if (plan.range) return index.countWithin({ equals: [], range: plan.range });
    if (plan.equals) return plan.equals.reduce<number>((n, v) => n + index.countWithin({ equals: [v] }), 0);
    return index.entryCount;
  }

  /** Names of the indexes some document's keys run through an array in. */
  multikeyIndexes(): string[] {
    return [...this.indexes.values()].filter((ix) => ix.isMultikey).map((ix) => ix.name);
  }

  /** BSON bytes of the documents and entries per index (dbStats, $collStats). */
  sizes(): CollectionSizes {
    const dataBytes = this.dataBytes;
    const indexEntries: Record<string, number> = {};
    for (const [name, index] of this.indexes) indexEntries[name] = index.entryCount;
    return { count: this.docs.size, dataBytes, indexEntries };
  }

  allIdKeys(): IterableIterator<string> {
    return this.docs.keys();
  }

  private index(name: string): IndexRuntime {
    return this.indexes.get(name)!;
  }

  /** `strict: false` for a stored document: one kept from before a rule existed must stay removable. */
  private keysFor(doc: Document, strict = true, indexes: Iterable<IndexRuntime> = this.indexes.values()): Map<string, DocKeys | undefined> {
    const out = new Map<string, DocKeys | undefined>();
    for (const index of indexes) out.set(index.name, index.keysOf(doc, strict));
    return out;
  }
}

/** The documents of one run per point after an equality prefix (a `$in`), each once. */
function pointRuns(index: IndexRuntime, equals: readonly unknown[], points: readonly unknown[]): string[] {
  const seen = new Set<string>();
  for (const point of points) for (const idKey of index.within({ equals: [...equals, point] })) seen.add(idKey);
  return [...seen];
}

/**
 * mongod's nesting limit for stored documents (200 levels for messages, less
 * the 20 it keeps for its own wrapping). It also keeps the engine's recursive
 * code (comparison, canonical keys, pipelines) far from the stack's limit.
 */
const MAX_STORAGE_DEPTH = 180;

/**
 * Counts the top-level document as level 1; empty objects and arrays add no level (as mongod).
 * Depth-first without building per-level lists: it runs on every write, and the limit keeps the
 * recursion at most 180 frames deep.
 */
function exceedsStorageDepth(doc: Document): boolean {
  return nestsDeeper(doc, 1);
}

/** Whether a non-empty container child of `value` (at `depth`) sits at level MAX_STORAGE_DEPTH + 1. */
function nestsDeeper(value: unknown, depth: number): boolean {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (childNestsDeeper(value[i], depth)) return true;
    return false;
  }
  const doc = value as Document;
  for (const key in doc) if (Object.hasOwn(doc, key) && childNestsDeeper(doc[key], depth)) return true;
  return false;
}

function childNestsDeeper(child: unknown, depth: number): boolean {
  if (Array.isArray(child)) {
    if (child.length === 0) return false;
  } else if (!isPlainObject(child) || !hasOwnKey(child)) {
    return false;
  }
  return depth === MAX_STORAGE_DEPTH || nestsDeeper(child, depth + 1);
}

function hasOwnKey(doc: Document): boolean {
  for (const key in doc) if (Object.hasOwn(doc, key)) return true;
  return false;
}

/** mongod refuses arrays, regexes and undefined as `_id` (they cannot be unique keys). */
function checkIdValue(id: unknown): void {
  if (Array.isArray(id)) throw mongoError('InvalidIdField', "can't use an array for _id");
  if (id instanceof RegExp || bsonType(id) === 'BSONRegExp') throw mongoError('InvalidIdField', "can't use a regex for _id");
}
