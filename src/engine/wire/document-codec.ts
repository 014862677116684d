import { BSON } from 'bson';
import { fromBsonDocument } from '../query/index.js';
import type { Document } from '../query/types.js';
import { WireProtocolError } from './wire-protocol-error.js';

/**
 * BSON documents inside a frame. Incoming documents are decoded with
 * `promoteValues: false` and converted into the engine's value model (so an
 * int32, a double and an int64 keep their types), and regexes as BSONRegExp
 * with their options as sent: a JS RegExp would turn `s` into `g` (the
 * driver sends a RegExp's `g` as `s`, which mongod reads as dotAll) and drop
 * `x`. Outgoing ones are plain `BSON.serialize`.
 */
const DESERIALIZE_OPTIONS = { promoteValues: false, bsonRegExp: true } as const;

/** Size of the BSON document starting at `start`, checked against `end`. */
export function documentSizeAt(frame: Buffer, start: number, end: number, what: string): number {
  if (start + 5 > end) throw new WireProtocolError(`truncated ${what}`);
  const size = frame.readInt32LE(start);
  if (size < 5 || start + size > end) throw new WireProtocolError(`${what} length ${size} does not fit its message`);
  return size;
}

export function decodeDocument(bytes: Buffer, what: string): Document {
  try {
    return fromBsonDocument(BSON.deserialize(bytes, DESERIALIZE_OPTIONS) as Document);
  } catch (err) {
    // bson's messages name lengths and offsets, not values; cap them anyway.
    throw new WireProtocolError(`invalid BSON in ${what}: ${String((err as Error).message).slice(0, 200)}`);
  }
}

/**
 * A body may carry its own encoder under this symbol key (BSON.serialize skips symbols): a fast
 * path that already holds stored BSON bytes splices them into its reply
 * instead of decoding and re-serializing them. The encoder must produce
 * exactly what `BSON.serialize(body)` would, and fall back to it whenever
 * the body no longer has the shape it was built for.
 */
export const SELF_ENCODER = Symbol('selfEncoder');

/** Where an encoder may put a large body: memory the caller reuses once the bytes are written (reply-memory.ts). */
export type ReplyAllocator = (size: number) => Buffer;

export type BodyEncoder = (doc: Document, allocate?: ReplyAllocator) => Uint8Array;

export function encodeDocument(doc: Document, allocate?: ReplyAllocator): Uint8Array {
  const encode = (doc as { [SELF_ENCODER]?: BodyEncoder })[SELF_ENCODER];
  return encode ? encode(doc, allocate) : BSON.serialize(doc);
}
