import { Types } from 'mongoose';
import { SubscriptionSlotModel } from './subscription-slot.model.js';

const DUPLICATE_KEY = 11000;

export interface SubscriptionSlotsOptions {
  /** How long a hold lasts unrenewed (an instance that died frees its slots then). */
  leaseMs?: number;
  /** A renewal that could not be written (the next one tries again). */
  onError?: (err: unknown) => void;
}

/**
 * The per-credential limit on event subscriptions, kept in the database
 * (EVENT_SUBSCRIPTIONS_PER_CREDENTIAL): one slot document per open stream,
 * taken with a lease that this instance renews for all its streams every
 * third of it, released when the stream ends.
 */
export class SubscriptionSlots {
  readonly leaseMs: number;
  private readonly instance = new Types.ObjectId().toHexString();
  private readonly held = new Set<string>();
  private renewal: NodeJS.Timeout | null = null;

  constructor(private readonly options: SubscriptionSlotsOptions = {}) {
    this.leaseMs = options.leaseMs ?? 15_000;
  }

  /** Takes a free slot of `credential` for a new stream: its release, or null when all `limit` are held. */
  async take(credential: string, limit: number): Promise<(() => Promise<void>) | null> {
    const holder = new Types.ObjectId().toHexString();
    for (let n = 0; n < limit; n += 1) {
      const _id = `${credential}#${n}`;
      try {
        // Free: absent (the upsert inserts it) or its lease ran out by the database's clock; held: the insert is refused by its _id.
        await SubscriptionSlotModel.collection.updateOne(
          { _id: _id as never, $expr: { $lt: ['$expiresAt', '$$NOW'] } },
          [{ $set: { instance: { $literal: this.instance }, holder: { $literal: holder }, expiresAt: { $add: ['$$NOW', this.leaseMs] } } }],
          { upsert: true },
        );
      } catch (err) {
        if ((err as { code?: unknown }).code === DUPLICATE_KEY) continue;
        throw err;
      }
      this.held.add(holder);
      this.renewEvery();
      return async () => {
        this.held.delete(holder);
        await SubscriptionSlotModel.collection.deleteOne({ _id: _id as never, holder });
      };
    }
    return null;
  }

  /** Stops renewing (shutdown: the streams were ended and their slots released). */
  close(): void {
    if (this.renewal) clearInterval(this.renewal);
    this.renewal = null;
  }

  private renewEvery(): void {
    if (this.renewal) return;
    this.renewal = setInterval(() => void this.renew(), this.leaseMs / 3);
    this.renewal.unref();
  }

  /** Extends the leases of this instance's streams; the database away: the next round tries again (a lease outlasts two misses). */
  private async renew(): Promise<void> {
    if (this.held.size === 0) return this.close();
    await SubscriptionSlotModel.collection
      .updateMany({ instance: this.instance }, [{ $set: { expiresAt: { $add: ['$$NOW', this.leaseMs] } } }])
      .catch((err: unknown) => this.options.onError?.(err));
  }
}
