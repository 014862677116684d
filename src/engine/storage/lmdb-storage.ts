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
 *   docs:    [<collection uuid hex>, <_id key>] -> the document
 *   records: [<collection uuid hex>, <_id key>] -> its record number (natural
 *            order: insertion order survives a restart, as mongod's RecordIds)
 * Keying documents by the collection's uuid makes a dropped-then-recreated
 * collection a different key space, and lets startup discard documents
 * whose collection is gone.
 *
 * Writes use lmdb's async put/remove: lmdb batches everything issued in one
 * event turn into one transaction and applies the queue in call order, so
 * disk order is memory order. flush() awaits the last write and lmdb's
 * `flushed` (synced to disk), which is what makes an acknowledged write
 * survive kill -9 or a power cut. Default sync flags keep the files
 * crash-safe (no noSync / mapAsync).
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

class LmdbJournal implements StorageJournal {
  private last: Promise<unknown> = Promise.resolve();
  private failure: unknown;

  constructor(
    private readonly env: RootDatabase,
    private readonly catalog: Database<Buffer, string>,
    private readonly docs: Database<Buffer, [string, string]>,
    private readonly records: Database<number, [string, string]>,
  ) {}

  /** Remembers the newest write; lmdb resolves writes in order. */
  private track(write: Promise<unknown>): void {
    this.last = write;
    write.catch((err: unknown) => {
      this.failure ??= err;
    });
  }

  collectionSaved(info: CollectionInfo): void {
    const record = { db: info.db, name: info.name, uuid: info.uuid, options: info.options, indexes: info.indexes };
    this.track(this.catalog.put(uuidHexOf(info), Buffer.from(BSON.serialize(record, { checkKeys: false, ignoreUndefined: true }))));
  }

  collectionDropped(info: CollectionInfo, idKeys: Iterable<string>): void {
    const hex = uuidHexOf(info);
    this.track(this.catalog.remove(hex));
    for (const idKey of idKeys) {
      this.track(this.docs.remove(docKey(hex, idKey)));
      this.track(this.records.remove(docKey(hex, idKey)));
    }
  }

  documentSaved(info: CollectionInfo, idKey: string, bytes: Buffer, record?: number): void {
    const key = docKey(uuidHexOf(info), idKey);
    this.track(this.docs.put(key, bytes));
    if (record !== undefined) this.track(this.records.put(key, record));
  }

  documentRemoved(info: CollectionInfo, idKey: string): void {
    const key = docKey(uuidHexOf(info), idKey);
    this.track(this.docs.remove(key));
    this.track(this.records.remove(key));
  }

  async flush(): Promise<void> {
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

  const recordOf = new Map<string, number>();
  for (const { key, value } of records.getRange()) recordOf.set(`${key[0]}/${key[1]}`, value);

  let currentHex: string | undefined;
  let batch: Buffer[] = [];
  let batchKeys: Array<[string, string]> = [];
  const finish = (): void => {
    const state = currentHex === undefined ? undefined : byUuid.get(currentHex);
    if (state) {
      const batchRecords = batchKeys.map((k) => recordOf.get(`${k[0]}/${k[1]}`));
      const loaded = state.data.restore(batch, batchRecords);
      // A stored key that no longer matches the _id key function is rewritten (with its record number).
      loaded.forEach(([idKey, bytes], i) => {
        const wanted = docKey(currentHex!, idKey);
        const actual = batchKeys[i]!;
        if (wanted[1] !== actual[1]) {
          void docs.remove(actual);
          void docs.put(wanted, bytes);
          void records.remove(actual);
          if (batchRecords[i] !== undefined) void records.put(wanted, batchRecords[i]!);
        }
      });
    } else {
      // Documents of a dropped collection whose removal did not reach the disk.
      for (const key of batchKeys) {
        void docs.remove(key);
        void records.remove(key);
      }
    }
    batch = [];
    batchKeys = [];
  };
  for (const { key, value } of docs.getRange()) {
    if (key[0] !== currentHex) {
      if (currentHex !== undefined) finish();
      currentHex = key[0];
    }
    batch.push(value);
    batchKeys.push(key);
  }
  if (currentHex !== undefined) finish();
}

