import type { Binary } from 'bson';
import type { Document, IndexSpec, ScanPlan } from '../model/index.js';
import type { BackupManifest } from './backup.js';

/**
 * A stored document's BSON as the storage holds it: a latin1 string, one
 * char per byte (CollectionData says why not a Buffer). Written into a
 * reply as it is, decoded through a Buffer made for the read.
 */
export type StoredBytes = string;

/**
 * The narrow storage interface the command layer uses (FerretDB's backend
 * idea). Two implementations: durable (lmdb) and in-memory. Both keep the
 * live data in memory; the durable one also writes every change to lmdb.
 *
 * Writes are SYNCHRONOUS in memory, so a command's read-modify-write runs
 * without interleaving (Node is single-threaded): that is what makes
 * single-document writes and findAndModify atomic. A command awaits
 * `flush()` before it acknowledges, so an acknowledged write survives kill -9
 * (and, with `durable` — a write concern's `j: true` — a power cut).
 *
 * Every failure is a MongoCommandError (../errors.ts) with mongod's code:
 * DuplicateKey 11000 (with keyPattern, keyValue and the E11000 message),
 * NamespaceExists 48, NamespaceNotFound 26, IndexNotFound 27,
 * IndexOptionsConflict 85, IndexKeySpecsConflict 86, ...
 */

export interface CollectionInfo {
  db: string;
  name: string;
  uuid: Binary;
  /** Options given to `create` (capped, validator, ...), stored as given. */
  options: Document;
  /** Always starts with the `_id_` index. */
  indexes: IndexSpec[];
}

export interface CollectionSizes {
  count: number;
  /** Sum of the stored BSON documents' lengths. */
  dataBytes: number;
  /** Index name -> number of entries (one per document, or per array element of a multikey index). */
  indexEntries: Record<string, number>;
}

export interface Storage {
  readonly durable: boolean;

  // --- catalog (reads are synchronous) ---
  databases(): string[];
  collections(db: string): CollectionInfo[];
  collection(db: string, name: string): CollectionInfo | undefined;
  /** Throws NamespaceExists (48) when it exists. */
  createCollection(db: string, name: string, options?: Document): CollectionInfo;
  /** Creates the collection with its `_id_` index when absent (implicit create on insert). */
  ensureCollection(db: string, name: string): CollectionInfo;
  /** false when it did not exist. */
  dropCollection(db: string, name: string): boolean;
  dropDatabase(db: string): void;
  /**
   * Builds indexes over existing data. An identical existing index is a no-op
   * (returns false for it); same name or key with other options is 85/86; a
   * unique index over duplicate data is 11000 and nothing is created.
   */
  createIndex(db: string, coll: string, spec: IndexSpec): boolean;
  /** Throws IndexNotFound (27); the `_id_` index cannot be dropped (72). */
  dropIndex(db: string, coll: string, name: string): void;
  /** collMod: replaces a collection's options (validator, ...); 26 when it is missing. */
  setCollectionOptions(db: string, coll: string, options: Document): void;
  /**
   * collMod: changes options of one index that leave its entries as they are
   * (`hidden`, `expireAfterSeconds`, `prepareUnique`, `unique`); an `undefined`
   * value removes the option.
   */
  setIndexOptions(db: string, coll: string, name: string, changes: Partial<IndexSpec>): void;
  /**
   * The `_id`s of each group of documents sharing one key of an index that
   * refuses new duplicates (`prepareUnique`): what stops its conversion to unique.
   */
  duplicateKeyIds(db: string, coll: string, name: string): unknown[][];
  /** Sizes for dbStats/$collStats: BSON bytes of the documents, entries per index. */
  collectionSizes(db: string, coll: string): CollectionSizes | undefined;

