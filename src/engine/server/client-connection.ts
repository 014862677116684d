import type { Socket } from 'node:net';
import type { ConnectionInfo } from '../commands/index.js';
import { FrameReader, WireProtocolError } from '../wire/index.js';
import { handleFrame, type FrameContext } from './handle-frame.js';
import { ReplyMemory } from './reply-memory.js';

/**
 * One client socket. Its messages run strictly in order (a driver pipelines
 * nothing, but unacknowledged writes and endSessions may arrive back to
 * back), while many connections run concurrently. A frame that cannot be
 * read closes this connection only; the process never crashes for it.
 */
export interface ConnectionOptions extends Omit<FrameContext, 'connection' | 'allocate'> {
  log(line: string): void;
}

/**
 * Pause reading when this many whole messages, or bytes, are waiting; resume
 * below both low marks. The byte marks matter: 64 messages of up to 48 MB
 * each would let one client that does not read its replies hold gigabytes.
 */
const QUEUE_HIGH_WATER = 64;
const QUEUE_LOW_WATER = 8;
const QUEUE_HIGH_BYTES = 64 * 1024 * 1024;
const QUEUE_LOW_BYTES = 16 * 1024 * 1024;
const SINGLE_WRITE_MAX = 64 * 1024;

export class ClientConnection {
  readonly info: ConnectionInfo;
  private readonly reader = new FrameReader();
  private readonly queue: Buffer[] = [];
  private queuedBytes = 0;
  private running = false;
  private idleWaiters: Array<() => void> = [];
  private readonly frameContext: FrameContext;
  private readonly replyMemory = new ReplyMemory(SINGLE_WRITE_MAX);

  constructor(
    private readonly socket: Socket,
    id: number,
    private readonly options: ConnectionOptions,
  ) {
    this.info = { id, remoteAddress: `${socket.remoteAddress ?? 'unknown'}:${socket.remotePort ?? 0}` };
    this.frameContext = { ...options, connection: this.info, allocate: (size) => this.replyMemory.body(size) };
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    // Resets and broken pipes are ordinary client behaviour; 'close' follows.
    socket.on('error', () => {});
  }

  /** Stops reading and drops the socket; queued messages are discarded. */
  destroy(): void {
    this.queue.length = 0;
    this.queuedBytes = 0;
    this.socket.destroy();
  }

  /** Resolves once the message being processed (if any) has finished. */
  whenIdle(): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private receive(chunk: Buffer): void {
    let frames: Buffer[];
    try {
      frames = this.reader.push(chunk);
    } catch (err) {
      this.fail(err);
      return;
    }
    if (frames.length === 0) return;
    this.queue.push(...frames);
    for (const frame of frames) this.queuedBytes += frame.length;
    if (this.queue.length >= QUEUE_HIGH_WATER || this.queuedBytes >= QUEUE_HIGH_BYTES) this.socket.pause();
    if (!this.running) void this.drain();
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.queue.length > 0 && !this.socket.destroyed) {
        const frame = this.queue.shift()!;
        this.queuedBytes -= frame.length;
        const reply = await handleFrame(frame, this.frameContext);
        if (reply && !this.socket.destroyed) this.write(reply);
        // A client that does not read its replies is not given more work.
        if (this.socket.writableNeedDrain) await drained(this.socket);
        if (this.socket.isPaused() && this.queue.length <= QUEUE_LOW_WATER && this.queuedBytes <= QUEUE_LOW_BYTES) {
          this.socket.resume();
        }
      }
    } catch (err) {
      this.fail(err);
    } finally {
      this.running = false;
      for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }

  /**
   * Small replies are joined into one buffer (reused: reply-memory.ts): a
   * single write() costs about half a writev() of the same bytes; large ones
   * go out as a writev rather than being copied again.
   */
  private write(parts: Uint8Array[]): void {
    let length = 0;
    for (const part of parts) length += part.length;
    if (length <= SINGLE_WRITE_MAX) {
      const frame = this.replyMemory.frame(parts, length);
      this.socket.write(frame);
      this.replyMemory.written(frame, this.socket.writableLength);
      return;
    }
    this.socket.cork();
    for (const part of parts) this.socket.write(part);
    this.socket.uncork();
  }

  /** Logs one line (never document contents) and closes this connection. */
  private fail(err: unknown): void {
    const reason = err instanceof WireProtocolError ? err.message : `unexpected ${(err as Error)?.name ?? 'error'}: ${(err as Error)?.message ?? String(err)}`;
    this.options.log(`engine: closing connection ${this.info.id} from ${this.info.remoteAddress}: ${reason}`);
    this.destroy();
  }
}

function drained(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      socket.off('drain', done);
      socket.off('close', done);
      resolve();
    };
    socket.on('drain', done);
    socket.on('close', done);
  });
}
