import { createHash } from 'node:crypto';
import { open } from 'lmdb';
import type { Database, RootDatabase } from 'lmdb';
import { BSON } from 'bson';
import type { Binary } from 'bson';
import type { Document } from '../query/index.js';
import { decodeStoredDocument } from './bson-codec.js';
import { LiveStorage } from './live-storage.js';
import type { StorageJournal } from './storage-journal.js';
import type { CollectionInfo, IndexSpec, Storage } from './types.js';

/**
 * The durable storage: the live in-memory storage plus an lmdb journal.
 *
 * Layout (one lmdb environment, two sub-databases, values are raw BSON):
 *   catalog: <collection uuid hex>            -> {db, name, uuid, options, indexes}
 *   docs:    [<collection uuid hex>, <_id key>] -> the document, then its
 *            record number as an 8-byte double (natural order: insertion
 *            order survives a restart, as mongod's RecordIds)
 *   records: [<collection uuid hex>, <_id key>] -> a record number, as stores
 *            written before the number moved into `docs` kept it; startup
 *            moves such numbers into `docs` and removes them here
 * One put per written document: the record number rides in the same value.
 * Keying documents by the collection's uuid makes a dropped-then-recreated
 * collection a different key space, and lets startup discard documents
 * whose collection is gone.
 *
 * Writes use lmdb's async put/remove: lmdb batches everything issued in one
 * event turn into one transaction and applies the queue in call order, so
 * disk order is memory order. While one such batch commits and syncs, the
 * journal holds the writes that follow and issues them together once it has
 * (see LmdbJournal.write). flush() awaits the last write and lmdb's `flushed`
 * (synced to disk), which is what makes an acknowledged write survive
 * kill -9 or a power cut. Default sync flags keep the files crash-safe (no
 * noSync / mapAsync).
 */
export function openLmdbStorage(dbPath: string): Storage {
  const env = open({ path: dbPath, maxDbs: 4 });
  const catalog = env.openDB<Buffer, string>({ name: 'catalog', encoding: 'binary' });
  const docs = env.openDB<Buffer, [string, string]>({ name: 'docs', encoding: 'binary' });
  const records = env.openDB<number, [string, string]>({ name: 'records' });
  const journal = new LmdbJournal(env, catalog, docs, records);
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

/** A write to lmdb, not yet issued. */
type JournalWrite = () => Promise<unknown>;

class LmdbJournal implements StorageJournal {
  private last: Promise<unknown> = Promise.resolve();
  private failure: unknown;
  /**
   * `open`: writes go straight to lmdb, which commits them at the end of the
   * turn; `committing`: that batch is being committed and synced, and later
   * writes are held, in order, until it is.
   */
  private state: 'idle' | 'open' | 'committing' = 'idle';
  private held: JournalWrite[] = [];
  /** Resolves once the committing batch is synced and the held writes are issued. */
  private committed: Promise<void> = Promise.resolve();

  constructor(
    private readonly env: RootDatabase,
    private readonly catalog: Database<Buffer, string>,
    private readonly docs: Database<Buffer, [string, string]>,
    private readonly records: Database<number, [string, string]>,
  ) {}

  /**
   * Issues a write, or holds it while the previous batch commits and syncs:
   * lmdb-js commits (and syncs) a transaction per event turn that has writes,
   * some nine writes each under the bench's write load, and each costs the
   * engine a native hand-off to its write thread, a commit and an fsync.
   * Held writes go as one batch once the previous is synced: the same order,
   * fewer and larger transactions (engine CPU per write 0.84-0.93 of
   * before), and no wait when idle. An acknowledged write waited for a sync
   * before too (flush), so a held one waits about as long.
   */
  private write(write: JournalWrite): void {
    if (this.state === 'committing') {
      this.held.push(write);
      return;
    }
    const thrown = this.issue(write);
    // A write lmdb refuses at once (a closed database) fails its caller, as a direct put would.
    if (thrown !== undefined) throw thrown;
  }

  /** Issues one write; what lmdb throws at once is recorded as the journal's failure and returned. */
  private issue(write: JournalWrite): unknown {
    let thrown: unknown;
    try {
      this.track(write());
    } catch (err) {
      thrown = err;
      this.failure ??= err;
    }
    if (this.state !== 'idle') return thrown;
    this.state = 'open';
    // lmdb commits this turn's writes from its own setImmediate; from here on they are a batch.
    setImmediate(() => {
      this.state = 'committing';
      const release = () => this.releaseHeld();
      this.committed = this.last.then(() => this.env.flushed).then(release, release);
    });
    return thrown;
  }

  /** Held writes, in order; one refused at once is recorded (flush throws it) and the rest still go. */
  private releaseHeld(): void {
    const held = this.held;
    this.held = [];
    this.state = 'idle';
    for (const write of held) this.issue(write);
  }

  /** Remembers the newest write; lmdb resolves writes in order. */
  private track(write: Promise<unknown>): void {
    this.last = write;
    write.catch((err: unknown) => {
      this.failure ??= err;
    });
  }

  collectionSaved(info: CollectionInfo): void {
    const record = { db: info.db, name: info.name, uuid: info.uuid, options: info.options, indexes: info.indexes };
    const bytes = Buffer.from(BSON.serialize(record, { checkKeys: false, ignoreUndefined: true }));
    this.write(() => this.catalog.put(uuidHexOf(info), bytes));
  }

  // `records` holds no entry for a live document once startup has moved them into `docs`.
  collectionDropped(info: CollectionInfo, idKeys: Iterable<string>): void {
    const hex = uuidHexOf(info);
    this.write(() => this.catalog.remove(hex));
    for (const idKey of idKeys) {
      const key = docKey(hex, idKey);
      this.write(() => this.docs.remove(key));
    }
  }

  documentSaved(info: CollectionInfo, idKey: string, bytes: Buffer, record: number): void {
    const key = docKey(uuidHexOf(info), idKey);
    const value = withRecord(bytes, record);
    this.write(() => this.docs.put(key, value));
  }

  documentRemoved(info: CollectionInfo, idKey: string): void {
    const key = docKey(uuidHexOf(info), idKey);
    this.write(() => this.docs.remove(key));
  }

  /** Every write asked for before the call is committed and synced (or its failure thrown). */
  async flush(): Promise<void> {
    // Held writes (only while a batch commits) are all issued together once it is synced.
    if (this.held.length > 0) await this.committed;
    await this.last.catch(() => undefined);
    await this.env.flushed;
    if (this.failure) throw this.failure;
  }

  async close(): Promise<void> {
    await this.flush();
    await this.env.close();
  }
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
      loaded.forEach(([idKey, bytes], i) => {
        const wanted = docKey(currentHex!, idKey);
        const actual = batchKeys[i]!;
        const record = batchRecords[i] ?? 0;
        // A stored key that no longer matches the _id key function is rewritten (with its record number).
        if (wanted[1] !== actual[1]) {
          void docs.remove(actual);
          void docs.put(wanted, withRecord(bytes, record));
        } else if (batchLegacy[i]![0]) {
          void docs.put(wanted, withRecord(bytes, record));
        }
        // After the put: lmdb applies writes in call order, so a crash in between keeps the number somewhere.
        if (batchLegacy[i]![1]) void records.remove(actual);
      });
    } else {
      // Documents of a dropped collection whose removal did not reach the disk.
      for (const key of batchKeys) {
        void docs.remove(key);
        void records.remove(key);
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
    void records.remove([legacyKey.slice(0, slash), legacyKey.slice(slash + 1)]);
  }
}
