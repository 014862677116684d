import { BSON } from 'bson';
import { DocumentTooLargeError } from '../errors.js';
import { byteViewsConverted, fromBsonDocument } from '../query/index.js';
import type { Document } from '../query/index.js';
import type { StoredBytes } from './types.js';

/**
 * Documents live as BSON bytes: every read deserializes a private copy, and
 * the bytes are what lmdb stores (there followed by the record number).
 * `promoteValues: false` keeps Int32, Double, Long and Decimal128
 * distinguishable; fromBson maps them into the value model (model/document.ts).
 */
/** mongod's limit for a document a user stores (its 16 KiB of internal headroom is for fields the engine does not add). */
export const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;

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
  return new DocumentTooLargeError(size, MAX_DOCUMENT_BYTES);
}

export function decodeStoredDocument(bytes: Uint8Array | StoredBytes): Document {
  // Small strings go into a slab of Node's Buffer pool; nothing keeps the Buffer once decoded...
  const buffer = typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : bytes;
  const views = byteViewsConverted();
  const doc = decode(buffer);
  if (byteViewsConverted() === views || ownsItsMemory(buffer)) return doc;
  // ...unless the document holds a Binary (a view into them): held, it would
  // pin the whole slab (64 KiB in Node 26), or see a reused buffer overwritten. Such a
  // document decodes again from memory of its own, of its exact size.
  return decode(exactCopy(bytes));
}

function decode(buffer: Uint8Array): Document {
  // bsonRegExp: a stored regex keeps its exact options (a JS RegExp cannot hold "x").
  return fromBsonDocument(BSON.deserialize(buffer, { promoteValues: false, bsonRegExp: true }) as Document);
}

function ownsItsMemory(buffer: Uint8Array): boolean {
  return buffer.byteOffset === 0 && buffer.byteLength === buffer.buffer.byteLength;
}

function exactCopy(bytes: Uint8Array | StoredBytes): Buffer {
  const own = Buffer.allocUnsafeSlow(bytes.length);
  if (typeof bytes === 'string') own.write(bytes, 0, 'latin1');
  else own.set(bytes);
  return own;
}

/**
 * The stored bytes of each document a scan decoded, keyed by the decoded
 * object, so that a reply carrying it unchanged can splice the bytes instead
 * of serializing it again (cursors/stored-batch-reply.ts). Keyed by identity:
 * a copy (projection, pipeline stage) has no entry. Valid only while the
 * object is not changed in place, which the reply's builder must ensure.
 */
const scannedBytes = new WeakMap<Document, StoredBytes>();

/** `names`: decode only these top-level fields (a partial document; fieldNames()). */
export function decodeScannedDocument(stored: StoredBytes, names?: readonly Buffer[]): Document {
  const doc = names ? decodeTopLevelFields(inScratch(stored), names) : decodeStoredDocument(stored);
  scannedBytes.set(doc, stored);
  return doc;
}

/** The stored bytes `doc` was decoded from by a scan, if it was. */
export function storedBytesOf(doc: Document): StoredBytes | undefined {
  return scannedBytes.get(doc);
}

/**
 * Where a scan reads a document's elements: one Buffer, reused, since
 * decodeTopLevelFields copies what it keeps (and decodeStoredDocument gives
 * a Binary among them memory of its own). A Buffer per scanned document
 * would be memory outside V8's heap again, and a list page's documents
 * live long enough to reach the old generation (CollectionData).
 */
const scratch = Buffer.allocUnsafeSlow(64 * 1024);

function inScratch(stored: StoredBytes): Buffer {
  // A larger document is rare: it gets a Buffer of its own.
  if (stored.length > scratch.length) return Buffer.from(stored, 'latin1');
  scratch.write(stored, 0, 'latin1');
  return scratch.subarray(0, stored.length);
}

/** Field names as the UTF-8 bytes a BSON element's name is compared with. */
export function fieldNames(fields: ReadonlySet<string>): Buffer[] {
  return [...fields].map((name) => Buffer.from(name, 'utf8'));
}

/**
 * The document with only the named top-level fields: an element walk
 * (chosenElements) skips the others unread, and the chosen elements, copied into one small
 * document, decode as a whole one would (same options, same value model).
 */
