import type { Document } from '../query/types.js';
import { crc32c } from './crc32c.js';
import { decodeDocument, documentSizeAt, encodeDocument, type ReplyAllocator } from './document-codec.js';
import { readCString, readHeader, writeHeader } from './message-header.js';
import { HEADER_SIZE, MsgFlag, OpCode, UNKNOWN_REQUIRED_FLAGS } from './wire-constants.js';
import { WireProtocolError } from './wire-protocol-error.js';

/**
 * OP_MSG: header, uint32 flagBits, sections, optional CRC-32C checksum.
 * Section kind 0 is the command body; kind 1 is a document sequence
 * (identifier + documents) which we merge into the body as an array field, so
 * handlers see `documents`/`updates`/`deletes` the same way either way.
 */
export interface OpMsg {
  requestId: number;
  responseTo: number;
  flags: number;
  checksumPresent: boolean;
  /** The client expects no reply (unacknowledged write). */
  moreToCome: boolean;
  exhaustAllowed: boolean;
  body: Document;
}

const FLAGS_OFFSET = HEADER_SIZE;
const SECTIONS_OFFSET = HEADER_SIZE + 4;
const CHECKSUM_SIZE = 4;

export function parseOpMsg(frame: Buffer): OpMsg {
  const header = readHeader(frame);
  if (header.opCode !== OpCode.OP_MSG) throw new WireProtocolError(`opcode ${header.opCode} is not OP_MSG`);
  const length = header.messageLength;
  if (length !== frame.length) throw new WireProtocolError('OP_MSG length does not match its frame');
  if (length < SECTIONS_OFFSET + 1) throw new WireProtocolError('OP_MSG too short');
  const flags = frame.readUInt32LE(FLAGS_OFFSET);
  if (flags & UNKNOWN_REQUIRED_FLAGS) throw new WireProtocolError(`OP_MSG has unknown required flag bits ${flags}`);
  const checksumPresent = (flags & MsgFlag.checksumPresent) !== 0;

  let end = length;
  if (checksumPresent) {
    end = length - CHECKSUM_SIZE;
    if (end < SECTIONS_OFFSET + 1) throw new WireProtocolError('OP_MSG too short for its checksum');
    if (crc32c(frame.subarray(0, end)) !== frame.readUInt32LE(end)) throw new WireProtocolError('OP_MSG checksum mismatch');
  }

  let body: Document | undefined;
  let sequences: Array<[string, Document[]]> | undefined;
  let i = SECTIONS_OFFSET;
  while (i < end) {
    const kind = frame[i++];
    if (kind === 0) {
      if (body) throw new WireProtocolError('OP_MSG has more than one body section');
      const size = documentSizeAt(frame, i, end, 'OP_MSG body');
      body = decodeDocument(frame.subarray(i, i + size), 'OP_MSG body');
      i += size;
    } else if (kind === 1) {
      const size = documentSizeAt(frame, i, end, 'OP_MSG document sequence');
      const sectionEnd = i + size;
      const [identifier, first] = readCString(frame, i + 4, sectionEnd, 'document sequence identifier');
      const docs: Document[] = [];
      for (let j = first; j < sectionEnd; ) {
        const docSize = documentSizeAt(frame, j, sectionEnd, `document in sequence '${identifier}'`);
        docs.push(decodeDocument(frame.subarray(j, j + docSize), `sequence '${identifier}'`));
        j += docSize;
      }
      (sequences ??= []).push([identifier, docs]);
      i = sectionEnd;
    } else {
      throw new WireProtocolError(`OP_MSG section kind ${kind} is unknown`);
    }
  }
  if (!body) throw new WireProtocolError('OP_MSG has no body section');
  for (const [identifier, docs] of sequences ?? []) {
    if (Object.hasOwn(body, identifier)) throw new WireProtocolError(`OP_MSG field '${identifier}' given both in the body and as a sequence`);
    // defineProperty: an identifier such as '__proto__' must stay a plain field.
    Object.defineProperty(body, identifier, { value: docs, enumerable: true, writable: true, configurable: true });
  }

  return {
    requestId: header.requestId,
    responseTo: header.responseTo,
    flags,
    checksumPresent,
    moreToCome: (flags & MsgFlag.moreToCome) !== 0,
    exhaustAllowed: (flags & MsgFlag.exhaustAllowed) !== 0,
    body,
  };
}

export interface OpMsgToEncode {
  requestId: number;
  responseTo?: number;
  body: Document;
  /** Kind-1 sections (requests only: the driver rejects them in replies). */
  sequences?: Record<string, Document[]>;
  moreToCome?: boolean;
  exhaustAllowed?: boolean;
  checksum?: boolean;
  /** Memory for the body, when its encoder writes one itself (document-codec.ts). */
  allocate?: ReplyAllocator;
}

/**
 * Encodes an OP_MSG as buffers to write in order (header, body, ...): the
 * serialized body is not copied again into one big buffer.
 */
export function encodeOpMsg(msg: OpMsgToEncode): Uint8Array[] {
  const body = encodeDocument(msg.body, msg.allocate);
  const header = Buffer.allocUnsafe(SECTIONS_OFFSET + 1);
  const parts: Uint8Array[] = [header, body];
  let length = header.length + body.length;
  for (const [identifier, docs] of Object.entries(msg.sequences ?? {})) {
    const name = Buffer.from(`${identifier}\0`, 'utf8');
    const sectionHeader = Buffer.allocUnsafe(1 + 4 + name.length);
    const encoded = docs.map((doc) => encodeDocument(doc));
    const size = 4 + name.length + encoded.reduce((sum, d) => sum + d.length, 0);
    sectionHeader[0] = 1;
    sectionHeader.writeInt32LE(size, 1);
    name.copy(sectionHeader, 5);
    parts.push(sectionHeader, ...encoded);
    length += 1 + size;
  }
  let flags = 0;
  if (msg.moreToCome) flags |= MsgFlag.moreToCome;
  if (msg.exhaustAllowed) flags |= MsgFlag.exhaustAllowed;
  if (msg.checksum) {
    flags |= MsgFlag.checksumPresent;
    length += CHECKSUM_SIZE;
  }
  writeHeader(header, { messageLength: length, requestId: msg.requestId, responseTo: msg.responseTo ?? 0, opCode: OpCode.OP_MSG });
  header.writeUInt32LE(flags >>> 0, FLAGS_OFFSET);
  header[SECTIONS_OFFSET] = 0;
  if (msg.checksum) {
    let crc = 0;
    for (const part of parts) crc = crc32c(part, crc);
    const checksum = Buffer.allocUnsafe(CHECKSUM_SIZE);
    checksum.writeUInt32LE(crc, 0);
    parts.push(checksum);
  }
  return parts;
}
