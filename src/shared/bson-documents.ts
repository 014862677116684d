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
 * CPU. Here keys are decoded once and reused, and strings are one native
 * slice each (test/shared/bson-documents.test.ts holds the two answers equal).
 */
export function decodeDocument(bytes: Uint8Array): Document {
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const decoded = buffer.length >= 5 ? readDocument(buffer, 0, buffer.readInt32LE(0), false) : NOT_HANDLED;
  return decoded === NOT_HANDLED ? BSON.deserialize(buffer, { validation: { utf8: true } }) : (decoded as Document);
}

/** Returned (never thrown: cheaper) when a record holds something left to bson. */
const NOT_HANDLED = Symbol('not handled');

const TWO_TO_32 = 2 ** 32;
/** bson 7's ObjectId also takes its 12 bytes at an offset (its typings leave that out): no copy of them. */
const ObjectIdAt = ObjectId as unknown as new (bytes: Uint8Array, offset: number) => ObjectId;
/** Keys remembered (records of one collection repeat the same few dozen). */
const MAX_KEYS = 1024;
const keys = new Map<number, string>();

function readDocument(buffer: Buffer, start: number, size: number, isArray: boolean): Document | unknown[] | typeof NOT_HANDLED {
  const end = start + size - 1; // the terminating 0
  if (size < 5 || end >= buffer.length || buffer[end] !== 0) return NOT_HANDLED;
  const target: Record<string, unknown> | unknown[] = isArray ? [] : {};
  let at = start + 4;
  while (at < end) {
    const type = buffer[at++]!;
    // The key: a C string. Arrays' keys are their indexes, not needed.
    let hash = 0x811c9dc5;
    const keyStart = at;
    while (at < end && buffer[at] !== 0) hash = Math.imul(hash ^ buffer[at++]!, 0x01000193);
    if (at >= end) return NOT_HANDLED;
    const key = isArray ? '' : keyAt(buffer, keyStart, at, hash);
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
        const length = buffer.readInt32LE(at);
        const from = at + 4;
        const to = from + length - 1;
        if (length <= 0 || to >= end || buffer[to] !== 0) return NOT_HANDLED;
        const text = buffer.toString('utf8', from, to);
        // A U+FFFD may stand for invalid bytes, which bson refuses (the search is cheap on an ASCII string).
        if (text.includes('\uFFFD')) return NOT_HANDLED;
        value = text;
        at = to + 1;
        break;
      }
      case 0x03: // sub-document
      case 0x04: {
        // array
        if (at + 4 > end) return NOT_HANDLED;
        const length = buffer.readInt32LE(at);
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
        value = new Date(buffer.readInt32LE(at + 4) * TWO_TO_32 + buffer.readUInt32LE(at));
        at += 8;
        break;
      case 0x0a: // null
        value = null;
        break;
      case 0x10: // int32
        if (at + 4 > end) return NOT_HANDLED;
        value = buffer.readInt32LE(at);
        at += 4;
        break;
      case 0x12: {
        // int64: a number when exact (bson answers a Long beyond)
        if (at + 8 > end) return NOT_HANDLED;
        const number = buffer.readInt32LE(at + 4) * TWO_TO_32 + buffer.readUInt32LE(at);
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
 * The key between `from` and `to`, the same string each time it recurs, or
 * null for a key bson treats apart (`$`-prefixed: a possible DBRef;
 * `__proto__`).
 */
function keyAt(buffer: Buffer, from: number, to: number, hash: number): string | null {
  const known = keys.get(hash);
  if (known !== undefined && sameKey(known, buffer, from, to)) return known;
  const key = buffer.toString('utf8', from, to);
  if (key.startsWith('$') || key === '__proto__' || key.includes('\uFFFD')) return null;
  if (keys.size < MAX_KEYS && key.length === to - from) keys.set(hash, key);
  return key;
}

/** Whether `key` is these bytes (only keys of one byte per character are remembered). */
function sameKey(key: string, buffer: Buffer, from: number, to: number): boolean {
  if (key.length !== to - from) return false;
  for (let i = 0; i < key.length; i += 1) if (key.charCodeAt(i) !== buffer[from + i]) return false;
  return true;
}
