import { BSON, Long } from 'bson';
import type { Document } from '../query/types.js';
import { storedBytesOf } from '../storage/index.js';
import { encodeCursorReply, SELF_ENCODER, type BatchKey } from '../wire/index.js';

/**
 * A cursor reply whose wire form splices the stored bytes of its documents
 * (a find's, read straight from storage) instead of serializing them again.
 * Only a cursor opened with `storedBytes` (find without projection, not on a
 * view: nothing between the scan and the reply builds or changes a
 * document) gets it; the encoder still falls back to BSON.serialize when a
 * document has no stored bytes or the reply is no longer as built.
 */
export function storedBatchReply(ns: string, batchKey: BatchKey, batch: Document[], id: bigint): Document {
  const cursor = { [batchKey]: batch, id: Long.fromBigInt(id), ns };
  const keys = `${batchKey},id,ns`;
  const encode = (body: Document): Uint8Array => {
    const asBuilt =
      body.cursor === cursor && body.ok === 1 && Object.keys(body).join() === 'cursor,ok' && Object.keys(cursor).join() === keys &&
      cursor[batchKey] === batch && cursor.ns === ns && (cursor.id as Long).toBigInt() === id;
    const bytes = asBuilt ? allStoredBytes(batch) : undefined;
    return bytes ? encodeCursorReply(ns, id, batchKey, bytes) : BSON.serialize(body);
  };
  return { cursor, [SELF_ENCODER]: encode };
}

/** The stored bytes of every document, or undefined when one has none. */
function allStoredBytes(batch: readonly Document[]): Uint8Array[] | undefined {
  const bytes: Uint8Array[] = new Array(batch.length);
  for (let i = 0; i < batch.length; i++) {
    const stored = storedBytesOf(batch[i]);
    if (!stored) return undefined;
    bytes[i] = stored;
  }
  return bytes;
}
