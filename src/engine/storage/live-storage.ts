import { UUID } from 'bson';
import { mongoError } from '../errors.js';
import type { IndexSpec, ScanPlan } from '../model/index.js';
import { toDouble, validateCollation } from '../query/index.js';
import type { Document } from '../query/index.js';
import { decodeScannedDocument, decodeStoredDocument, fieldNames } from './bson-codec.js';
import { CollectionData, idKeyOf } from './collection-data.js';
import { NEVER_SETTLES } from './storage-failure.js';
import { checkIndexConflict, ID_INDEX, normalizeIndexSpec } from './index-spec-rules.js';
import type { BackupManifest } from './backup.js';
import type { StorageJournal } from './storage-journal.js';
import type { CollectionInfo, CollectionSizes, FlushOptions, Storage, StorageStats, StoredBytes } from './types.js';


/**
 * The key of each time-series measurement a scan gave (keyed by the decoded
 * object, as bson-codec's stored bytes): writes and re-reads name it by it.
 */
const recordKeys = new WeakMap<Document, string>();

/** A time-series collection's options (its documents are keyed by record). */
const isTimeSeriesOptions = (options: Document): boolean => options.timeseries !== undefined && options.timeseries !== null;

interface CollectionState {
  info: CollectionInfo;
  data: CollectionData;
}

/**
 * A document change the journal has not written yet, and how to take it
 * back: the document's stored bytes before it (undefined: there was none).
 * `number`: its journal number (StorageJournal.reportedCount).
 */
interface UndoEntry {
  data: CollectionData;
  idKey: string;
  previous: StoredBytes | undefined;
  number: number;
}

/**
 * The Storage both implementations share: catalog and documents in memory,
 * every change reported to an optional journal (lmdb) in the order applied.
 */
export class LiveStorage implements Storage {
  private readonly dbs = new Map<string, Map<string, CollectionState>>();
  private closed = false;
  /**
   * Document changes, oldest first, from `undoStart` on, that the journal has
   * not written yet: a queue emptied (length 0) each time the journal has
   * written everything, so that nothing is copied on the write path.
   */
  private readonly undo: UndoEntry[] = [];
  private undoStart = 0;
  /** The journal number of the last catalog change (a collection or index made, changed or dropped). */
  private catalogChangedAt = 0;
  /** Told of each insert into a capped collection (tailable cursors waiting for data). */
  private readonly cappedInsertListeners: Array<(db: string, coll: string) => void> = [];

  constructor(
    readonly durable: boolean,
    private readonly journal?: StorageJournal,
  ) {
    journal?.onFailure((kept) => this.undoAfter(kept));
    journal?.onWritten((written) => this.forgetUndoThrough(written));
  }

  // ------------------------------------------------------------ catalog

  databases(): string[] {
    return [...this.dbs.keys()].filter((db) => this.dbs.get(db)!.size > 0).sort();
  }

  collections(db: string): CollectionInfo[] {
    return [...(this.dbs.get(db)?.values() ?? [])].map((s) => copyInfo(s.info));
  }

  collection(db: string, name: string): CollectionInfo | undefined {
    const state = this.state(db, name);
    return state && copyInfo(state.info);
  }

  createCollection(db: string, name: string, options: Document = {}): CollectionInfo {
    if (this.state(db, name)) throw mongoError('NamespaceExists', `Collection ${db}.${name} already exists.`);
    return copyInfo(this.create(db, name, options).info);
  }

  ensureCollection(db: string, name: string): CollectionInfo {
    const state = this.state(db, name) ?? this.create(db, name, {});
    return copyInfo(state.info);
  }

  private create(db: string, name: string, options: Document): CollectionState {
    this.assertWritable();
    validateNamespace(db, name);
    if (options.collation !== undefined) validateCollation(options.collation);
    // mongod's time-series collections have no _id index: measurements may share an _id.
    const indexes = isTimeSeriesOptions(options) ? [] : [{ ...ID_INDEX }];
    const info: CollectionInfo = { db, name, uuid: new UUID().toBinary(), options, indexes };
    const state = this.attach(info);
    this.catalogSaved(info);
    return state;
  }

  /** Registers a collection (creation, or restore from disk). */
  attach(info: CollectionInfo): CollectionState {
    const timeSeries = isTimeSeriesOptions(info.options);
    // A time-series collection created before it lost its _id index loses it now.
    if (timeSeries) info.indexes = info.indexes.filter((spec) => spec.name !== '_id_');
    const state = { info, data: new CollectionData(`${info.db}.${info.name}`, info.indexes, timeSeries) };
    let colls = this.dbs.get(info.db);
    if (!colls) this.dbs.set(info.db, (colls = new Map()));
    colls.set(info.name, state);
    return state;
  }

