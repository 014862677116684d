import { createHash } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { open } from 'lmdb';
import type { Database, RootDatabase } from 'lmdb';
import { BSON } from 'bson';
import type { Binary } from 'bson';
import { mongoError, type MongoCommandError } from '../errors.js';
import type { IndexSpec } from '../model/index.js';
import { finishBackup, prepareBackupDir, type BackupManifest } from './backup.js';
import type { Document } from '../query/index.js';
import { decodeStoredDocument } from './bson-codec.js';
import { LiveStorage } from './live-storage.js';
import type { StorageJournal } from './storage-journal.js';
import { handleLmdbCommitRejections, lmdbCommitCause, markMustStopNow, outcomeUnknown, settleCommitError, storageFailure } from './storage-failure.js';
import { changesAfter, removeSegmentsThrough, segmentsOf, settleLater, WriteAheadLog, type StoreChange } from './write-ahead-log.js';
import type { CollectionInfo, FlushOptions, Storage } from './types.js';

/**
 * The durable storage: the live in-memory storage plus an lmdb journal.
 *
 * Layout (one lmdb environment; catalog and docs values are raw BSON):
 *   catalog: <collection uuid hex>            -> {db, name, uuid, options, indexes}
 *   docs:    [<collection uuid hex>, <_id key>] -> the document, then its
 *            record number as an 8-byte double (natural order: insertion
 *            order survives a restart, as mongod's RecordIds)
 *   records: [<collection uuid hex>, <_id key>] -> a record number, as stores
 *            written before the number moved into `docs` kept it; startup
 *            moves such numbers into `docs` and removes them here
 *   journal: 'checkpointed' -> the last write-ahead log segment lmdb holds
 * One put per written document: the record number rides in the same value.
 * Keying documents by the collection's uuid makes a dropped-then-recreated
 * collection a different key space, and lets startup discard documents
 * whose collection is gone.
 *
 * Every change goes first to the write-ahead log beside the file
 * (write-ahead-log.ts); flush() resolves once the log has written it (an
 * acknowledged write survives kill -9), or with `durable` synced it (a power
 * cut too); the log syncs by itself every 100 ms.
 * Checkpoints then write the logged changes into lmdb in large batches
 * (lmdb's async put/remove, applied in call order), and startup first
 * replays what the last synced checkpoint does not hold. Default lmdb sync
 * flags keep the files crash-safe (no noSync / mapAsync).
 */
export interface LmdbStorageOptions {
  /** How often a checkpoint runs while changes wait for one (default 100 ms). */
  checkpointEveryMs?: number;
  /** How long after a checkpoint lmdb refused the next try waits (default 1 s). */
  checkpointRetryMs?: number;
  /** Where the storage's one-line diagnostics go (a refused checkpoint); default stderr. */
  log?: (line: string) => void;
}

export function openLmdbStorage(
  dbPath: string,
  { checkpointEveryMs = 100, checkpointRetryMs = 1_000, log = (line) => process.stderr.write(`${line}\n`) }: LmdbStorageOptions = {},
): Storage {
  handleLmdbCommitRejections(log);
  const env = open({ path: dbPath, maxDbs: 4 });
  const catalog = env.openDB<Buffer, string>({ name: 'catalog', encoding: 'binary' });
  const docs = env.openDB<Buffer, [string, string]>({ name: 'docs', encoding: 'binary' });
  const records = env.openDB<number, [string, string]>({ name: 'records' });
  const marks = env.openDB<number, string>({ name: 'journal' });
  const lastSegment = replayLog(env, catalog, docs, marks, dbPath);
  const journal = new LmdbJournal(env, catalog, docs, marks, new WriteAheadLog(dbPath, lastSegment), { checkpointEveryMs, checkpointRetryMs, log });
  const storage = new LiveStorage(true, journal);
  restore(storage, catalog, docs, records);
  return storage;
}

