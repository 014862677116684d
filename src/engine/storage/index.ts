/** The storage layer's public face: the interface and its two implementations. */
export type { CollectionInfo, CollectionSizes, FlushOptions, Storage, StorageStats, StoredBytes } from './types.js';
export { createMemoryStorage } from './memory-storage.js';
export { openLmdbStorage } from './lmdb-storage.js';
export { BACKUP_MANIFEST, BackupRefused, restoreBackup, verifyBackup } from './backup.js';
export type { BackupManifest } from './backup.js';
export { describeFailure, mustStopNow, waitsForSpace, whenSpaceIsBack } from './storage-failure.js';
export { startTtlSweeper, sweepOnce } from './ttl-sweeper.js';
export type { TtlSweeper, TtlSweeperOptions } from './ttl-sweeper.js';
export { canonicalKey } from './canonical-key.js';
/** Stored BSON bytes -> value model (with regexes kept exact), for callers holding raw bytes. */
export { decodeStoredDocument } from './bson-codec.js';
/** The stored bytes of a document a scan decoded (for replies that splice them). */
export { storedBytesOf } from './bson-codec.js';