  dropCollection(db: string, name: string): boolean {
    const state = this.state(db, name);
    if (!state) return false;
    this.assertWritable();
    this.dbs.get(db)!.delete(name);
    this.journal?.collectionDropped(state.info, state.data.allIdKeys());
    this.noteCatalogChange();
    return true;
  }

  dropDatabase(db: string): void {
    for (const name of [...(this.dbs.get(db)?.keys() ?? [])]) this.dropCollection(db, name);
    this.dbs.delete(db);
  }

  createIndex(db: string, coll: string, requested: IndexSpec): boolean {
    this.assertWritable();
    if (requested.collation !== undefined) validateCollation(requested.collation);
    const state = this.state(db, coll) ?? this.create(db, coll, {});
    const spec = withDefaultCollation(normalizeIndexSpec(requested), state.info.options.collation);
    if (checkIndexConflict(state.info.indexes, spec)) return false;
    state.data.addIndex(spec);
    state.info.indexes.push(spec);
    this.catalogSaved(state.info);
    return true;
  }

  dropIndex(db: string, coll: string, name: string): void {
    this.assertWritable();
    const state = this.required(db, coll);
    if (name === '_id_') throw mongoError('InvalidOptions', 'cannot drop _id index');
    const i = state.info.indexes.findIndex((s) => s.name === name);
    if (i < 0) throw mongoError('IndexNotFound', `index not found with name [${name}]`);
    state.info.indexes.splice(i, 1);
    state.data.dropIndex(name);
    this.catalogSaved(state.info);
  }

  setCollectionOptions(db: string, coll: string, options: Document): void {
    this.assertWritable();
    const state = this.required(db, coll);
    state.info.options = { ...options };
    this.catalogSaved(state.info);
    // Made capped, or its limits lowered: the oldest documents over them go now.
    const limits = cappedLimits(state.info.options);
    if (limits) this.makeRoom(state, limits, undefined);
  }

  setIndexOptions(db: string, coll: string, name: string, changes: Partial<IndexSpec>): void {
    this.assertWritable();
    const state = this.required(db, coll);
    const spec = state.info.indexes.find((s) => s.name === name);
    if (!spec) throw mongoError('IndexNotFound', `cannot find index ${name} for ns ${db}.${coll}`);
    for (const [option, value] of Object.entries(changes)) {
      if (value === undefined) delete spec[option];
      else spec[option] = value;
    }
    if ('unique' in changes || 'prepareUnique' in changes) state.data.rebuildIndex(spec);
    this.catalogSaved(state.info);
  }

  duplicateKeyIds(db: string, coll: string, name: string): unknown[][] {
    return this.required(db, coll).data.duplicateIds(name);
  }

  collectionSizes(db: string, coll: string): CollectionSizes | undefined {
    return this.state(db, coll)?.data.sizes();
  }

  /** Reports a catalog change to the journal, and notes it: a refused one cannot be taken back (see takeBackAfter). */
  private catalogSaved(info: CollectionInfo): void {
    this.journal?.collectionSaved(info);
    this.noteCatalogChange();
  }

  private noteCatalogChange(): void {
    if (this.journal) this.catalogChangedAt = this.journal.reportedCount();
  }

  // ------------------------------------------------------------ documents

  findById(db: string, coll: string, id: unknown, scanned?: Document): Document | undefined {
    const bytes = this.findRawById(db, coll, id, scanned);
    if (bytes === undefined) return undefined;
    const doc = decodeStoredDocument(bytes);
    // A measurement read again stays nameable by its record (a cursor's re-read, then a write).
    const key = scanned && recordKeys.get(scanned);
    if (key !== undefined) recordKeys.set(doc, key);
    return doc;
  }

  findRawById(db: string, coll: string, id: unknown, scanned?: Document): StoredBytes | undefined {
    const data = this.state(db, coll)?.data;
    const key = data && keyOf(data, id, scanned);
    return key === undefined ? undefined : data!.get(key);
  }

  recordId(db: string, coll: string, id: unknown, scanned?: Document): number | undefined {
    const data = this.state(db, coll)?.data;
    const key = data && keyOf(data, id, scanned);
    return key === undefined ? undefined : data!.recordId(key);
  }

  scan(db: string, coll: string, plan?: ScanPlan, fields?: ReadonlySet<string>): Iterable<Document> {
    const data = this.state(db, coll)?.data;
    const ids = data?.scan(plan) ?? [];
    const names = fields && fieldNames(fields);
    if (data && !plan && this.state(db, coll)!.info.options.capped === true) return cappedScan(data, ids, names);
    const byRecord = data?.keyedByRecord === true;
    return (function* () {
      for (const idKey of ids) {
        const bytes = data!.get(idKey);
        if (bytes === undefined) continue;
        const doc = decodeScannedDocument(bytes, names);
        if (byRecord) recordKeys.set(doc, idKey);
        yield doc;
      }
    })();
  }

