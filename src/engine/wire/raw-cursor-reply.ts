import type { ReplyAllocator } from './document-codec.js';

/**
 * The BSON of `{cursor: {firstBatch|nextBatch: [...docs], id: <int64>, ns}, ok: 1}`
 * written by hand around documents that are already BSON (stored bytes), so
 * a read sends its documents without decoding and re-encoding them. The
 * bytes equal `BSON.serialize` of that object (`id` a Long, `ok: 1` as an
 * int32, as the dispatcher's `ok: 1` serializes). Fixed parts are prebuilt
 * byte strings.
 */
const latin1 = (s: string) => Buffer.from(s, 'latin1');
/** type document, "cursor" (its size follows) */
const CURSOR_KEY = latin1('\x03cursor\0');
/** type array, "firstBatch" / "nextBatch" (its size follows) */
const BATCH_KEYS = { firstBatch: latin1('\x04firstBatch\0'), nextBatch: latin1('\x04nextBatch\0') };
/** end of the batch array; int64 "id" (its value follows) */
const ID_KEY = latin1('\0\x12id\0');
/** string "ns" (its length follows) */
const NS_KEY = latin1('\x02ns\0');
/** end of cursor; int32 "ok" 1; end of reply */
const OK_ONE_END = latin1('\0\x10ok\0\x01\0\0\0\0');

export type BatchKey = keyof typeof BATCH_KEYS;

/**
 * A document's BSON: bytes, or a latin1 string holding one byte per char
 * (the storage's form, written as it is).
 */
export type DocumentBytes = Uint8Array | string;

export function encodeExhaustedFirstBatchReply(ns: string, docs: readonly DocumentBytes[], allocate?: ReplyAllocator): Buffer {
  return encodeCursorReply(ns, 0n, 'firstBatch', docs, allocate);
}

/** `id`: the cursor id as a signed int64 (0n once exhausted). `allocate`: where the reply goes (default: a new Buffer). */
export function encodeCursorReply(
  ns: string,
  id: bigint,
  batchKey: BatchKey,
  docs: readonly DocumentBytes[],
  allocate: ReplyAllocator = Buffer.allocUnsafe,
): Buffer {
  const nsUtf8 = utf8Of(ns);
  const nsBytes = nsUtf8.length;
  const batchKeyBytes = BATCH_KEYS[batchKey];
  let arraySize = 4 + 1;
  for (let i = 0; i < docs.length; i++) arraySize += 1 + indexKeyLength(i) + 1 + docs[i].length;
  // The array's final zero is ID_KEY's first byte, and the cursor's final zero OK_ONE_END's.
  const cursorSize = 4 + batchKeyBytes.length + arraySize - 1 + ID_KEY.length + 8 + NS_KEY.length + 4 + nsBytes + 1 + 1;
  const total = 4 + CURSOR_KEY.length + cursorSize + OK_ONE_END.length - 1;
  const out = allocate(total);
  let at = writeInt32(out, total, 0);
  out.set(CURSOR_KEY, at);
  at = writeInt32(out, cursorSize, at + CURSOR_KEY.length);
  out.set(batchKeyBytes, at);
  at = writeInt32(out, arraySize, at + batchKeyBytes.length);
  for (let i = 0; i < docs.length; i++) {
    out[at++] = 0x03;
    at += i < 10 ? ((out[at] = 0x30 + i), 1) : out.write(String(i), at, 'latin1');
    out[at++] = 0;
    const doc = docs[i]!;
    if (typeof doc === 'string') out.write(doc, at, 'latin1');
    else out.set(doc, at);
    at += doc.length;
  }
  out.set(ID_KEY, at);
  at = out.writeBigInt64LE(id, at + ID_KEY.length);
  out.set(NS_KEY, at);
  at = writeInt32(out, nsBytes + 1, at + NS_KEY.length);
  out.set(nsUtf8, at);
  at += nsBytes;
  out[at++] = 0;
  out.set(OK_ONE_END, at);
  return out;
}

/** Namespaces repeat: their UTF-8 bytes are kept (bounded, cleared when full). */
const nsCache = new Map<string, Buffer>();
const NS_CACHE_MAX = 1024;

function utf8Of(ns: string): Buffer {
  let bytes = nsCache.get(ns);
  if (!bytes) {
    if (nsCache.size >= NS_CACHE_MAX) nsCache.clear();
    nsCache.set(ns, (bytes = Buffer.from(ns, 'utf8')));
  }
  return bytes;
}

function indexKeyLength(i: number): number {
  return i < 10 ? 1 : String(i).length;
}

function writeInt32(out: Buffer, value: number, at: number): number {
  out[at] = value;
  out[at + 1] = value >>> 8;
  out[at + 2] = value >>> 16;
  out[at + 3] = value >>> 24;
  return at + 4;
}