function decodeTopLevelFields(bytes: Uint8Array, names: readonly Buffer[]): Document {
  // [start, end) of each chosen element: its type byte, the name, its zero, the value.
  const chosen = chosenElements(bytes, names);
  let size = 5;
  for (let i = 0; i < chosen.length; i += 2) size += chosen[i + 1]! - chosen[i]!;
  const partial = Buffer.allocUnsafe(size);
  partial.writeInt32LE(size, 0);
  let at = 4;
  for (let i = 0; i < chosen.length; i += 2) {
    partial.set(bytes.subarray(chosen[i]!, chosen[i + 1]!), at);
    at += chosen[i + 1]! - chosen[i]!;
  }
  partial[at] = 0;
  return decodeStoredDocument(partial);
}

/**
 * Start and end offsets (flat pairs) of the top-level elements named in
 * `names`, found by stepping over the stored BSON element by element
 * without materialising the others. The bytes are the engine's own (written
 * by BSON.serialize); a type it does not know hands over to bson's walk.
 */
function chosenElements(bytes: Uint8Array, names: readonly Buffer[]): number[] {
  const chosen: number[] = [];
  const last = bytes.length - 1;
  let at = 4;
  while (at < last) {
    const type = bytes[at]!;
    const nameStart = at + 1;
    const nameEnd = zeroAt(bytes, nameStart);
    const end = nameEnd < 0 ? -1 : valueEnd(bytes, type, nameEnd + 1);
    if (end <= nameEnd || end > last) return chosenByBson(bytes, names);
    const nameLength = nameEnd - nameStart;
    for (const name of names) {
      if (name.length === nameLength && equalAt(bytes, nameStart, name)) {
        chosen.push(at, end);
        break;
      }
    }
    at = end;
  }
  return chosen;
}

/** Where a value of BSON `type` starting at `at` ends; -1 for a type not known here. */
function valueEnd(bytes: Uint8Array, type: number, at: number): number {
  switch (type) {
    case 0x01: // double
    case 0x09: // date
    case 0x11: // timestamp
    case 0x12: // int64
      return at + 8;
    case 0x02: // string
    case 0x0d: // code
    case 0x0e: // symbol
      return at + 4 + int32At(bytes, at);
    case 0x03: // document
    case 0x04: // array
    case 0x0f: // code with scope
      return at + int32At(bytes, at);
    case 0x05: // binary: length, subtype, bytes
      return at + 5 + int32At(bytes, at);
    case 0x06: // undefined
    case 0x0a: // null
    case 0x7f: // maxKey
    case 0xff: // minKey
      return at;
    case 0x07: // ObjectId
      return at + 12;
    case 0x08: // bool
      return at + 1;
    case 0x0b: {
      // regex: pattern and options, two cstrings
      const patternEnd = zeroAt(bytes, at);
      const optionsEnd = patternEnd < 0 ? -1 : zeroAt(bytes, patternEnd + 1);
      return optionsEnd < 0 ? -1 : optionsEnd + 1;
    }
    case 0x0c: // DBPointer: string, ObjectId
      return at + 4 + int32At(bytes, at) + 12;
    case 0x10: // int32
      return at + 4;
    case 0x13: // decimal128
      return at + 16;
    default:
      return -1;
  }
}

/** The offset of the zero ending a cstring that starts at `at`; -1 when there is none. */
function zeroAt(bytes: Uint8Array, at: number): number {
  for (let i = at; i < bytes.length; i++) if (bytes[i] === 0) return i;
  return -1;
}

function int32At(bytes: Uint8Array, at: number): number {
  return bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24);
}

function chosenByBson(bytes: Uint8Array, names: readonly Buffer[]): number[] {
  const chosen: number[] = [];
  for (const [, nameOffset, nameLength, offset, length] of BSON.onDemand.parseToElements(bytes)) {
    if (names.some((name) => name.length === nameLength && equalAt(bytes, nameOffset, name))) chosen.push(nameOffset - 1, offset + length);
  }
  return chosen;
}


function equalAt(bytes: Uint8Array, at: number, name: Buffer): boolean {
  for (let i = 0; i < name.length; i++) if (bytes[at + i] !== name[i]) return false;
  return true;
}
