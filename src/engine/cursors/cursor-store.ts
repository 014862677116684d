import { randomBytes } from 'node:crypto';
import { BSON, Long } from 'bson';
import { mongoError } from '../errors.js';
import type { Document } from '../query/types.js';
import { SLICE_END, type ReadSlice, type TailSource } from '../reads/index.js';
import { storedBytesOf } from '../storage/index.js';
import { storedBatchReply } from './stored-batch-reply.js';

/**
 * Open cursors of every connection. A cursor is a lazy iterator over the
 * remaining results of one find/aggregate/listCollections/listIndexes, owned
 * by a namespace; ids are non-zero int64s (the driver rejects int32 ids).
 * Idle cursors are dropped after `idleTimeoutMs` (mongod: 10 minutes) by an
 * unref'd timer, so an open cursor never keeps the process alive.
 * A tailable cursor (a capped collection's) stays open at the end of its
 * results, and goes on with the documents inserted since; with `awaitData`
 * an empty getMore waits for such an insert, woken by `insertedInto`.
 */

/** mongod caps a batch at 16 MiB of documents. */
const MAX_BATCH_BYTES = 16 * 1024 * 1024;
const DEFAULT_IDLE_TIMEOUT_MS = 10 * 60 * 1000;
/** How long an awaitData getMore without maxTimeMS waits for data (mongod: 1 s). */
const DEFAULT_AWAIT_DATA_MS = 1000;

export interface BatchResult {
  batch: Document[];
  /** 0n when the cursor is exhausted (or was never opened). */
  id: bigint;
  /** The documents are a scan's, unchanged: the reply may splice their stored bytes. */
  storedBytes?: boolean;
}

interface OpenCursor {
  ns: string;
  source: Iterator<Document>;
  /** One document read ahead, to know whether more remain. */
  lookahead: IteratorResult<Document>;
  lastUsed: number;
  /** `noCursorTimeout`: never dropped for idleness. */
  noTimeout: boolean;
  /** The opener's promise that its documents come unchanged from a scan (stored-batch-reply.ts). */
  storedBytes: boolean;
  /** A streamed read's check of its read-ahead document at a later getMore (reads/read-documents.ts). */
  rechecker?: { recheck(doc: Document): Document | undefined };
  /** A sliced read's slice (reads/time-slice.ts), restarted at each command; its SLICE_END ends a batch. */
  slice?: ReadSlice;
  /** A tailable cursor's read past its end (reads/tailable-read.ts). */
  tail?: TailSource;
}

export interface KillCursorsResult {
  cursorsKilled: Long[];
  cursorsNotFound: Long[];
  cursorsAlive: Long[];
  cursorsUnknown: Long[];
}

export class CursorStore {
  private readonly cursors = new Map<bigint, OpenCursor>();
  private readonly idleTimeoutMs: number;
  private readonly timer: NodeJS.Timeout;
  /** awaitData getMores waiting for an insert, by namespace. */
  private readonly waiting = new Map<string, Set<() => void>>();

  constructor(opts: { idleTimeoutMs?: number } = {}) {
    this.idleTimeoutMs = opts.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    const sweepEvery = Math.max(10, Math.min(this.idleTimeoutMs, 60_000));
    this.timer = setInterval(() => this.sweep(), sweepEvery);
    this.timer.unref();
  }

  /** Number of open cursors (serverStatus, tests). */
  get size(): number {
    return this.cursors.size;
  }

  /**
   * Takes the first batch from `results`; when documents remain (and the
   * caller did not ask for a single batch) the rest becomes a cursor.
   */
  open(
    ns: string,
    results: Iterable<Document>,
    opts: {
      batchSize?: number;
      singleBatch?: boolean;
      noTimeout?: boolean;
      storedBytes?: boolean;
      rechecker?: { recheck(doc: Document): Document | undefined };
      slice?: ReadSlice;
      tail?: TailSource;
    } = {},
  ): BatchResult {
    opts.slice?.begin();
    const source = results[Symbol.iterator]();
    const cursor: OpenCursor = {
      ns,
      source,
      lookahead: source.next(),
      lastUsed: Date.now(),
      noTimeout: opts.noTimeout ?? false,
      storedBytes: opts.storedBytes ?? false,
      rechecker: opts.rechecker,
      slice: opts.slice,
      tail: opts.tail,
    };
    const batch = takeBatch(cursor, opts.batchSize ?? 101);
    if ((cursor.lookahead.done && !cursor.tail) || opts.singleBatch) {
      closeSource(cursor);
      return { batch, id: 0n, storedBytes: cursor.storedBytes };
    }
    const id = this.allocateId();
    this.cursors.set(id, cursor);
    return { batch, id, storedBytes: cursor.storedBytes };
  }