/** lmdb's default maximum key size is 1978 bytes: long `_id` keys are hashed. */
const MAX_ID_KEY = 1500;

function docKey(uuidHex: string, idKey: string): [string, string] {
  if (Buffer.byteLength(idKey) <= MAX_ID_KEY) return [uuidHex, idKey];
  return [uuidHex, '#' + createHash('sha256').update(idKey).digest('base64')];
}

const uuidHexOf = (info: CollectionInfo): string => info.uuid.toString('hex');

/** A stored value: the document's BSON, then its record number (little-endian double). */
function withRecord(bytes: Buffer, record: number): Buffer {
  const value = Buffer.allocUnsafe(bytes.length + 8);
  bytes.copy(value, 0);
  value.writeDoubleLE(record, bytes.length);
  return value;
}

/**
 * Splits a stored value. A value that is exactly its BSON (its first four
 * bytes give the length) comes from an older store: no record number in it.
 */
function splitStored(value: Buffer): { bytes: Buffer; record?: number } {
  const length = value.readInt32LE(0);
  if (value.length === length + 8) return { bytes: value.subarray(0, length), record: value.readDoubleLE(length) };
  return { bytes: value };
}

/** How many logged changes may wait for a checkpoint before one starts at once. */
const CHECKPOINT_AT_CHANGES = 20_000;

/** The `journal` store's key for the last segment a synced checkpoint holds. */
const CHECKPOINTED = 'checkpointed';

/**
 * Every change goes to the write-ahead log first (a write is acknowledged
 * once the log has written it, or synced it when asked) and is kept in
 * memory until a checkpoint writes it into lmdb: every 100 ms (by default)
 * while there are changes, sooner when 20k are waiting, and on close. lmdb applies a checkpoint's
 * writes in call order, in one transaction (lmdb-js batches an event turn),
 * with the number of the last log segment it holds; once lmdb has synced
 * it, those segments go; lmdb commits ten times a second instead of once
 * per group of writes.
 */
class LmdbJournal implements StorageJournal {
  private unapplied: WaitingChange[] = [];
  private checkpointing: Promise<void> | undefined;
  private readonly timer: NodeJS.Timeout;
  private failure: MongoCommandError | undefined;
  private closed = false;
  private readonly reported = settleLater<MongoCommandError>();
  readonly failed = this.reported.promise;
  private readonly failureListeners: Array<(kept: number) => boolean> = [];
  /** What lmdb said when it last refused a checkpoint; cleared by one it takes. */
  private refusedCheckpoint: unknown;
  /** No checkpoint before this time (ms): lmdb refused the last one. */
  private retryAt = 0;
  /** Backups under way: lmdb closes only once their copies are done. */
  private readonly backups = new Set<Promise<unknown>>();

  constructor(
    private readonly env: RootDatabase,
    private readonly catalog: Database<Buffer, string>,
    private readonly docs: Database<Buffer, [string, string]>,
    private readonly marks: Database<number, string>,
    private readonly log: WriteAheadLog,
    private readonly options: Required<Pick<LmdbStorageOptions, 'checkpointEveryMs' | 'checkpointRetryMs' | 'log'>>,
  ) {
    this.timer = setInterval(() => void this.checkpoint(), options.checkpointEveryMs);
    // The engine's server keeps the process alive; a checkpoint never needs to.
    this.timer.unref();
    // A failed write of the log ends the storage's writes even when no flush waits for it (a timed sync).
    void log.failed.then((err) => this.fail(err));
  }

  /** Throws the storage's failure (or that it is closed) before a change touches the data in memory. */
  assertWritable(): void {
    if (this.closed) throw new Error('storage is closed');
    // After a failure nothing more is acknowledged: the next start replays the log.
    if (this.failure) throw this.failure;
  }

