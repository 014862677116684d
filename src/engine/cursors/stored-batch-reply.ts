import { BSON, Long } from 'bson';
import type { Document } from '../query/types.js';
import { decodeStoredDocument, storedBytesOf, type StoredBytes } from '../storage/index.js';
import { encodeCursorReply, SELF_ENCODER, type BatchKey, type ReplyAllocator } from '../wire/index.js';

/**
 * A cursor reply whose wire form splices the stored bytes of its documents
 * (a find's, read straight from storage) instead of serializing them again.
 * Only a cursor opened with `storedBytes` (find without projection, not on a
 * view: nothing between the scan and the reply builds or changes a
 * document) gets it. Its documents may be partial (only the fields the
 * filter read, ReadOptions.onlyStoredBytes), so they never leave it: read in
 * process, the batch is decoded whole from the stored bytes, and the reply
 * is then serialized as it reads (BSON.serialize, through toBSON).
 */
export function storedBatchReply(ns: string, batchKey: BatchKey, batch: Document[], id: bigint): Document {
  const cursor = batchKey === 'firstBatch' ? new StoredFirstBatch(ns, batch, id) : new StoredNextBatch(ns, batch, id);
  return { cursor, [SELF_ENCODER]: encodeStoredBatchReply };
}

abstract class StoredBatchCursor {
  readonly id: Long;
  readonly ns: string;
  readonly #scanned: readonly Document[];
  #whole: Document[] | undefined;

  constructor(ns: string, scanned: readonly Document[], id: bigint) {
    this.id = Long.fromBigInt(id);
    this.ns = ns;
    this.#scanned = scanned;
  }

  abstract get batchKey(): BatchKey;

  /** The batch, decoded whole from the stored bytes on first read (in-process callers). */
  protected get batch(): Document[] {
    return (this.#whole ??= this.#scanned.map((doc) => {
      const bytes = storedBytesOf(doc);
      return bytes === undefined ? doc : decodeStoredDocument(bytes);
    }));
  }

  /** The stored bytes of every document while the batch was never read in process, else undefined. */
  get pristineBytes(): StoredBytes[] | undefined {
    if (this.#whole) return undefined;
    const bytes: StoredBytes[] = new Array(this.#scanned.length);
    for (let i = 0; i < this.#scanned.length; i++) {
      const stored = storedBytesOf(this.#scanned[i]);
      if (stored === undefined) return undefined;
      bytes[i] = stored;
    }
    return bytes;
  }

  /** What BSON.serialize writes for it (the raw form no longer applies). */
  toBSON(): Document {
    return { [this.batchKey]: this.batch, id: this.id, ns: this.ns };
  }
}

/** Prototype getters: an accessor defined per reply costs more than the decode it saves. */
class StoredFirstBatch extends StoredBatchCursor {
  get batchKey(): BatchKey {
    return 'firstBatch';
  }

  get firstBatch(): Document[] {
    return this.batch;
  }
}

class StoredNextBatch extends StoredBatchCursor {
  get batchKey(): BatchKey {
    return 'nextBatch';
  }

  get nextBatch(): Document[] {
    return this.batch;
  }
}

function encodeStoredBatchReply(body: Document, allocate?: ReplyAllocator): Uint8Array {
  const cursor = body.cursor;
  // The raw form holds only while the reply is exactly as built plus the dispatcher's `ok: 1`.
  if (!(cursor instanceof StoredBatchCursor) || body.ok !== 1 || Object.keys(body).length !== 2) return BSON.serialize(body);
  const bytes = cursor.pristineBytes;
  return bytes ? encodeCursorReply(cursor.ns, cursor.id.toBigInt(), cursor.batchKey, bytes, allocate) : BSON.serialize(body);
}