  countKeys(db: string, coll: string, plan?: ScanPlan): number {
    return this.state(db, coll)?.data.countKeys(plan) ?? 0;
  }

  multikeyIndexes(db: string, coll: string): string[] {
    return this.state(db, coll)?.data.multikeyIndexes() ?? [];
  }

  count(db: string, coll: string): number {
    return this.state(db, coll)?.data.count ?? 0;
  }

  insert(db: string, coll: string, doc: Document): void {
    this.assertWritable();
    const state = this.state(db, coll) ?? this.create(db, coll, {});
    const limits = cappedLimits(state.info.options);
    const [idKey, bytes, record] = state.data.insert(doc);
    if (limits && bytes.length > limits.size) {
      state.data.remove(idKey);
      throw mongoError('BadValue', 'object to insert exceeds cappedMaxSize');
    }
    this.journal?.documentSaved(state.info, idKey, bytes, record);
    this.recordUndo(state.data, idKey, undefined);
    if (limits) {
      this.makeRoom(state, limits, idKey);
      for (const listener of this.cappedInsertListeners) listener(db, coll);
    }
  }

  /** A capped collection over its size or document count loses its oldest documents (never the one just inserted). */
  private makeRoom(state: CollectionState, limits: CappedLimits, inserted: string | undefined): void {
    const data = state.data;
    while ((data.count > limits.max || data.byteCount > limits.size) && data.oldest() !== inserted) {
      const oldest = data.oldest()!;
      const before = data.get(oldest);
      data.removeOldest();
      this.journal?.documentRemoved(state.info, oldest);
      this.recordUndo(data, oldest, before);
    }
  }

  tail(db: string, coll: string, after: number): Iterable<[number, Document]> {
    const data = this.state(db, coll)?.data;
    if (!data || data.cappedAway(after)) throw cappedPositionLost(after);
    return (function* () {
      for (const [idKey, record] of data.insertedAfter(after)) {
        const bytes = data.get(idKey);
        if (bytes !== undefined) yield [record, decodeStoredDocument(bytes)] as [number, Document];
      }
    })();
  }

  onCappedInsert(listener: (db: string, coll: string) => void): void {
    this.cappedInsertListeners.push(listener);
  }

  replace(db: string, coll: string, doc: Document, previous?: Document): void {
    this.assertWritable();
    const state = this.required(db, coll);
    const at = state.data.keyedByRecord ? scannedKey(previous) : undefined;
    const [idKey, bytes, record, before] = state.data.replace(doc, previous, at);
    this.journal?.documentSaved(state.info, idKey, bytes, record);
    this.recordUndo(state.data, idKey, before);
  }

  remove(db: string, coll: string, id: unknown, scanned?: Document): boolean {
    const state = this.state(db, coll);
    if (!state) return false;
    this.assertWritable();
    const idKey = keyOf(state.data, id, scanned);
    if (idKey === undefined) return false;
    const before = state.data.get(idKey);
    if (!state.data.remove(idKey)) return false;
    this.journal?.documentRemoved(state.info, idKey);
    this.recordUndo(state.data, idKey, before);
    return true;
  }

  /** Keeps how to take a document change back until the journal has written it (a full disk may refuse it after it was applied here). */
  private recordUndo(data: CollectionData, idKey: string, previous: StoredBytes | undefined): void {
    if (this.journal) this.undo.push({ data, idKey, previous, number: this.journal.reportedCount() });
  }

  /** The journal has written its first `written` changes: their undo entries go. */
  private forgetUndoThrough(written: number): void {
    while (this.undoStart < this.undo.length && this.undo[this.undoStart]!.number <= written) this.undoStart += 1;
    if (this.undoStart === this.undo.length) {
      this.undo.length = 0;
      this.undoStart = 0;
    }
  }

  /**
   * The journal failed (a full disk) with only the first `kept` changes on
   * disk: the document changes after them were refused, and are taken back
   * here, newest first, so that reads see only what the disk holds (and a
   * restart will); a document whose delete is taken back comes last in
   * natural order until the restart. Returns false, having taken back
   * nothing, when a catalog change was refused (a collection or index made
   * or dropped: not taken back), and false when a document change cannot be
   * taken back: memory then differs from the disk, and the engine must stop.
   */
  private undoAfter(kept: number): boolean {
    this.forgetUndoThrough(kept);
    const refused = this.undo.splice(this.undoStart).reverse();
    this.undoStart = 0;
    this.undo.length = 0;
    if (this.catalogChangedAt > kept) return false;
    try {
      for (const { data, idKey, previous } of refused) {
        if (previous === undefined) data.remove(idKey);
        else if (data.get(idKey) === undefined) data.insert(decodeStoredDocument(previous), idKey);
        else data.replace(decodeStoredDocument(previous), undefined, data.keyedByRecord ? idKey : undefined);
      }
    } catch {
      // Such as a DuplicateKey: reported by the false (see the comment above).
      return false;
    }
    return true;
  }

