import { BSON, ObjectId, type Document } from 'mongodb';

/**
 * A stored record's BSON bytes as the driver's `find` would answer them with
 * its default options (bson's `deserialize`: numbers promoted, int64 as a
 * number when it is exact, UTF-8 checked), for the element types records of
 * this service hold: string, double, int32, int64, bool, null, date,
 * ObjectId, sub-document and array. Anything else (binary, decimal, regex,
 * a DBRef's `$` keys, `__proto__`, bytes out of place) goes to bson's own
 * `deserialize` for the whole record, which answers or throws as the driver
 * would.
 *
 * Why: bson decodes every key and short string through a JS array and
 * `String.fromCharCode`, and a key newly decoded is a new string V8 must look
 * up in its string table on every property store. Of a page of 20 menus that
 * was about a third of the bytes the service allocated and a tenth of its
 * CPU. Here keys and short strings come from a small table of the texts last
 * decoded (records repeat their keys, and mostly the same tenants, users,
 * meal types, days, dishes), a longer string is one native slice
 * (test/shared/bson-documents.test.ts holds the two answers equal).
 */
export function decodeDocument(bytes: Uint8Array): Document {
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // Only a buffer that is exactly one document (as the driver's raw records are); bson judges any other.
  const decoded = buffer.length >= 5 && int32(buffer, 0) === buffer.length ? readDocument(buffer, 0, buffer.length, false) : NOT_HANDLED;
  return decoded === NOT_HANDLED ? BSON.deserialize(buffer, { validation: { utf8: true } }) : (decoded as Document);
}

/** Returned (never thrown: cheaper) when a record holds something left to bson. */
const NOT_HANDLED = Symbol('not handled');

const TWO_TO_32 = 2 ** 32;
/** bson 7's ObjectId also takes its 12 bytes at an offset (its typings leave that out): no copy of them. */
const ObjectIdAt = ObjectId as unknown as new (bytes: Uint8Array, offset: number) => ObjectId;
/** Buffer's own UTF-8 decoder, without `toString`'s argument handling around it (about a tenth of the decoding). */
const utf8Slice = (Buffer.prototype as unknown as { utf8Slice(this: Buffer, from: number, to: number): string }).utf8Slice;

/**
 * The texts last decoded, by a hash of their bytes (a slot holds one; a
 * newer text of the same slot replaces it). Only texts of at most
 * MAX_REMEMBERED bytes, all ASCII: compared byte for character.
 */
const REMEMBERED_SLOTS = 4096; // a power of two
const MAX_REMEMBERED = 32;
const remembered: Array<string | undefined> = new Array<string | undefined>(REMEMBERED_SLOTS);

