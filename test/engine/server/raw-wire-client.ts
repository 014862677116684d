import net from 'node:net';
import { FrameReader } from '../../../src/engine/wire/index.js';

/**
 * A bare TCP client speaking bytes, for what the driver never sends:
 * garbage, oversized frames, checksums, moreToCome.
 */
export class RawWireClient {
  private readonly frames: Buffer[] = [];
  private waiting: { resolve(frame: Buffer): void; reject(err: Error): void } | undefined;
  private ended = false;
  readonly closed: Promise<void>;

  private constructor(private readonly socket: net.Socket) {
    const reader = new FrameReader();
    socket.on('data', (chunk: Buffer) => {
      for (const frame of reader.push(chunk)) this.deliver(frame);
    });
    socket.on('error', () => {});
    this.closed = new Promise((resolve) =>
      socket.once('close', () => {
        this.ended = true;
        this.waiting?.reject(new Error('connection closed'));
        this.waiting = undefined;
        resolve();
      }),
    );
  }

  static connect(port: number): Promise<RawWireClient> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => resolve(new RawWireClient(socket)));
      socket.once('error', reject);
    });
  }

  send(bytes: Uint8Array | Uint8Array[]): void {
    this.socket.write(Array.isArray(bytes) ? Buffer.concat(bytes) : bytes);
  }

  /** The next whole message from the server; rejects when the server closes the connection first. */
  nextFrame(): Promise<Buffer> {
    const frame = this.frames.shift();
    if (frame) return Promise.resolve(frame);
    if (this.ended) return Promise.reject(new Error('connection closed'));
    return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
  }

  close(): void {
    this.socket.destroy();
  }

  private deliver(frame: Buffer): void {
    if (this.waiting) {
      this.waiting.resolve(frame);
      this.waiting = undefined;
    } else {
      this.frames.push(frame);
    }
  }
}
