import type { BackupManifest } from './backup.js';
import type { CollectionInfo, FlushOptions } from './types.js';

/**
 * Where the live storage reports each change, in the order it applies them
 * in memory. The durable storage writes them to lmdb; the in-memory one
 * has no journal.
 */
export interface StorageJournal {
  /** Throws once the journal takes no more changes (closed, or failed): called before a change is applied in memory. */
  assertWritable(): void;
  /** Resolves once a write to disk failed: the journal takes no more changes (storage-failure.ts). */
  readonly failed: Promise<Error>;
  /** Changes reported so far, each numbered in order from 1. */
  reportedCount(): number;
  /**
   * Calls `listener` when a write to disk failed, once the write under way
   * then has settled, with how many of the changes reported the disk holds:
   * those after it were refused and must leave memory too. Writes are
   * refused (assertWritable) from the failure on. The listener returns
   * whether memory now holds what the disk does: if not, the failure is one
   * the engine must stop for at once (storage-failure.ts, mustStopNow).
   */
  onFailure(listener: (kept: number) => boolean): void;
  /** Calls `listener` each time a group of changes is written, with how many are written from the start. */
  onWritten(listener: (written: number) => void): void;
  collectionSaved(info: CollectionInfo): void;
  /** `idKeys`: the documents the collection held. */
  collectionDropped(info: CollectionInfo, idKeys: Iterable<string>): void;
  /** `record`: the document's natural-order number (given on insert, kept by a replacement). */
  documentSaved(info: CollectionInfo, idKey: string, bytes: Buffer, record: number): void;
  documentRemoved(info: CollectionInfo, idKey: string): void;
  /** Bytes of the write-ahead log on disk now. */
  walBytes(): number;
  /** Calls `listener` with each log sync's duration in seconds; returns its removal. */
  onWalSync(listener: (seconds: number) => void): () => void;
  /** Resolves when every change reported so far survives kill -9 (`durable`: a power cut too). */
  flush(options?: FlushOptions): Promise<void>;
  /** An online backup of everything reported so far into `dir` (backup.ts). */
  backup(dir: string): Promise<BackupManifest>;
  close(): Promise<void>;
}
