import { BSON } from 'bson';
import { mongoError } from '../errors.js';
import { fromBsonDocument } from '../query/index.js';
import type { Document } from '../query/index.js';

/**
 * Documents live as BSON bytes: every read deserializes a private copy, and
 * the bytes are exactly what lmdb stores. `promoteValues: false` keeps Int32,
 * Double, Long and Decimal128 distinguishable; fromBson maps them into the
 * value model (query/types.ts).
 */
/** mongod's limit for a stored document: 16MB plus 16KB of headroom for internal fields. */
export const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024 + 16 * 1024;

export function encodeStoredDocument(doc: Document): Buffer {
  let bytes: Uint8Array;
  try {
    bytes = BSON.serialize(doc, { checkKeys: false, ignoreUndefined: true });
  } catch (err) {
    // bson serializes into a 17 MiB buffer: a larger document is a RangeError, not a value.
    if (err instanceof RangeError) throw tooLarge(BSON.calculateObjectSize(doc, { ignoreUndefined: true }));
    throw err;
  }
  if (bytes.byteLength > MAX_DOCUMENT_BYTES) throw tooLarge(bytes.byteLength);
  // serialize() returns a fresh array: wrap it, no copy.
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function tooLarge(size: number): Error {
  return mongoError(
    'Location10334',
    `BSONObj size: ${size} (0x${size.toString(16).toUpperCase()}) is invalid. Size must be between 0 and ${MAX_DOCUMENT_BYTES}(16MB)`,
  );
}

export function decodeStoredDocument(bytes: Uint8Array): Document {
  // bsonRegExp: a stored regex keeps its exact options (a JS RegExp cannot hold "x").
  return fromBsonDocument(BSON.deserialize(bytes, { promoteValues: false, bsonRegExp: true }) as Document);
}

/**
 * The stored bytes of each document a scan decoded, keyed by the decoded
 * object, so that a reply carrying it unchanged can splice the bytes instead
 * of serializing it again (cursors/stored-batch-reply.ts). Keyed by identity:
 * a copy (projection, pipeline stage) has no entry. Valid only while the
 * object is not changed in place, which the reply's builder must ensure.
 */
const scannedBytes = new WeakMap<Document, Uint8Array>();

/** `names`: decode only these top-level fields (a partial document; fieldNames()). */
export function decodeScannedDocument(bytes: Uint8Array, names?: readonly Buffer[]): Document {
  const doc = names ? decodeTopLevelFields(bytes, names) : decodeStoredDocument(bytes);
  scannedBytes.set(doc, bytes);
  return doc;
}

/** The stored bytes `doc` was decoded from by a scan, if it was. */
export function storedBytesOf(doc: Document): Uint8Array | undefined {
  return scannedBytes.get(doc);
}

/** Field names as the UTF-8 bytes a BSON element's name is compared with. */
export function fieldNames(fields: ReadonlySet<string>): Buffer[] {
  return [...fields].map((name) => Buffer.from(name, 'utf8'));
}

/**
 * The document with only the named top-level fields: bson's element walk
 * skips the others unread, and the chosen elements, copied into one small
 * document, decode as a whole one would (same options, same value model).
 */
function decodeTopLevelFields(bytes: Uint8Array, names: readonly Buffer[]): Document {
  const chosen: Array<[number, number]> = [];
  let size = 5;
  for (const [, nameOffset, nameLength, offset, length] of BSON.onDemand.parseToElements(bytes)) {
    if (!names.some((name) => name.length === nameLength && equalAt(bytes, nameOffset, name))) continue;
    // An element: its type byte (before the name), the name, its zero, the value.
    chosen.push([nameOffset - 1, offset + length]);
    size += offset + length - (nameOffset - 1);
  }
  const partial = Buffer.allocUnsafe(size);
  partial.writeInt32LE(size, 0);
  let at = 4;
  for (const [start, end] of chosen) {
    partial.set(bytes.subarray(start, end), at);
    at += end - start;
  }
  partial[at] = 0;
  return decodeStoredDocument(partial);
}

function equalAt(bytes: Uint8Array, at: number, name: Buffer): boolean {
  for (let i = 0; i < name.length; i++) if (bytes[at + i] !== name[i]) return false;
  return true;
}
