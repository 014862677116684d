import { HEADER_SIZE } from './wire-constants.js';
import { WireProtocolError } from './wire-protocol-error.js';

/** The 16-byte header every wire message starts with. */
export interface MessageHeader {
  messageLength: number;
  requestId: number;
  responseTo: number;
  opCode: number;
}

export function readHeader(frame: Buffer): MessageHeader {
  if (frame.length < HEADER_SIZE) throw new WireProtocolError(`message of ${frame.length} bytes is shorter than its header`);
  return {
    messageLength: frame.readInt32LE(0),
    requestId: frame.readInt32LE(4),
    responseTo: frame.readInt32LE(8),
    opCode: frame.readInt32LE(12),
  };
}

export function writeHeader(target: Buffer, header: MessageHeader): void {
  target.writeInt32LE(header.messageLength, 0);
  target.writeInt32LE(header.requestId, 4);
  target.writeInt32LE(header.responseTo, 8);
  target.writeInt32LE(header.opCode, 12);
}

/** Reads a NUL-terminated UTF-8 string that must end before `end`; returns it and the index after the NUL. */
export function readCString(frame: Buffer, start: number, end: number, what: string): [string, number] {
  const nul = frame.indexOf(0, start);
  if (nul < 0 || nul >= end) throw new WireProtocolError(`unterminated ${what}`);
  return [frame.toString('utf8', start, nul), nul + 1];
}
