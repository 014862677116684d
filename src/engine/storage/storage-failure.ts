import { statfsSync } from 'node:fs';
import { mongoError, type MongoCommandError } from '../errors.js';

/**
 * A write the durable storage could not put on disk (the write-ahead log's
 * write or sync, or an lmdb checkpoint) ends its writes for good, as a failed
 * journal write stops mongod: what is on disk is then the last state it
 * acknowledged, and the next start replays it. Every write from then on is
 * refused with this error, before it touches the data in memory.
 */

/** A promise that never settles: `failed` of a storage that cannot fail (in memory, or no engine of ours). */
export const NEVER_SETTLES: Promise<never> = new Promise<never>(() => undefined);

/** Errors that say the filesystem is out of space (a short write is one: the next write gets ENOSPC). */
const SPACE_ERRORS = new Set(['ENOSPC', 'EDQUOT']);

/**
 * Below this much free space a failure is taken for a full disk whatever its
 * error: lmdb reports a commit that could not grow its file on a full tmpfs
 * as EIO (errno 5), not ENOSPC.
 */
const FULL_BELOW_BYTES = 1024 * 1024;

/**
 * The refusal every write gets once the storage failed: OutOfDiskSpace
 * (14031, mongod's code) for a full disk, else InternalError. The message
 * names no path (it reaches clients); `cause` keeps the original for the log.
 */
export function storageFailure(cause: unknown, dataDir: string): MongoCommandError {
  const error = isOutOfSpace(cause, dataDir)
    ? mongoError('OutOfDiskSpace', 'the disk of the data directory is full: the engine stores no more writes until it is restarted with space free')
    : mongoError('InternalError', 'the data files could not be written: the engine stores no more writes until it is restarted');
  error.cause = cause;
  return error;
}

/** Failures after which memory could not be brought back to what the disk holds (see markMustStopNow). */
const mustStop = new WeakSet<Error>();

/**
 * Marks a failure the engine must stop for at once: its memory holds a
 * refused change it could not take back (a collection or index made or
 * dropped, or a document whose undo failed), so its reads would differ from
 * the disk. A restart reads the disk again.
 */
export function markMustStopNow(failure: Error): void {
  mustStop.add(failure);
}

export function mustStopNow(failure: Error): boolean {
  return mustStop.has(failure);
}

/**
 * Whether the engine stays read-only until its disk has space again (a full
 * disk, memory brought back to what the disk holds): only then is waiting
 * for space the way back. Any other failure calls for a restart at once.
 */
export function waitsForSpace(failure: Error): boolean {
  return (failure as { codeName?: unknown }).codeName === 'OutOfDiskSpace' && !mustStopNow(failure);
}

/**
 * The answer to a `j: true` write the log wrote but could not sync: it is in
 * the file, kept in memory and replayed by the next start unless the disk
 * lost it, so neither "stored" nor "not stored" is true. `failure`: the
 * storage's failure, kept as the cause for the log.
 */
export function outcomeUnknown(failure: MongoCommandError): MongoCommandError {
  const error = mongoError(
    'InternalError',
    'the write reached the data files but syncing them to disk failed: whether it survives a power cut is unknown; the engine stores no more writes until it is restarted',
  );
  error.cause = failure;
  return error;
}

function isOutOfSpace(cause: unknown, dataDir: string): boolean {
  const code = (cause as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && SPACE_ERRORS.has(code)) return true;
  return freeBytes(dataDir) < FULL_BELOW_BYTES;
}

/** Bytes free for this user on the filesystem of `dir` (Infinity when unknown: nothing to wait for). */
function freeBytes(dir: string): number {
  try {
    const { bavail, bsize } = statfsSync(dir);
    return bavail * bsize;
  } catch {
    return Infinity;
  }
}

/** Free space that counts as "space again" after a full disk: room for the replay at the next start and then some. */
const SPACE_AGAIN_BYTES = 8 * FULL_BELOW_BYTES;

/** Resolves once the filesystem of `dir` has space again (polled every `everyMs`). */
export function whenSpaceIsBack(dir: string, everyMs = 1_000): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (freeBytes(dir) >= SPACE_AGAIN_BYTES) resolve();
      else setTimeout(check, everyMs).unref();
    };
    check();
  });
}

/**
 * lmdb-js rejects a failed commit's writes with "Commit failed (see
 * commitError for details)" and `commitError`, a promise that rejects with
 * the error itself: unhandled, that rejection ends the process. This handles
 * it and resolves with what it carries (or the error itself, should it not
 * settle soon).
 */
export async function lmdbCommitCause(err: unknown): Promise<unknown> {
  const detail = (err as { commitError?: unknown } | undefined)?.commitError;
  if (!(detail instanceof Promise)) return err;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<unknown>((resolve) => {
    timer = setTimeout(() => resolve(err), 1_000);
    timer.unref();
  });
  try {
    return await Promise.race([detail.then(() => err, (cause: unknown) => cause), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * lmdb-js rejects the writes of a failed commit with an error whose
 * `commitError` is a promise of its own, rejected with the cause: left
 * unhandled it ends the process (the "Commit failed" crash). Every lmdb write
 * promise the storage makes passes its rejection here (the storage learns
 * of the failure from the write itself).
 */
export function settleCommitError(err: unknown): void {
  const detail = (err as { commitError?: unknown } | undefined)?.commitError;
  if (detail instanceof Promise) detail.catch(() => undefined);
}

/** lmdb-js's error for the writes of a commit that failed (see settleCommitError). */
function isLmdbCommitFailure(reason: unknown): reason is Error & { commitError: Promise<unknown> } {
  return (
    reason instanceof Error &&
    reason.message.startsWith('Commit failed') &&
    (reason as { commitError?: unknown }).commitError instanceof Promise
  );
}

let handlingLmdbRejections = false;

/**
 * lmdb-js also rejects a promise of its own, which no caller holds (lmdb-js
 * offers no way to reach it), when a commit fails: left unhandled it ends
 * the process, though the storage learns of the failure through its own
 * writes. Only such a rejection is handled here, and the first one logged
 * (`log`); any other is raised as Node would have raised it (an uncaught
 * exception), unless someone else listens too. Installed once per process.
 */
export function handleLmdbCommitRejections(log: (line: string) => void): void {
  if (handlingLmdbRejections) return;
  handlingLmdbRejections = true;
  let logged = false;
  process.on('unhandledRejection', function onUnhandled(reason) {
    if (isLmdbCommitFailure(reason)) {
      settleCommitError(reason);
      if (!logged) {
        logged = true;
        void lmdbCommitCause(reason).then((cause) =>
          log(`engine: lmdb rejected a commit promise of its own, handled here (${(cause as Error)?.message ?? String(cause)}); later ones are handled silently`),
        );
      }
      return;
    }
    if (process.listeners('unhandledRejection').every((listener) => listener === onUnhandled)) throw reason;
  });
}

/** The log line's words for a failure: its message and its cause's. */
export function describeFailure(error: Error): string {
  const cause = error.cause as { message?: unknown; code?: unknown } | undefined;
  if (!cause) return error.message;
  const detail = typeof cause.message === 'string' ? cause.message : String(cause);
  return `${error.message} (${detail}${typeof cause.code === 'string' || typeof cause.code === 'number' ? `, ${cause.code}` : ''})`;
}