  // ------------------------------------------------------------ durability

  /** Never, in memory: see Storage. */
  get failed(): Promise<Error> {
    return this.journal?.failed ?? NEVER_SETTLES;
  }

  async flush(options?: FlushOptions): Promise<void> {
    await this.journal?.flush(options);
  }

  backup(dir: string): Promise<BackupManifest> {
    if (!this.journal) return Promise.reject(mongoError('CommandNotSupported', "This engine doesn't support hot backup: it keeps its data in memory only"));
    return this.journal.backup(dir);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.journal?.close();
  }

  stats(): StorageStats {
    let documents = 0;
    for (const colls of this.dbs.values()) for (const state of colls.values()) documents += state.data.count;
    return { documents, walBytes: this.journal?.walBytes() ?? 0 };
  }

  onWalSync(listener: (seconds: number) => void): () => void {
    return this.journal?.onWalSync(listener) ?? (() => undefined);
  }

  // ------------------------------------------------------------ helpers

  /** A journal that failed refuses a change before it is applied here: memory then holds nothing the disk lacks. */
  private assertWritable(): void {
    this.journal?.assertWritable();
  }

  private state(db: string, name: string): CollectionState | undefined {
    return this.dbs.get(db)?.get(name);
  }

  private required(db: string, name: string): CollectionState {
    const state = this.state(db, name);
    if (!state) throw mongoError('NamespaceNotFound', `ns not found: ${db}.${name}`);
    return state;
  }
}

function cappedPositionLost(record: number): Error {
  return mongoError('CappedPositionLost', `CollectionScan died due to position in capped collection being deleted. Last seen record id: RecordId(${record})`);
}

/**
 * A capped collection's scan in natural order: resumed (a cursor's getMore)
 * after capping removed the last document it read, it dies with
 * CappedPositionLost, as mongod's collection scan does.
 */
function* cappedScan(data: CollectionData, ids: Iterable<string>, names: ReturnType<typeof fieldNames> | undefined): Generator<Document> {
  let last = 0;
  for (const idKey of ids) {
    if (data.cappedAway(last)) throw cappedPositionLost(last);
    const bytes = data.get(idKey);
    if (bytes === undefined) continue;
    last = data.recordNumber(idKey);
    yield decodeScannedDocument(bytes, names);
  }
}

interface CappedLimits {
  /** Bytes: the sum of the documents' BSON lengths stays at most this. */
  size: number;
  /** Documents. */
  max: number;
}

/**
 * A capped collection's limits from its `create` options (validated there):
 * `size` in bytes, `max` documents where a `max` of 0 or less means none
 * (mongod then keeps 2^31 - 1).
 */
function cappedLimits(options: Document): CappedLimits | undefined {
  if (options.capped !== true || options.size === undefined) return undefined;
  const max = options.max === undefined ? 0 : toDouble(options.max);
  return { size: toDouble(options.size), max: max > 0 ? max : 0x7fffffff };
}

/**
 * An index without a collation inherits the collection's default one (as in
 * mongod); an explicit `{locale: "simple"}` means binary comparison.
 */
function withDefaultCollation(spec: IndexSpec, collectionCollation: unknown): IndexSpec {
  const collation = spec.collation ?? (collectionCollation as IndexSpec['collation']);
  const { collation: _drop, ...rest } = spec;
  if (!collation || collation.locale === 'simple') return rest as IndexSpec;
  return { ...rest, collation };
}

/** The key of the document with this `_id`; a time-series measurement's only from the document a scan gave. */
function keyOf(data: CollectionData, id: unknown, scanned: Document | undefined): string | undefined {
  return data.keyedByRecord ? scanned && recordKeys.get(scanned) : idKeyOf(id);
}

/** A time-series measurement's key: replace() needs the document as scanned. */
function scannedKey(previous: Document | undefined): string {
  const key = previous && recordKeys.get(previous);
  if (key === undefined) throw mongoError('InternalError', 'a time-series measurement is replaced only as a scan read it');
  return key;
}

/** Catalog reads hand out copies: callers cannot edit the live catalog. */
function copyInfo(info: CollectionInfo): CollectionInfo {
  return { ...info, options: { ...info.options }, indexes: info.indexes.map((s) => ({ ...s })) };
}

function validateNamespace(db: string, name: string): void {
  if (db === '' || /[/\\. "$\0]/.test(db)) throw mongoError('InvalidNamespace', `Invalid database name: '${db}'`);
  if (name === '' || name.includes('\0') || name.startsWith('.') || name.includes('$')) {
    throw mongoError('InvalidNamespace', `Invalid collection name: ${name}`);
  }
}