  /**
   * The first failure of the log or of lmdb ends the writes for good (see
   * storage-failure.ts): the log is stopped first, so that nothing more
   * reaches the disk, and the listeners learn what the disk holds only once
   * the log's write under way has settled (it may still land). Reported once
   * lmdb has said why a commit failed.
   */
  private fail(err: unknown): MongoCommandError {
    if (this.failure) return this.failure;
    const failure = storageFailure(err, dirname(this.log.basePath));
    this.failure = failure;
    void this.log.abort(err).then(async (written) => {
      // Every change reported is one log record: the disk holds the ones written.
      const memoryMatchesDisk = this.failureListeners.map((listener) => listener(written)).every(Boolean);
      if (!memoryMatchesDisk) markMustStopNow(failure);
      failure.cause = await lmdbCommitCause(err);
      this.reported.resolve(failure);
    });
    return failure;
  }

  reportedCount(): number {
    return this.log.appendedCount;
  }

  onFailure(listener: (kept: number) => boolean): void {
    this.failureListeners.push(listener);
  }

  onWritten(listener: (written: number) => void): void {
    this.log.onWritten(listener);
  }

  walBytes(): number {
    return this.log.bytesOnDisk();
  }

  onWalSync(listener: (seconds: number) => void): () => void {
    return this.log.onSynced(listener);
  }

  private write(change: StoreChange): void {
    this.assertWritable();
    this.log.append(change);
    this.unapplied.push(waiting(change));
    if (this.unapplied.length >= CHECKPOINT_AT_CHANGES) void this.checkpoint();
  }

  /**
   * Writes the changes logged so far into lmdb, and once lmdb has synced
   * them (with the mark of the last segment they came from) removes the
   * segments up to it. One at a time. A batch lmdb refuses (a full disk)
   * goes back in front of the waiting changes and is tried again, with them,
   * `checkpointRetryMs` later: the log still holds it all (a later mark never
   * passes a batch lmdb lacks) and writes are still acknowledged from the
   * log, until the log itself cannot be written.
   */
  private checkpoint(): Promise<void> {
    if (this.checkpointing) return this.checkpointing;
    if (this.failure || this.unapplied.length === 0 || Date.now() < this.retryAt) return Promise.resolve();
    const changes = this.unapplied;
    this.unapplied = [];
    // Everything in `changes` was appended before this: it is all in segments up to `through`.
    const through = this.log.rotate();
    // Only changes the log holds go into lmdb: one whose log write failed (a full disk) was refused, and must not come back at the next start.
    const done = this.log
      .writtenAll()
      .then(async () => {
        try {
          await this.applyCheckpoint(changes, through);
        } catch (err) {
          this.checkpointRefused(changes, err);
          return;
        }
        if (this.refusedCheckpoint !== undefined) this.options.log('engine: lmdb took a checkpoint again');
        this.refusedCheckpoint = undefined;
        removeCheckpointedSegments(this.log.basePath, through);
      })
      .catch((err: unknown) => void this.fail(err))
      .finally(() => {
        this.checkpointing = undefined;
      });
    this.checkpointing = done;
    return done;
  }

  /**
   * Writes `changes` and the mark `through` into lmdb (lmdb-js batches one
   * event turn's writes, in call order); resolves once lmdb synced them, or
   * rejects with the first write it refused.
   */
  private async applyCheckpoint(changes: WaitingChange[], through: number): Promise<void> {
    let refused: unknown;
    const noteRefusal = (err: unknown) => {
      settleCommitError(err);
      refused ??= err;
    };
    let last: Promise<unknown>;
    try {
      for (const change of changes) applyChange(this.catalog, this.docs, logged(change)).catch(noteRefusal);
      last = this.marks.put(CHECKPOINTED, through).catch((err: unknown) => {
        settleCommitError(err);
        throw err;
      });
    } catch (err) {
      last = Promise.reject(err);
    }
    await last.then(() => this.env.flushed);
    if (refused !== undefined) throw refused;
  }

