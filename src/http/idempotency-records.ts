import mongoose from 'mongoose';

/** How long a key answers its first result again (contract: 24 hours). */
export const IDEMPOTENCY_WINDOW_SECONDS = 24 * 60 * 60;

/** One key of one caller: the request it was first used with and, once done, the answer kept. */
export interface IdempotencyRecord {
  /** sha256 of the caller's scope and the key: the key itself is not stored. */
  _id: string;
  /** sha256 of the request (method, path, body): another body with the key is 422. */
  fingerprint: string;
  state: 'pending' | 'done';
  status?: number;
  contentType?: string;
  /** The answer as replayed (secrets already taken out). */
  body?: string;
  createdAt: Date;
}

/**
 * The idempotency records, in the database (collection `idempotencykeys`,
 * TTL index on `createdAt`): every instance sees the same keys, and a claim
 * is one insert on the unique `_id`, so of concurrent requests exactly one wins.
 */
export class IdempotencyRecords {
  private indexed?: Promise<unknown>;

  constructor(
    private readonly collectionName = 'idempotencykeys',
    private readonly windowSeconds = IDEMPOTENCY_WINDOW_SECONDS,
  ) {}

  private collection() {
    const collection = mongoose.connection.collection<IdempotencyRecord>(this.collectionName);
    // Once per process; the TTL monitor removes records after the window (reads also ignore older ones).
    this.indexed ??= collection.createIndex({ createdAt: 1 }, { expireAfterSeconds: this.windowSeconds }).catch((err: unknown) => {
      this.indexed = undefined;
      throw err;
    });
    return { collection, indexed: this.indexed };
  }

  /** Claims the key for this request: true when this request is the first (within the window). */
  async claim(id: string, fingerprint: string): Promise<boolean> {
    const { collection, indexed } = this.collection();
    await indexed;
    try {
      await collection.insertOne({ _id: id, fingerprint, state: 'pending', createdAt: new Date() });
      return true;
    } catch (err) {
      if ((err as { code?: number }).code === 11000) return false;
      throw err;
    }
  }

  /** The record of a key, or null when there is none within the window. */
  async find(id: string): Promise<IdempotencyRecord | null> {
    const record = await this.collection().collection.findOne({ _id: id });
    if (!record || Date.now() - record.createdAt.getTime() < this.windowSeconds * 1000) return record;
    // Past the window and not yet swept by the TTL monitor: gone, as if swept.
    await this.collection().collection.deleteOne({ _id: id, createdAt: record.createdAt });
    return null;
  }

  async complete(id: string, answer: { status: number; contentType?: string; body: string }): Promise<void> {
    await this.collection().collection.updateOne({ _id: id, state: 'pending' }, { $set: { state: 'done', ...answer } });
  }

  /** Gives a pending key back (the request failed: nothing happened, a retry may run). */
  async release(id: string, createdBefore?: Date): Promise<void> {
    await this.collection().collection.deleteOne({ _id: id, state: 'pending', ...(createdBefore ? { createdAt: { $lt: createdBefore } } : {}) });
  }
}
