import { readdirSync, readFileSync, statSync, unlinkSync } from 'node:fs';
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
 * beside the lmdb file (`<file>.wal-<n>`). Two promises per change, as
 * mongod's journal gives them:
 * - written: the change is in the file (the OS has it): it survives kill -9
 *   of the engine. Groups are written one at a time, each carrying
 *   everything appended while the previous one was being written;
 * - synced: an fdatasync has covered it: it survives a power cut too. The
 *   log syncs every `syncEveryMs` (mongod's journal commit interval, 100 ms)
 *   while something written is not yet synced, and at once when someone
 *   waits for it (a write with `j: true`).
 * A sync per write, or per group, is what a durable write cost before: at
 * 50 connections every write then waited for a sync and the machine
 * waited with it (writes at 0.48-0.53 of the bench's baseline, 1.25x that
 * with this).
 *
 * lmdb takes the changes in large checkpoints (lmdb-storage.ts); once a
 * checkpoint is synced in lmdb, the segments it covers are removed
 * (`removeSegmentsThrough`).
 *
 * Record: u32 payload length, u32 crc32 of the payload, payload. Payload:
 * u8 kind (bit 0: a put, bit 1: the docs store), then each key part as u32
 * length + utf-8, then the value (the rest) for a put. A record cut short by
 * a crash, or whose checksum fails, ends its segment's replay: it was never
 * acknowledged (its group's write had not returned).
 */
export class WriteAheadLog {
  private segment: number;
  private file: SegmentFile;
  /** Files written since their last sync (the current one, and one just rotated away). */
  private unsyncedFiles = new Set<SegmentFile>();
  private pending: Buffer[] = [];
  private scheduled = false;
  private writing = false;
  private syncing = false;
  private syncTimer: NodeJS.Timeout | undefined;
  /** Changes appended, written and synced so far, counted from the start. */
  private appended = 0;
  private written = 0;
  private synced = 0;
  private readonly writtenWaiters = new Waiters();
  private readonly syncedWaiters = new Waiters();
  private failure: unknown;
  /** Set by the first failure: resolves with `written` once the group write and sync under way then have settled. */
  private stopped: Promise<number> | undefined;
  /** The group write and the sync under way (each with its own handling done when it settles). */
  private groupWrite: Promise<void> | undefined;
  private syncInFlight: Promise<void> | undefined;
  private closed = false;
  private readonly reported = settleLater<unknown>();
  private readonly writtenListeners: Array<(written: number) => void> = [];
  private readonly syncListeners = new Set<(seconds: number) => void>();
  /**
   * Resolves with the first write or sync that failed, once the write under
   * way then has settled (`writtenCount` is final): nothing more is written.
   */
  readonly failed = this.reported.promise;
  private retryTimer: NodeJS.Timeout | undefined;

  /** `lastSegment`: the highest segment number known (see `segmentsOf`); new records go to the next. */
  constructor(
    readonly basePath: string,
    lastSegment: number,
    private readonly syncEveryMs = 100,
  ) {
    this.segment = lastSegment + 1;
    this.file = new SegmentFile(segmentPath(basePath, this.segment));
  }

  /** Changes appended since the start (each `append` is one). */
  get appendedCount(): number {
    return this.appended;
  }

  /** Changes written to the file since the start: after a failure, those the next start replays. */
  get writtenCount(): number {
    return this.written;
  }

  append(change: StoreChange): void {
    if (this.closed) throw new Error('the write-ahead log is closed');
    this.pending.push(encodeChange(change));
    this.appended += 1;
    if (this.writing || this.scheduled) return;
    this.scheduled = true;
    // Everything appended in this event turn goes as one group.
    setImmediate(() => {
      this.scheduled = false;
      if (!this.writing) this.writeGroup();
    });
  }

  /**
   * Resolves once everything appended so far is in the file (survives kill
   * -9); after a failure, rejects unless the write under way then put it there.
   */
  writtenAll(): Promise<void> {
    const target = this.appended;
    if (this.written >= target) return Promise.resolve();
    if (this.stopped) return this.stopped.then((written) => this.reached(written, target));
    return this.writtenWaiters.add(target);
  }

  /** Resolves once everything appended so far is synced to disk (survives a power cut); syncs as soon as it is written. */
  syncedAll(): Promise<void> {
    const target = this.appended;
    if (this.synced >= target) return Promise.resolve();
    if (this.stopped) return this.stopped.then(() => this.reached(this.synced, target));
    const wait = this.syncedWaiters.add(target);
    this.maybeSync();
    return wait;
  }

  /** Calls `listener` each time a group is written, with `writtenCount`. */
  onWritten(listener: (written: number) => void): void {
    this.writtenListeners.push(listener);
  }

  /** Calls `listener` with each sync's duration in seconds (metrics); returns its removal. */
  onSynced(listener: (seconds: number) => void): () => void {
    this.syncListeners.add(listener);
    return () => this.syncListeners.delete(listener);
  }

  /** Bytes of the segments on disk now (what a checkpoint has not removed yet); a segment removed meanwhile counts 0. */
  bytesOnDisk(): number {
    let bytes = 0;
    for (const [, file] of segmentsOf(this.basePath)) bytes += statSync(file, { throwIfNoEntry: false })?.size ?? 0;
    return bytes;
  }

  /**
   * Stops the log for good (the storage failed elsewhere): nothing appended
   * from now on, or waiting for its group, is written. Resolves with how many
   * changes the file holds once the write under way has settled.
   */
  abort(err: unknown): Promise<number> {
    this.fail(err);
    return this.stopped!;
  }

  private reached(count: number, target: number): void {
    if (count < target) throw this.failure;
  }

  /** Starts a new segment for what is appended from now on; returns the number of the one it ends. */
  rotate(): number {
    const ended = this.segment;
    this.file.retire();
    this.segment += 1;
    this.file = new SegmentFile(segmentPath(this.basePath, this.segment));
    return ended;
  }

  /** Writes and syncs what was appended, then closes the files; appending afterwards throws. */
  async close(): Promise<void> {
    await this.syncedAll().catch(() => undefined);
    this.closed = true;
    clearTimeout(this.syncTimer);
    clearTimeout(this.retryTimer);
    this.file.retire();
  }

  private writeGroup(): void {
    if (this.pending.length === 0 || this.stopped) return;
    const records = this.pending;
    this.pending = [];
    const through = this.written + records.length;
    const file = this.file;
    this.writing = true;
    this.groupWrite = file.append(records).then(
      () => {
        // Only now is there something for a sync to cover: a sync begun during the write did not.
        this.unsyncedFiles.add(file);
        this.writing = false;
        this.written = through;
        for (const listener of this.writtenListeners) listener(through);
        this.writtenWaiters.resolveThrough(through);
        this.maybeSync();
        this.writeGroup();
      },
      (err: unknown) => {
        if (this.stopped || !(err instanceof SegmentNotOpened) || !isDescriptorShortage(err.cause)) return this.fail(err);
        // Out of file descriptors (too many connections): nothing of the group reached a file,
        // so it goes again, first and in order, once some may be free; its writers wait. Failing
        // for good here left every later write refused until a restart.
        this.pending = records.concat(this.pending);
        this.retryTimer = setTimeout(() => {
          this.retryTimer = undefined;
          this.writing = false;
          this.writeGroup();
        }, OPEN_RETRY_MS);
      },
    );
  }

  /**
   * Syncs what is written when someone waits for it, else once `syncEveryMs`
   * after the first unsynced write. One sync at a time: an fdatasync covers
   * everything written to its file before it.
   */
  private maybeSync(): void {
    if (this.syncing || this.stopped || this.synced >= this.written) return;
    if (!this.syncedWaiters.anyThrough(this.written)) {
      this.syncTimer ??= setTimeout(() => {
        this.syncTimer = undefined;
        this.sync();
      }, this.syncEveryMs);
      return;
    }
    this.sync();
  }

  private sync(): void {
    if (this.syncing || this.stopped || this.synced >= this.written) return;
    clearTimeout(this.syncTimer);
    this.syncTimer = undefined;
    const through = this.written;
    const files = [...this.unsyncedFiles];
    this.unsyncedFiles.clear();
    this.syncing = true;
    const started = performance.now();
    this.syncInFlight = Promise.all(files.map((file) => file.sync())).then(
      () => {
        const seconds = (performance.now() - started) / 1000;
        for (const listener of this.syncListeners) listener(seconds);
        this.syncing = false;
        this.synced = through;
        this.syncedWaiters.resolveThrough(through);
        this.maybeSync();
      },
      (err: unknown) => this.fail(err),
    );
  }

  /**
   * A write or sync failed (or the storage did): nothing more is written. A
   * group write under way still settles first: if it lands, its changes are
   * in the file (the next start replays them), so they count as written and
   * their waiters are answered so; every other waiter, now or later, gets the
   * error. Only then is the failure reported, with `written` final.
   */
  private fail(err: unknown): void {
    if (this.stopped) return;
    this.failure = err;
    this.pending = [];
    clearTimeout(this.syncTimer);
    clearTimeout(this.retryTimer);
    this.stopped = Promise.allSettled([this.groupWrite, this.syncInFlight]).then(() => {
      // Nothing syncs a stopped log's files again: they are closed now, synced or not (a FileHandle
      // left to the garbage collector is an uncaught ERR_INVALID_STATE in Node 26).
      for (const file of [this.file, ...this.unsyncedFiles]) file.discard();
      this.unsyncedFiles.clear();
      this.writtenWaiters.rejectAll(err);
      this.syncedWaiters.rejectAll(err);
      this.reported.resolve(err);
      return this.written;
    });
  }
}

/** A promise and the function that resolves it, for a promise settled later by whoever holds both. */
export function settleLater<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

/** Promises waiting for a count to be reached, in the order they were made (counts only grow). */
class Waiters {
  private readonly waiting: Array<{ through: number; resolve: () => void; reject: (err: unknown) => void }> = [];

  add(through: number): Promise<void> {
    return new Promise<void>((resolve, reject) => this.waiting.push({ through, resolve, reject }));
  }

  anyThrough(count: number): boolean {
    return this.waiting.length > 0 && this.waiting[0]!.through <= count;
  }

  resolveThrough(count: number): void {
    let done = 0;
    while (done < this.waiting.length && this.waiting[done]!.through <= count) this.waiting[done++]!.resolve();
    this.waiting.splice(0, done);
  }

  rejectAll(err: unknown): void {
    for (const waiter of this.waiting.splice(0)) waiter.reject(err);
  }
}

/** A write that put only part of a group in the file: the disk is full (ENOSPC comes with the next write). */
export class ShortWriteError extends Error {
  readonly code = 'ENOSPC';
}

/** One segment: opened on its first group, closed once retired with nothing in flight or unsynced. */
class SegmentFile {
  private handle: Promise<FileHandle> | undefined;
  private inFlight = 0;
  private retired = false;
  /** Written since its last sync began (set when a write completes). */
  private dirty = false;
  /** Bytes of whole groups in the file (a segment is always a new file). */
  private size = 0;

  constructor(private readonly path: string) {}

  async append(records: Buffer[]): Promise<void> {
    await this.using(async (handle) => {
      let total = 0;
      for (const record of records) total += record.length;
      let bytesWritten: number;
      try {
        ({ bytesWritten } = await handle.writev(records));
      } catch (err) {
        await this.cutBack(handle);
        throw err;
      }
      if (bytesWritten !== total) {
        await this.cutBack(handle);
        throw new ShortWriteError(`write-ahead log: wrote ${bytesWritten} of ${total} bytes to ${this.path}`);
      }
      this.size += total;
      // Set once written (not before): a sync that began during the write does not cover it.
      this.dirty = true;
    });
  }

  /**
   * A group written in part (a full disk) is cut off again: the file then
   * ends with the last whole group, none of the failed group's records is
   * replayed at the next start (its writes were refused), and nothing later
   * lands after a torn record. Should the cut fail too, the torn record still
   * ends the segment's replay, and the log writes nothing more either way.
   */
  private async cutBack(handle: FileHandle): Promise<void> {
    await handle.truncate(this.size).catch(() => undefined);
  }

  /** fdatasync: everything written to the file before it is on disk. */
  async sync(): Promise<void> {
    if (!this.dirty) return;
    this.dirty = false;
    await this.using((handle) => handle.datasync());
  }

  retire(): void {
    this.retired = true;
    this.closeIfDone();
  }

  /** Retired with nothing left to sync (the log stopped): closed once nothing is in flight. */
  discard(): void {
    this.dirty = false;
    this.retire();
  }

  private async using(work: (handle: FileHandle) => Promise<void>): Promise<void> {
    this.inFlight += 1;
    try {
      this.handle ??= openSegment(this.path).catch((err: unknown) => {
        // Not kept: the next use tries again.
        this.handle = undefined;
        throw new SegmentNotOpened(this.path, err);
      });
      await work(await this.handle);
    } finally {
      this.inFlight -= 1;
      this.closeIfDone();
    }
  }

  private closeIfDone(): void {
    if (!this.retired || this.inFlight > 0 || this.dirty || !this.handle) return;
    const handle = this.handle;
    this.handle = undefined;
    void handle.then((h) => h.close()).catch(() => undefined);
  }
}

/** How long a group whose segment could not be opened for want of descriptors waits before it goes again. */
const OPEN_RETRY_MS = 50;

/** A segment could not be opened (nothing was written to it). */
class SegmentNotOpened extends Error {
  /** The cause's errno code, so that a full disk (ENOSPC) met at the open is told as one (storage-failure.ts). */
  readonly code: string | undefined;

  constructor(path: string, cause: unknown) {
    super(`write-ahead log: cannot open ${path}: ${(cause as Error)?.message ?? String(cause)}`, { cause });
    this.code = (cause as NodeJS.ErrnoException | undefined)?.code;
  }
}

/** The process (EMFILE) or the system (ENFILE) has no file descriptor left: passes once some are closed. */
function isDescriptorShortage(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'EMFILE' || code === 'ENFILE';
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
    // A damaged segment ends the replay: after a power cut a later segment may hold what came after a gap.
    if (!(yield* decodeSegment(readFileSync(file)))) return;
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

/** The segment's changes, in order, up to the first damaged record; returns whether it was whole. */
function* decodeSegment(bytes: Buffer): Generator<StoreChange, boolean> {
  let at = 0;
  while (at < bytes.length) {
    if (at + 8 > bytes.length) return false;
    const length = bytes.readUInt32LE(at);
    const end = at + 8 + length;
    if (length < 1 || end > bytes.length) return false;
    const payload = bytes.subarray(at + 8, end);
    if (crc32(payload) !== bytes.readUInt32LE(at + 4)) return false;
    const change = decodePayload(payload);
    if (!change) return false;
    yield change;
    at = end;
  }
  return true;
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
