import { HEADER_SIZE, MAX_MESSAGE_SIZE } from './wire-constants.js';
import { WireProtocolError } from './wire-protocol-error.js';

/**
 * Cuts a socket's byte stream into whole messages. The common case (a chunk
 * holding whole messages) yields views into the chunk without copying; bytes
 * of a message split across chunks are joined once, when it is complete.
 * A length below the header size or above `maxMessageSize` throws: the
 * stream cannot be resynchronised, so the caller closes the connection.
 */
export class FrameReader {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Length of the message being accumulated, once its first 4 bytes are in. */
  private expected = 0;

  constructor(private readonly maxMessageSize = MAX_MESSAGE_SIZE) {}

  /** Feeds one chunk; returns the messages it completes (possibly none). */
  push(chunk: Buffer): Buffer[] {
    const frames: Buffer[] = [];
    let data = chunk;
    if (this.pendingBytes > 0) {
      this.pending.push(chunk);
      this.pendingBytes += chunk.length;
      if (this.expected === 0 && this.pendingBytes >= 4) this.expected = this.checkLength(this.peekLength());
      if (this.expected === 0 || this.pendingBytes < this.expected) return frames;
      data = Buffer.concat(this.pending, this.pendingBytes);
      this.pending = [];
      this.pendingBytes = 0;
      this.expected = 0;
    }
    let offset = 0;
    while (data.length - offset >= 4) {
      const length = this.checkLength(data.readInt32LE(offset));
      if (data.length - offset < length) break;
      frames.push(data.subarray(offset, offset + length));
      offset += length;
    }
    if (offset < data.length) {
      const rest = data.subarray(offset);
      this.pending.push(rest);
      this.pendingBytes = rest.length;
      if (rest.length >= 4) this.expected = rest.readInt32LE(0);
    }
    return frames;
  }

  /** Bytes received but not yet part of a whole message. */
  get buffered(): number {
    return this.pendingBytes;
  }

  private peekLength(): number {
    const head = this.pending[0].length >= 4 ? this.pending[0] : Buffer.concat(this.pending, this.pendingBytes);
    return head.readInt32LE(0);
  }

  private checkLength(length: number): number {
    if (length < HEADER_SIZE) throw new WireProtocolError(`message length ${length} is shorter than a header`);
    if (length > this.maxMessageSize) throw new WireProtocolError(`message length ${length} exceeds the maximum of ${this.maxMessageSize}`);
    return length;
  }
}