  /** lmdb refused a checkpoint: its batch waits in front of the newer changes for the next try. */
  private checkpointRefused(changes: WaitingChange[], err: unknown): void {
    this.unapplied = changes.concat(this.unapplied);
    this.retryAt = Date.now() + this.options.checkpointRetryMs;
    const first = this.refusedCheckpoint === undefined;
    this.refusedCheckpoint = err;
    // Also handles lmdb-js's rejected `commitError` (unhandled, it ends the process).
    void lmdbCommitCause(err).then((cause) => {
      if (!first) return;
      this.options.log(
        `engine: lmdb refused a checkpoint (${(cause as Error)?.message ?? String(cause)}); writes are still logged and acknowledged, and it is tried again every ${this.options.checkpointRetryMs} ms`,
      );
    });
  }

  /**
   * An online backup into `dir` (absent or empty): a checkpoint started now
   * holds every change reported so far (acknowledged writes included); once
   * lmdb has synced it, lmdb copies the file inside one read transaction (on
   * its own thread): one point in time for every database, collection and
   * index, as a kill -9 there would leave it, with no log to replay. Writers
   * go on meanwhile (lmdb readers never block them; the file keeps the pages
   * the copy still reads until it ends). The manifest is written last.
   */
  async backup(dir: string): Promise<BackupManifest> {
    this.assertWritable();
    const startedAt = new Date();
    prepareBackupDir(dir);
    const run = (async () => {
      // One under way took its changes before now: the next one takes the rest.
      await this.checkpointing;
      await this.checkpoint();
      if (this.failure) throw this.failure;
      // Set until lmdb takes a checkpoint again: changes logged before now may be missing from it.
      if (this.refusedCheckpoint !== undefined) {
        throw mongoError('IllegalOperation', 'no backup now: lmdb refused the last checkpoint (see the engine log); try again once it takes one');
      }
      const copy = join(dir, basename(this.log.basePath));
      await this.env.backup(copy, false);
      return finishBackup(dir, [copy], startedAt);
    })();
    this.backups.add(run);
    try {
      return await run;
    } finally {
      this.backups.delete(run);
    }
  }

  collectionSaved(info: CollectionInfo): void {
    const record = { db: info.db, name: info.name, uuid: info.uuid, options: info.options, indexes: info.indexes };
    const bytes = Buffer.from(BSON.serialize(record, { checkKeys: false, ignoreUndefined: true }));
    this.write({ store: 'catalog', key: uuidHexOf(info), value: bytes });
  }

  // `records` holds no entry for a live document once startup has moved them into `docs`.
  collectionDropped(info: CollectionInfo, idKeys: Iterable<string>): void {
    const hex = uuidHexOf(info);
    this.write({ store: 'catalog', key: hex });
    for (const idKey of idKeys) this.write({ store: 'docs', key: docKey(hex, idKey) });
  }

  documentSaved(info: CollectionInfo, idKey: string, bytes: Buffer, record: number): void {
    this.write({ store: 'docs', key: docKey(uuidHexOf(info), idKey), value: withRecord(bytes, record) });
  }

  documentRemoved(info: CollectionInfo, idKey: string): void {
    this.write({ store: 'docs', key: docKey(uuidHexOf(info), idKey) });
  }

  /**
   * Every change reported before the call is in the log's file (`durable`:
   * synced), or the failure thrown. A change in the file is acknowledged even
   * after a failure (the next start replays it, and memory keeps it); one the
   * log wrote but could not sync gets `outcomeUnknown`, never "not stored".
   */
  async flush(options?: FlushOptions): Promise<void> {
    const target = this.log.appendedCount;
    try {
      await (options?.durable ? this.log.syncedAll() : this.log.writtenAll());
    } catch (err) {
      const failure = this.fail(err);
      throw options?.durable && this.log.writtenCount >= target ? outcomeUnknown(failure) : failure;
    }
    if (options?.checkpoint) {
      // One under way may have taken only part of what is logged: the next takes the rest.
      await this.checkpointing;
      await this.checkpoint();
    }
  }