function readDocument(buffer: Buffer, start: number, size: number, isArray: boolean): Document | unknown[] | typeof NOT_HANDLED {
  const end = start + size - 1; // the terminating 0
  if (size < 5 || end >= buffer.length || buffer[end] !== 0) return NOT_HANDLED;
  const target: Record<string, unknown> | unknown[] = isArray ? [] : {};
  let at = start + 4;
  while (at < end) {
    const type = buffer[at++]!;
    // The key: a C string. Arrays' keys are their indexes, not needed.
    const keyStart = at;
    while (at < end && buffer[at] !== 0) at += 1;
    if (at >= end) return NOT_HANDLED;
    const key = isArray ? '' : keyAt(buffer, keyStart, at);
    at += 1;
    if (key === null) return NOT_HANDLED;
    let value: unknown;
    switch (type) {
      case 0x01: // double
        if (at + 8 > end) return NOT_HANDLED;
        value = buffer.readDoubleLE(at);
        at += 8;
        break;
      case 0x02: {
        // string: int32 length (with its 0), the UTF-8 bytes, 0
        if (at + 4 > end) return NOT_HANDLED;
        const length = int32(buffer, at);
        const from = at + 4;
        const to = from + length - 1;
        if (length <= 0 || to >= end || buffer[to] !== 0) return NOT_HANDLED;
        const text = textAt(buffer, from, to);
        // bson refuses invalid UTF-8 in a string.
        if (text === null) return NOT_HANDLED;
        value = text;
        at = to + 1;
        break;
      }
      case 0x03: // sub-document
      case 0x04: {
        // array
        if (at + 4 > end) return NOT_HANDLED;
        const length = int32(buffer, at);
        value = readDocument(buffer, at, length, type === 0x04);
        if (value === NOT_HANDLED) return NOT_HANDLED;
        at += length;
        break;
      }
      case 0x07: // ObjectId
        if (at + 12 > end) return NOT_HANDLED;
        value = new ObjectIdAt(buffer, at);
        at += 12;
        break;
      case 0x08: // bool
        if (buffer[at]! > 1) return NOT_HANDLED;
        value = buffer[at++] === 1;
        break;
      case 0x09: // date: int64 milliseconds
        if (at + 8 > end) return NOT_HANDLED;
        value = new Date(int32(buffer, at + 4) * TWO_TO_32 + (int32(buffer, at) >>> 0));
        at += 8;
        break;
      case 0x0a: // null
        value = null;
        break;
      case 0x10: // int32
        if (at + 4 > end) return NOT_HANDLED;
        value = int32(buffer, at);
        at += 4;
        break;
      case 0x12: {
        // int64: a number when exact (bson answers a Long beyond)
        if (at + 8 > end) return NOT_HANDLED;
        const number = int32(buffer, at + 4) * TWO_TO_32 + (int32(buffer, at) >>> 0);
        if (!Number.isSafeInteger(number)) return NOT_HANDLED;
        value = number;
        at += 8;
        break;
      }
      default:
        return NOT_HANDLED;
    }
    if (isArray) (target as unknown[]).push(value);
    else (target as Record<string, unknown>)[key] = value;
  }
  return at === end ? target : NOT_HANDLED;
}

/**
 * The key between `from` and `to`, or null for a key bson treats apart
 * (`$`-prefixed: a possible DBRef; `__proto__`) or decodes otherwise (bson
 * puts U+FFFD for invalid bytes in a key, where textAt gives up).
 */
function keyAt(buffer: Buffer, from: number, to: number): string | null {
  const key = textAt(buffer, from, to);
  return key === null || key.charCodeAt(0) === 0x24 || key === '__proto__' ? null : key;
}

/** The UTF-8 text between `from` and `to`, or null when it is not valid UTF-8. */
function textAt(buffer: Buffer, from: number, to: number): string | null {
  if (to - from > MAX_REMEMBERED) return checked(utf8Slice.call(buffer, from, to));
  let hash = 0x811c9dc5; // FNV-1a
  for (let i = from; i < to; i += 1) hash = Math.imul(hash ^ buffer[i]!, 0x01000193);
  const slot = hash & (REMEMBERED_SLOTS - 1);
  const known = remembered[slot];
  if (known !== undefined && sameText(known, buffer, from, to)) return known;
  const text = checked(utf8Slice.call(buffer, from, to));
  if (text !== null && text.length === to - from) remembered[slot] = text;
  return text;
}

/** null for a text where the decoder put U+FFFD (cheap to search in an ASCII string). */
function checked(text: string): string | null {
  return text.includes('\uFFFD') ? null : text;
}

/** Whether `text` (ASCII) is these bytes. */
function sameText(text: string, buffer: Buffer, from: number, to: number): boolean {
  if (text.length !== to - from) return false;
  for (let i = 0; i < text.length; i += 1) if (text.charCodeAt(i) !== buffer[from + i]) return false;
  return true;
}

/** The little-endian int32 at `at` (Buffer's readInt32LE checks bounds the callers checked). */
function int32(buffer: Buffer, at: number): number {
  return buffer[at]! | (buffer[at + 1]! << 8) | (buffer[at + 2]! << 16) | (buffer[at + 3]! << 24);
}
