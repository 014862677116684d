import { readdirSync, readFileSync, unlinkSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { crc32 } from 'node:zlib';

/**
 * One change to the lmdb store, as the write-ahead log records it and a
 * checkpoint applies it. Keys and values are lmdb's own (see lmdb-storage).
 */
export type StoreChange =
  | { store: 'catalog'; key: string; value?: Buffer }
  | { store: 'docs'; key: [string, string]; value?: Buffer };

/**
 * The write-ahead log: changes appended in order to numbered segment files
 * beside the lmdb file (`<file>.wal-<n>`), made durable by one write and one
 * fdatasync per group. A group is everything appended while the previous
 * group was being written, so under load one sync covers many writes, and an
 * idle write waits for one sync only.
 *
 * Why a log in front of lmdb: a sync of an append costs about a quarter of
 * the CPU of an lmdb commit-and-sync (which writes every page it touched,
 * syncs, then writes and syncs its meta page); lmdb then takes the changes
 * in large checkpoints. Once a checkpoint is synced in lmdb, the segments it
 * covers are removed (`removeSegmentsThrough`).
 *
 * Record: u32 payload length, u32 crc32 of the payload, payload. Payload:
 * u8 kind (bit 0: a put, bit 1: the docs store), then each key part as u32
 * length + utf-8, then the value (the rest) for a put. A record cut short by
 * a crash, or whose checksum fails, ends its segment's replay: it was never
 * acknowledged (its group's sync had not returned).
 */
export class WriteAheadLog {
  private segment: number;
  private file: SegmentFile;
  private pending: Buffer[] = [];
  private scheduled = false;
  private writing: Promise<void> | undefined;
  /** The group that will carry `pending`, created when someone waits for it. */
  private nextGroup: Deferred | undefined;
  private failure: unknown;
  private closed = false;

  /** `lastSegment`: the highest segment number known (see `segmentsOf`); new records go to the next. */
  constructor(
    readonly basePath: string,
    lastSegment: number,
  ) {
    this.segment = lastSegment + 1;
    this.file = new SegmentFile(segmentPath(basePath, this.segment));
  }

  append(change: StoreChange): void {
    if (this.closed) throw new Error('the write-ahead log is closed');
    this.pending.push(encodeChange(change));
    if (this.writing || this.scheduled) return;
    this.scheduled = true;
    // Everything appended in this event turn goes as one group.
    setImmediate(() => {
      this.scheduled = false;
      if (!this.writing && this.pending.length > 0) this.writeGroup();
    });
  }

  /** Resolves once everything appended so far is on disk; rejects (for good) once a write failed. */
  synced(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.pending.length > 0) return (this.nextGroup ??= deferred()).promise;
    return this.writing ?? Promise.resolve();
  }

  /** Starts a new segment for what is appended from now on; returns the number of the one it ends. */
  rotate(): number {
    const ended = this.segment;
    this.file.retire();
    this.segment += 1;
    this.file = new SegmentFile(segmentPath(this.basePath, this.segment));
    return ended;
  }

  /** Waits for what was appended, then closes the files; appending afterwards throws. */
  async close(): Promise<void> {
    await this.synced().catch(() => undefined);
    this.closed = true;
    this.file.retire();
  }

  private writeGroup(): void {
    const records = this.pending;
    this.pending = [];
    const group = this.nextGroup ?? deferred();
    this.nextGroup = undefined;
    const file = this.file;
    const done = this.failure ? Promise.reject(this.failure) : file.appendAndSync(records);
    this.writing = group.promise;
    done.then(group.resolve, (err: unknown) => {
      this.failure ??= err;
      group.reject(err);
    });
    void done
      .catch(() => undefined)
      .then(() => {
        file.groupDone();
        this.writing = undefined;
        if (this.pending.length > 0) this.writeGroup();
      });
  }
}

/** One segment: opened on its first group, closed once retired and its last group is written. */
class SegmentFile {
  private handle: Promise<FileHandle> | undefined;
  private inFlight = 0;
  private retired = false;

  constructor(private readonly path: string) {}

  async appendAndSync(records: Buffer[]): Promise<void> {
    this.inFlight += 1;
    const handle = await (this.handle ??= openSegment(this.path));
    let total = 0;
    for (const record of records) total += record.length;
    const { bytesWritten } = await handle.writev(records);
    if (bytesWritten !== total) throw new Error(`write-ahead log: wrote ${bytesWritten} of ${total} bytes to ${this.path}`);
    await handle.datasync();
  }