  // --- documents (synchronous) ---
  // A time-series collection keys its measurements by record, not by `_id` (several may share
  // one): the calls naming one document by its `_id` then take `scanned`, the document as scan()
  // gave it, and find nothing without it.
  /** Lookup through the `_id` index; the returned document is a private copy. */
  findById(db: string, coll: string, id: unknown, scanned?: Document): Document | undefined;
  /**
   * The stored BSON of the document with this `_id` (point reads that only
   * send the document back), as the storage holds it: a latin1 string.
   */
  findRawById(db: string, coll: string, id: unknown, scanned?: Document): StoredBytes | undefined;
  /** The document's record number (natural order, stable while it lives): find's `showRecordId`. */
  recordId(db: string, coll: string, id: unknown, scanned?: Document): number | undefined;
  /**
   * Candidate documents in `_id` order (full scan) or in index order (plan).
   * Each is a private copy the caller may mutate. Safe against concurrent
   * modification: the set of `_id`s is fixed when scan() is called, and each
   * document is read when the iteration reaches it (deleted ones are skipped).
   * With `fields`, each document holds only those top-level fields (partial:
   * for a caller that reads no others and sends the stored bytes).
   */
  scan(db: string, coll: string, plan?: ScanPlan, fields?: ReadonlySet<string>): Iterable<Document>;
  /** How many index entries (documents, without a plan) the plan's scan examines: a plan's cost, known before reading. */
  countKeys(db: string, coll: string, plan?: ScanPlan): number;
  /** Names of the collection's indexes that hold an array key (they cannot give a sort order). */
  multikeyIndexes(db: string, coll: string): string[];
  count(db: string, coll: string): number;
  /** Throws DuplicateKey on any unique index (incl. `_id`); nothing is changed then. */
  insert(db: string, coll: string, doc: Document): void;
  /**
   * Replaces the document with this `_id` (the `_id` must be unchanged); unique checks as insert.
   * `previous`: the stored document as read by the caller in the same synchronous step (no await
   * between), unmodified; its index keys are the entries to remove, so the stored bytes need not be
   * decoded again. Without it they are. A time-series measurement needs it (scanned, see above).
   */
  replace(db: string, coll: string, doc: Document, previous?: Document): void;
  /** false when no such document. */
  remove(db: string, coll: string, id: unknown, scanned?: Document): boolean;
  /**
   * A capped collection's documents inserted after record number `after` (0:
   * all), in natural order, each with its record number (a tailable cursor's
   * read). CappedPositionLost (136) when capping removed record `after`, or
   * the collection is gone.
   */
  tail(db: string, coll: string, after: number): Iterable<[number, Document]>;
  /** Calls `listener` after each insert into a capped collection (tailable cursors awaiting data). */
  onCappedInsert(listener: (db: string, coll: string) => void): void;

  // --- durability ---
  /**
   * Resolves when every change applied so far survives kill -9 of the
   * engine, and with `durable` a power cut too (no-op in memory).
   */
  flush(options?: FlushOptions): Promise<void>;
  /**
   * Resolves once a write to disk failed (a full disk): from then on every
   * change is refused, before it is applied, with the error it resolves with
   * (OutOfDiskSpace 14031 for a full disk), and the files stay as they were
   * for the next start to replay. Never, in memory.
   */
  readonly failed: Promise<Error>;
  /**
   * An online backup into `dir` (absolute; absent or empty): one point in time
   * holding every write acknowledged before the call (backup.ts). The
   * in-memory storage has nothing to back up (CommandNotSupported).
   */
  backup(dir: string): Promise<BackupManifest>;
  close(): Promise<void>;

  // --- observation (metrics) ---
  /** Documents held and write-ahead log bytes on disk, read now (cheap: counts kept in memory, one directory listing). */
  stats(): StorageStats;
  /** Calls `listener` with the duration in seconds of each sync of the write-ahead log (never, in memory); returns its removal. */
  onWalSync(listener: (seconds: number) => void): () => void;
}

export interface StorageStats {
  /** Documents in every collection of every database. */
  documents: number;
  /** Bytes of the write-ahead log segments not yet removed by a checkpoint (0 in memory). */
  walBytes: number;
}

export interface FlushOptions {
  /** Synced to disk (a write concern's `j: true`, the fsync command, shutdown), not only written to the OS. */
  durable?: boolean;
  /**
   * Also written into the data files (an lmdb checkpoint), so that they stay
   * as they are while nothing is written (fsyncLock: the files can be copied).
   */
  checkpoint?: boolean;
}