  /**
   * Logs, checkpoints and syncs everything, then closes the log and lmdb. A
   * failed storage checkpoints nothing more (its files stay as they were for
   * the next start to replay) and closes without throwing that failure again
   * (it was reported when it happened); one met while closing is thrown.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    const failedBefore = this.failure;
    this.closed = true;
    clearInterval(this.timer);
    try {
      if (!failedBefore) {
        await this.log.syncedAll();
        await this.checkpointing;
        this.retryAt = 0;
        await this.checkpoint();
        // The log keeps what lmdb refused, for the next start to replay.
        if (this.refusedCheckpoint !== undefined) this.fail(this.refusedCheckpoint);
      }
    } catch (err) {
      this.fail(err);
    } finally {
      // lmdb closes only once no commit of ours is under way: its write thread must not outlive it.
      await this.checkpointing;
      await Promise.allSettled(this.backups);
      await this.log.close();
      // After a refused commit lmdb-js never settles its close (its last commit stays pending): the process's end releases it.
      if (this.refusedCheckpoint === undefined) await this.env.close();
    }
    if (this.failure && this.failure !== failedBefore) throw this.failure;
  }
}

/**
 * Removes the segments a synced checkpoint holds. One that cannot be removed
 * now (no file descriptor left to list the directory) is no failure of the
 * checkpoint: it is removed with the next one's, or at the next start.
 */
function removeCheckpointedSegments(basePath: string, through: number): void {
  try {
    removeSegmentsThrough(basePath, through);
  } catch {
    // Left for later (above).
  }
}

/**
 * A logged change waiting for its checkpoint, its value as a latin1 string:
 * held past a few young-generation GCs, a Buffer would keep its slab of
 * Node's buffer pool alive until a full GC (see CollectionData).
 */
type WaitingChange = Omit<StoreChange, 'value'> & { text?: string };

function waiting({ value, ...change }: StoreChange): WaitingChange {
  return value ? { ...change, text: value.toString('latin1') } : change;
}

function logged({ text, ...change }: WaitingChange): StoreChange {
  return (text === undefined ? change : { ...change, value: Buffer.from(text, 'latin1') }) as StoreChange;
}

/** One logged change into lmdb (async: lmdb-js queues it in call order). */
function applyChange(catalog: Database<Buffer, string>, docs: Database<Buffer, [string, string]>, change: StoreChange): Promise<unknown> {
  if (change.store === 'catalog') return change.value ? catalog.put(change.key, change.value) : catalog.remove(change.key);
  return change.value ? docs.put(change.key, change.value) : docs.remove(change.key);
}

/**
 * Applies the log segments a synced checkpoint does not hold (a crash came
 * before their checkpoint), in order, before the storage loads, and removes
 * every segment: one synchronous lmdb transaction (a full commit and sync)
 * holds the changes and the mark of the last segment. It also runs when only
 * segments at or below the mark are left (a crash between a checkpoint's
 * commit and its sync): its sync makes that checkpoint durable before they
 * go. Applying a segment twice gives the same store: every change sets or
 * removes one key. Returns the highest segment number known; new segments
 * are numbered after it.
 */
function replayLog(
  env: RootDatabase,
  catalog: Database<Buffer, string>,
  docs: Database<Buffer, [string, string]>,
  marks: Database<number, string>,
  basePath: string,
): number {
  const checkpointed = marks.get(CHECKPOINTED) ?? 0;
  const segments = segmentsOf(basePath);
  const lastSegment = Math.max(checkpointed, segments.at(-1)?.[0] ?? 0);
  if (segments.length === 0) return lastSegment;
  env.transactionSync(() => {
    for (const change of changesAfter(basePath, checkpointed)) {
      if (change.store === 'catalog') {
        if (change.value) catalog.putSync(change.key, change.value);
        else catalog.removeSync(change.key);
      } else if (change.value) docs.putSync(change.key, change.value);
      else docs.removeSync(change.key);
    }
    marks.putSync(CHECKPOINTED, lastSegment);
  });
  removeSegmentsThrough(basePath, lastSegment);
  return lastSegment;
}

/**
 * A rewrite startup makes to tidy the store (nobody waits for it): one lmdb
 * refuses (a full disk) leaves the store as it was, readable, and the next
 * start makes it again.
 */
function tidy(write: Promise<unknown>): void {
  write.catch(settleCommitError);
}

/** Loads the catalog and every document, rebuilding the in-memory indexes. */
function restore(
  storage: LiveStorage,
  catalog: Database<Buffer, string>,
  docs: Database<Buffer, [string, string]>,
  records: Database<number, [string, string]>,
): void {
  const byUuid = new Map<string, ReturnType<LiveStorage['attach']>>();
  for (const { key, value } of catalog.getRange()) {
    const record = decodeStoredDocument(value);
    const info: CollectionInfo = {
      db: record.db as string,
      name: record.name as string,
      uuid: record.uuid as Binary,
      options: (record.options ?? {}) as Document,
      indexes: (record.indexes ?? []) as IndexSpec[],
    };
    byUuid.set(key, storage.attach(info));
  }

  // Record numbers of stores written before they moved into `docs`.
  const legacyRecord = new Map<string, number>();
  for (const { key, value } of records.getRange()) legacyRecord.set(`${key[0]}/${key[1]}`, value);

  let currentHex: string | undefined;
  let batch: Buffer[] = [];
  let batchRecords: Array<number | undefined> = [];
  let batchKeys: Array<[string, string]> = [];
  /** Per document: [its value lacks the record number, a `records` entry exists for it]. */
  let batchLegacy: Array<[boolean, boolean]> = [];
  const finish = (): void => {
    const state = currentHex === undefined ? undefined : byUuid.get(currentHex);
    if (state) {
      const loaded = state.data.restore(batch, batchRecords);
      loaded.forEach(([idKey, bytes, record], i) => {
        const wanted = docKey(currentHex!, idKey);
        const actual = batchKeys[i]!;
        // A stored key that no longer matches the key function (the _id's; a time-series
        // measurement's record) is rewritten, with its record number.
        if (wanted[1] !== actual[1]) {
          tidy(docs.remove(actual));
          tidy(docs.put(wanted, withRecord(bytes, record)));
        } else if (batchLegacy[i]![0]) {
          tidy(docs.put(wanted, withRecord(bytes, record)));
        }
        // After the put: lmdb applies writes in call order, so a crash in between keeps the number somewhere.
        if (batchLegacy[i]![1]) tidy(records.remove(actual));
      });
    } else {
      // Documents of a dropped collection whose removal did not reach the disk.
      for (const key of batchKeys) {
        tidy(docs.remove(key));
        tidy(records.remove(key));
      }
    }
    batch = [];
    batchRecords = [];
    batchKeys = [];
    batchLegacy = [];
  };
  for (const { key, value } of docs.getRange()) {
    if (key[0] !== currentHex) {
      if (currentHex !== undefined) finish();
      currentHex = key[0];
    }
    const { bytes, record } = splitStored(value);
    const legacy = legacyRecord.get(`${key[0]}/${key[1]}`);
    batch.push(bytes);
    // A number inside the value is the newer one (a legacy entry may outlive its move by a crash).
    batchRecords.push(record ?? legacy);
    batchKeys.push(key);
    batchLegacy.push([record === undefined, legacy !== undefined]);
    legacyRecord.delete(`${key[0]}/${key[1]}`);
  }
  if (currentHex !== undefined) finish();
  // Numbers whose document is gone (removed before the move, or never moved).
  for (const legacyKey of legacyRecord.keys()) {
    const slash = legacyKey.indexOf('/');
    tidy(records.remove([legacyKey.slice(0, slash), legacyKey.slice(slash + 1)]));
  }
}