  groupDone(): void {
    this.inFlight -= 1;
    this.closeIfDone();
  }

  retire(): void {
    this.retired = true;
    this.closeIfDone();
  }

  private closeIfDone(): void {
    if (!this.retired || this.inFlight > 0 || !this.handle) return;
    const handle = this.handle;
    this.handle = undefined;
    void handle.then((h) => h.close()).catch(() => undefined);
  }
}

/** The segment files beside `basePath`, by number, in ascending order. */
export function segmentsOf(basePath: string): Array<[number, string]> {
  const prefix = `${basename(basePath)}.wal-`;
  const dir = dirname(basePath);
  const found: Array<[number, string]> = [];
  for (const name of readdirSync(dir)) {
    if (!name.startsWith(prefix)) continue;
    const number = Number(name.slice(prefix.length));
    if (Number.isSafeInteger(number) && number > 0) found.push([number, join(dir, name)]);
  }
  return found.sort((a, b) => a[0] - b[0]);
}

/** Removes the segments up to `segment` (lmdb holds everything in them, synced). */
export function removeSegmentsThrough(basePath: string, segment: number): void {
  for (const [number, file] of segmentsOf(basePath)) if (number <= segment) unlinkSync(file);
}

/** The changes of every segment above `checkpointed`, in order, up to the first damaged record of each. */
export function* changesAfter(basePath: string, checkpointed: number): Generator<StoreChange> {
  for (const [number, file] of segmentsOf(basePath)) {
    if (number <= checkpointed) continue;
    yield* decodeSegment(readFileSync(file));
  }
}

/**
 * Creates a segment (0600: the log holds documents, password hashes
 * included) and syncs its directory, so that its name is on disk before
 * anything in it is acknowledged.
 */
async function openSegment(path: string): Promise<FileHandle> {
  const handle = await open(path, 'a', 0o600);
  try {
    const directory = await open(dirname(path), 'r');
    try {
      await directory.sync();
    } finally {
      await directory.close();
    }
  } catch (err) {
    await handle.close();
    throw err;
  }
  return handle;
}

function segmentPath(basePath: string, segment: number): string {
  return `${basePath}.wal-${String(segment).padStart(8, '0')}`;
}

const PUT = 1;
const DOCS = 2;

function encodeChange(change: StoreChange): Buffer {
  const parts = typeof change.key === 'string' ? [change.key] : change.key;
  const encodedParts = parts.map((part) => Buffer.from(part, 'utf8'));
  let length = 1;
  for (const part of encodedParts) length += 4 + part.length;
  if (change.value) length += change.value.length;
  const record = Buffer.allocUnsafe(8 + length);
  record.writeUInt32LE(length, 0);
  let at = 8;
  record[at++] = (change.value ? PUT : 0) | (change.store === 'docs' ? DOCS : 0);
  for (const part of encodedParts) {
    record.writeUInt32LE(part.length, at);
    part.copy(record, at + 4);
    at += 4 + part.length;
  }
  if (change.value) change.value.copy(record, at);
  record.writeUInt32LE(crc32(record.subarray(8)), 4);
  return record;
}

function* decodeSegment(bytes: Buffer): Generator<StoreChange> {
  let at = 0;
  while (at + 8 <= bytes.length) {
    const length = bytes.readUInt32LE(at);
    const end = at + 8 + length;
    if (length < 1 || end > bytes.length) return;
    const payload = bytes.subarray(at + 8, end);
    if (crc32(payload) !== bytes.readUInt32LE(at + 4)) return;
    const change = decodePayload(payload);
    if (!change) return;
    yield change;
    at = end;
  }
}

function decodePayload(payload: Buffer): StoreChange | undefined {
  const kind = payload[0]!;
  const partCount = kind & DOCS ? 2 : 1;
  const parts: string[] = [];
  let at = 1;
  for (let i = 0; i < partCount; i++) {
    if (at + 4 > payload.length) return undefined;
    const length = payload.readUInt32LE(at);
    if (at + 4 + length > payload.length) return undefined;
    parts.push(payload.toString('utf8', at + 4, at + 4 + length));
    at += 4 + length;
  }
  // A copy: the segment's buffer is dropped after replay.
  const value = kind & PUT ? Buffer.from(payload.subarray(at)) : undefined;
  return kind & DOCS ? { store: 'docs', key: [parts[0]!, parts[1]!], value } : { store: 'catalog', key: parts[0]!, value };
}

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
  reject: (err: unknown) => void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // A group nobody waits for must not become an unhandled rejection; waiters still see it.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}
