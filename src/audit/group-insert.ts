import { MongoBulkWriteError, type Collection, type Document, type OptionalUnlessRequiredId } from 'mongodb';

/**
 * When a queued batch goes to the database:
 * - `turn`: at the end of the event turn it was queued in (`setImmediate`),
 *   whatever is still in flight;
 * - `serial`: the same, but never while an earlier batch is in flight: what
 *   queues meanwhile goes in the next one (bigger batches under load).
 */
export type GroupInsertMode = 'turn' | 'serial';

interface Pending<T> {
  document: T;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: every document queued in one event turn is written by ONE
 * unordered insert command, and each caller's promise settles when its own
 * document is acknowledged. A document the database refuses (a write error
 * at its index) fails only its caller; an error of the whole command (the
 * connection, a write concern) fails the whole batch. Per request this saves
 * a command's encoding, socket write and reply parsing: two thirds of the
 * audit record's cost on a one-write mutation.
 */
export class GroupInsert<T extends Document> {
  private queue: Pending<T>[] = [];
  private scheduled = false;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly collection: () => Collection<T>,
    private readonly mode: GroupInsertMode = 'turn',
  ) {}

  /** Resolves once this document is stored; rejects with its own error. */
  insert(document: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ document, resolve, reject });
      this.schedule();
    });
  }

  /** Writes everything queued and waits for every insert in flight (shutdown: before the database closes). */
  async drain(): Promise<void> {
    while (this.queue.length > 0 || this.inFlight.size > 0) {
      this.flush();
      await Promise.allSettled([...this.inFlight]);
    }
  }

  private schedule(): void {
    if (this.scheduled || this.queue.length === 0) return;
    // Serial: the insert in flight schedules the next batch when it is answered.
    if (this.mode === 'serial' && this.inFlight.size > 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    if (this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    const flight = this.write(batch).finally(() => {
      this.inFlight.delete(flight);
      this.schedule();
    });
    this.inFlight.add(flight);
  }

  private async write(batch: Pending<T>[]): Promise<void> {
    const documents = batch.map((pending) => pending.document as OptionalUnlessRequiredId<T>);
    try {
      await this.collection().insertMany(documents, { ordered: false });
    } catch (error) {
      const refused = refusedByIndex(error);
      if (!refused) {
        for (const pending of batch) pending.reject(error);
        return;
      }
      batch.forEach((pending, index) => {
        const own = refused.get(index);
        if (own) pending.reject(own);
        else pending.resolve();
      });
      return;
    }
    for (const pending of batch) pending.resolve();
  }
}

/**
 * The write errors of a bulk insert by document index, when they are the
 * only trouble; undefined when the command as a whole failed (nothing is
 * known to be stored) or a write concern was not met (nothing is acknowledged).
 */
function refusedByIndex(error: unknown): Map<number, Error> | undefined {
  if (!(error instanceof MongoBulkWriteError) || error.result?.getWriteConcernError()) return undefined;
  const writeErrors = [error.writeErrors].flat(); // typed "one or more"
  if (writeErrors.length === 0) return undefined;
  return new Map(writeErrors.map((refusal) => [refusal.index, new InsertRefused(refusal.errmsg ?? 'insert refused', refusal.code)]));
}

/** One document's own write error from a grouped insert (the database's message and code). */
export class InsertRefused extends Error {
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
    this.name = 'InsertRefused';
  }
}
