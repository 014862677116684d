/**
 * Memory one connection reuses for its replies. Every Buffer lives in an
 * ArrayBuffer (a slice of Node's shared pool when small, one of its own when
 * large), and V8 counts ArrayBuffers as external memory that only a full
 * (mark-compact) GC gives back, however short their life: under a load of
 * list pages (about 11 KiB a reply, its body and then the whole frame) the
 * engine ran a mark-compact about every 0.7 s, each marking every stored
 * document, though nothing of a reply outlived its write.
 *
 * A connection runs its messages one at a time, so one body area and one
 * frame area are enough: a reply's body is encoded into the body area, then
 * copied with its header into the frame area and written. The frame area is
 * given up when the socket keeps it (the write did not complete at once).
 * Each area grows to the largest reply it took, at most `maxBytes`: a
 * connection keeps at most twice that (128 KiB with the connection's 64 KiB).
 */
export class ReplyMemory {
  private bodyArea: Buffer | undefined;
  private frameArea: Buffer | undefined;
  /** The last frame handed out of the frame area. */
  private areaFrame: Buffer | undefined;

  constructor(
    /** The largest reply kept in these areas; a larger one gets Buffers of its own. */
    private readonly maxBytes: number,
  ) {}

  /** Room for a reply body, valid until the next call or until `frame` has copied it. */
  body(size: number): Buffer {
    // Only a body whose frame fits the frame area: a larger frame is written from its parts, body included.
    if (size > this.maxBytes - FRAME_HEADROOM) return Buffer.allocUnsafe(size);
    this.bodyArea = roomFor(this.bodyArea, size);
    return this.bodyArea.subarray(0, size);
  }

  /** The parts of one message as one Buffer: the frame area when it fits, else a new one. */
  frame(parts: readonly Uint8Array[], length: number): Buffer {
    if (length > this.maxBytes) return Buffer.concat(parts, length);
    this.frameArea = roomFor(this.frameArea, length);
    let at = 0;
    for (const part of parts) {
      this.frameArea.set(part, at);
      at += part.length;
    }
    return (this.areaFrame = this.frameArea.subarray(0, length));
  }

  /** After writing a frame: a socket that did not take it all at once still holds it, so it is not reused. */
  written(frame: Buffer, pendingBytes: number): void {
    if (pendingBytes > 0 && frame === this.areaFrame) this.frameArea = this.areaFrame = undefined;
  }
}

/** More than a message adds around its body (an OP_MSG header of 21 bytes, a 4-byte checksum). */
const FRAME_HEADROOM = 64;
/** Areas start at this size (a list page's reply fits), so that most connections allocate each once. */
const MIN_AREA = 16 * 1024;

/** An area is an ArrayBuffer of its own: a slice of Node's pool would keep the whole pool alive with it. */
function roomFor(area: Buffer | undefined, size: number): Buffer {
  return area !== undefined && area.length >= size ? area : Buffer.allocUnsafeSlow(Math.max(size, MIN_AREA));
}
