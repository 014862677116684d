import type { Document } from '../query/types.js';
import { decodeDocument, documentSizeAt, encodeDocument } from './document-codec.js';
import { readCString, readHeader, writeHeader } from './message-header.js';
import { HEADER_SIZE, OpCode } from './wire-constants.js';
import { WireProtocolError } from './wire-protocol-error.js';

/**
 * The legacy OP_QUERY / OP_REPLY pair. Drivers still open every connection
 * with an OP_QUERY `isMaster` on `admin.$cmd` and read the OP_REPLY; after
 * that everything is OP_MSG.
 */
export interface OpQuery {
  requestId: number;
  flags: number;
  /** e.g. "admin.$cmd" */
  fullCollectionName: string;
  numberToSkip: number;
  numberToReturn: number;
  query: Document;
  returnFieldsSelector?: Document;
}

export function parseOpQuery(frame: Buffer): OpQuery {
  const header = readHeader(frame);
  if (header.opCode !== OpCode.OP_QUERY) throw new WireProtocolError(`opcode ${header.opCode} is not OP_QUERY`);
  const end = header.messageLength;
  if (end !== frame.length) throw new WireProtocolError('OP_QUERY length does not match its frame');
  if (end < HEADER_SIZE + 4) throw new WireProtocolError('OP_QUERY too short');
  const flags = frame.readInt32LE(HEADER_SIZE);
  const [fullCollectionName, afterName] = readCString(frame, HEADER_SIZE + 4, end, 'OP_QUERY collection name');
  if (afterName + 8 > end) throw new WireProtocolError('OP_QUERY too short');
  const numberToSkip = frame.readInt32LE(afterName);
  const numberToReturn = frame.readInt32LE(afterName + 4);
  let i = afterName + 8;
  const querySize = documentSizeAt(frame, i, end, 'OP_QUERY query');
  const query = decodeDocument(frame.subarray(i, i + querySize), 'OP_QUERY query');
  i += querySize;
  let returnFieldsSelector: Document | undefined;
  if (i < end) {
    const size = documentSizeAt(frame, i, end, 'OP_QUERY field selector');
    returnFieldsSelector = decodeDocument(frame.subarray(i, i + size), 'OP_QUERY field selector');
    i += size;
  }
  if (i !== end) throw new WireProtocolError('OP_QUERY has trailing bytes');
  return { requestId: header.requestId, flags, fullCollectionName, numberToSkip, numberToReturn, query, returnFieldsSelector };
}

export function encodeOpQuery(msg: { requestId: number; fullCollectionName: string; query: Document; flags?: number; numberToReturn?: number }): Uint8Array[] {
  const name = Buffer.from(`${msg.fullCollectionName}\0`, 'utf8');
  const query = encodeDocument(msg.query);
  const head = Buffer.allocUnsafe(HEADER_SIZE + 4 + name.length + 8);
  writeHeader(head, { messageLength: head.length + query.length, requestId: msg.requestId, responseTo: 0, opCode: OpCode.OP_QUERY });
  head.writeInt32LE(msg.flags ?? 0, HEADER_SIZE);
  name.copy(head, HEADER_SIZE + 4);
  head.writeInt32LE(0, HEADER_SIZE + 4 + name.length);
  head.writeInt32LE(msg.numberToReturn ?? -1, HEADER_SIZE + 8 + name.length);
  return [head, query];
}

export interface OpReply {
  requestId: number;
  responseTo: number;
  responseFlags: number;
  cursorId: bigint;
  startingFrom: number;
  documents: Document[];
}

/** responseFlags, cursorID, startingFrom, numberReturned */
const REPLY_FIELDS_SIZE = 4 + 8 + 4 + 4;

export function encodeOpReply(msg: { requestId: number; responseTo: number; documents: Document[]; responseFlags?: number }): Uint8Array[] {
  const docs = msg.documents.map((doc) => encodeDocument(doc));
  const head = Buffer.allocUnsafe(HEADER_SIZE + REPLY_FIELDS_SIZE);
  const length = head.length + docs.reduce((sum, d) => sum + d.length, 0);
  writeHeader(head, { messageLength: length, requestId: msg.requestId, responseTo: msg.responseTo, opCode: OpCode.OP_REPLY });
  head.writeInt32LE(msg.responseFlags ?? 0, HEADER_SIZE);
  head.writeBigInt64LE(0n, HEADER_SIZE + 4);
  head.writeInt32LE(0, HEADER_SIZE + 12);
  head.writeInt32LE(docs.length, HEADER_SIZE + 16);
  return [head, ...docs];
}

export function parseOpReply(frame: Buffer): OpReply {
  const header = readHeader(frame);
  if (header.opCode !== OpCode.OP_REPLY) throw new WireProtocolError(`opcode ${header.opCode} is not OP_REPLY`);
  const end = header.messageLength;
  if (end !== frame.length || end < HEADER_SIZE + REPLY_FIELDS_SIZE) throw new WireProtocolError('OP_REPLY length is invalid');
  const numberReturned = frame.readInt32LE(HEADER_SIZE + 16);
  const documents: Document[] = [];
  let i = HEADER_SIZE + REPLY_FIELDS_SIZE;
  for (let n = 0; n < numberReturned; n++) {
    const size = documentSizeAt(frame, i, end, 'OP_REPLY document');
    documents.push(decodeDocument(frame.subarray(i, i + size), 'OP_REPLY document'));
    i += size;
  }
  return {
    requestId: header.requestId,
    responseTo: header.responseTo,
    responseFlags: frame.readInt32LE(HEADER_SIZE),
    cursorId: frame.readBigInt64LE(HEADER_SIZE + 4),
    startingFrom: frame.readInt32LE(HEADER_SIZE + 12),
    documents,
  };
}