  /**
   * The next batch of cursor `id` in namespace `ns`; batchSize undefined = up
   * to 16 MiB. mongod refuses `maxTimeMS` but on an awaitData cursor.
   */
  getMore(id: bigint, ns: string, batchSize?: number, maxTimeMS?: number): BatchResult {
    const cursor = this.cursors.get(id);
    if (!cursor) throw mongoError('CursorNotFound', `cursor id ${id} not found`);
    if (cursor.ns !== ns) {
      throw mongoError(
        'Unauthorized',
        `Requested getMore on namespace '${ns}', but cursor belongs to a different namespace ${cursor.ns}`,
      );
    }
    if (maxTimeMS !== undefined && !cursor.tail?.awaitData) {
      throw mongoError('BadValue', 'cannot set maxTimeMS on getMore command for a non-awaitData cursor');
    }
    return this.nextBatch(id, cursor, batchSize);
  }

  /**
   * getMore, except that an awaitData cursor with nothing new waits up to
   * `maxTimeMS` (default 1 s) for an insert into its collection, answering
   * as soon as one comes.
   */
  getMoreOrWait(id: bigint, ns: string, batchSize?: number, maxTimeMS?: number): BatchResult | Promise<BatchResult> {
    const result = this.getMore(id, ns, batchSize, maxTimeMS);
    const cursor = this.cursors.get(id);
    if (!cursor?.tail?.awaitData || result.batch.length > 0 || result.id === 0n) return result;
    return this.awaitData(id, cursor, batchSize, maxTimeMS ?? DEFAULT_AWAIT_DATA_MS);
  }

  /** Wakes the awaitData getMores waiting on namespace `ns` (an insert into a capped collection). */
  insertedInto(ns: string): void {
    const waiters = this.waiting.get(ns);
    if (!waiters) return;
    this.waiting.delete(ns);
    for (const wake of waiters) wake();
  }

  private async awaitData(id: bigint, cursor: OpenCursor, batchSize: number | undefined, maxTimeMS: number): Promise<BatchResult> {
    const deadline = Date.now() + maxTimeMS;
    for (let left = maxTimeMS; left > 0; left = deadline - Date.now()) {
      await this.insertOrTimeout(cursor.tail!.ns, left);
      // Killed (killCursors, drop) while it waited.
      if (this.cursors.get(id) !== cursor) throw mongoError('CursorNotFound', `cursor id ${id} not found`);
      const result = this.nextBatch(id, cursor, batchSize);
      if (result.batch.length > 0 || result.id === 0n) return result;
    }
    return { batch: [], id, storedBytes: cursor.storedBytes };
  }

