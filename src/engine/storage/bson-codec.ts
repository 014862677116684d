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

export function encodeDocument(doc: Document): Buffer {
  const bytes = BSON.serialize(doc, { checkKeys: false, ignoreUndefined: true });
  if (bytes.byteLength > MAX_DOCUMENT_BYTES) {
    throw mongoError(
      'Location10334',
      `BSONObj size: ${bytes.byteLength} (0x${bytes.byteLength.toString(16).toUpperCase()}) is invalid. ` +
        `Size must be between 0 and ${MAX_DOCUMENT_BYTES}(16MB)`,
    );
  }
  // serialize() returns a fresh array: wrap it, no copy.
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export function decodeDocument(bytes: Uint8Array): Document {
  // bsonRegExp: a stored regex keeps its exact options (a JS RegExp cannot hold "x").
  return fromBsonDocument(BSON.deserialize(bytes, { promoteValues: false, bsonRegExp: true }) as Document);
}