  private insertOrTimeout(ns: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      let waiters = this.waiting.get(ns);
      if (!waiters) this.waiting.set(ns, (waiters = new Set()));
      const wake = (): void => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiting.get(ns)?.delete(wake);
        resolve();
      }, ms);
      waiters.add(wake);
    });
  }

  private nextBatch(id: bigint, cursor: OpenCursor, batchSize?: number): BatchResult {
    cursor.lastUsed = Date.now();
    let batch: Document[];
    try {
      cursor.slice?.begin();
      if (cursor.tail) {
        cursor.tail.checkPosition();
        // At the end of what it read: on with what was inserted since.
        if (cursor.lookahead.done) {
          cursor.source = cursor.tail.resume();
          cursor.lookahead = cursor.source.next();
        }
      }
      // The last command's slice ended the read: it goes on from there.
      if (cursor.lookahead.value === SLICE_END) cursor.lookahead = cursor.source.next();
      // Read ahead during an earlier command: deleted or changed since, as mongod would read it now.
      else if (cursor.rechecker && !cursor.lookahead.done) {
        const current = cursor.rechecker.recheck(cursor.lookahead.value);
        cursor.lookahead = current === undefined ? cursor.source.next() : { done: false, value: current };
      }
      batch = takeBatch(cursor, batchSize && batchSize > 0 ? batchSize : Infinity);
    } catch (err) {
      // As mongod: a cursor whose query failed is gone (its read-ahead would be served twice).
      closeSource(cursor);
      this.cursors.delete(id);
      throw err;
    }
    if (cursor.lookahead.done && !cursor.tail) {
      this.cursors.delete(id);
      return { batch, id: 0n, storedBytes: cursor.storedBytes };
    }
    return { batch, id, storedBytes: cursor.storedBytes };
  }

  /** Kills the listed cursors of namespace `ns` (others count as not found). */
  kill(ns: string, ids: bigint[]): KillCursorsResult {
    const result: KillCursorsResult = { cursorsKilled: [], cursorsNotFound: [], cursorsAlive: [], cursorsUnknown: [] };
    for (const id of ids) {
      const cursor = this.cursors.get(id);
      if (cursor && cursor.ns === ns) {
        closeSource(cursor);
        this.cursors.delete(id);
        result.cursorsKilled.push(Long.fromBigInt(id));
      } else {
        result.cursorsNotFound.push(Long.fromBigInt(id));
      }
    }
    return result;
  }

  /** Drops every cursor of a collection (drop) or, with `wholeDb`, of a database. */
  killNamespace(db: string, coll?: string): void {
    for (const [id, cursor] of this.cursors) {
      if (coll === undefined ? cursor.ns.startsWith(`${db}.`) : cursor.ns === `${db}.${coll}`) {
        closeSource(cursor);
        this.cursors.delete(id);
      }
    }
  }

  close(): void {
    clearInterval(this.timer);
    for (const ns of [...this.waiting.keys()]) this.insertedInto(ns);
    for (const cursor of this.cursors.values()) closeSource(cursor);
    this.cursors.clear();
  }

  private sweep(): void {
    const deadline = Date.now() - this.idleTimeoutMs;
    for (const [id, cursor] of this.cursors) {
      if (!cursor.noTimeout && cursor.lastUsed <= deadline) {
        closeSource(cursor);
        this.cursors.delete(id);
      }
    }
  }

  /**
   * Random positive int64 ids, as mongod's, always above 2^53 so that a
   * client promoting Longs to numbers (db.command) cannot lose precision.
   */
  private allocateId(): bigint {
    for (;;) {
      const id = (randomBytes(8).readBigUInt64BE() & 0x3fffffffffffffffn) | 0x4000000000000000n;
      if (!this.cursors.has(id)) return id;
    }
  }
}

function takeBatch(cursor: OpenCursor, batchSize: number): Document[] {
  const batch: Document[] = [];
  let bytes = 0;
  while (!cursor.lookahead.done && batch.length < batchSize) {
    const doc = cursor.lookahead.value;
    // The slice is spent: the batch ends short (maybe empty), the cursor stays open.
    if (doc === SLICE_END) break;
    // A scan's unchanged document measures as its stored bytes.
    const size = ((cursor.storedBytes && storedBytesOf(doc)?.length) || BSON.calculateObjectSize(doc)) + arrayElementOverhead(batch.length);
    // Always return at least one document, even an oversized one.
    if (batch.length > 0 && bytes + size > MAX_BATCH_BYTES) break;
    batch.push(doc);
    bytes += size;
    cursor.lookahead = cursor.source.next();
  }
  return batch;
}

/**
 * What the batch array adds per document (type byte, decimal index key, its
 * NUL): counted so that a batch of tiny documents stays within the limit as
 * a whole reply, not only as the sum of its documents.
 */
function arrayElementOverhead(index: number): number {
  return 2 + (index < 10 ? 1 : String(index).length);
}

function closeSource(cursor: OpenCursor): void {
  cursor.source.return?.();
}

/** The reply of a command that opens a cursor. */
export function firstBatchReply(ns: string, result: BatchResult): Document {
  if (result.storedBytes) return storedBatchReply(ns, 'firstBatch', result.batch, result.id);
  return { cursor: { firstBatch: result.batch, id: Long.fromBigInt(result.id), ns } };
}

export function nextBatchReply(ns: string, result: BatchResult): Document {
  if (result.storedBytes) return storedBatchReply(ns, 'nextBatch', result.batch, result.id);
  return { cursor: { nextBatch: result.batch, id: Long.fromBigInt(result.id), ns } };
}
