import { randomBytes } from 'node:crypto';
import { trusted } from 'mongoose';
import type { Logger } from 'pino';
import { EventModel, EventState, type EventLog, type EventTail, type TailedEvent } from '../events/index.js';
import { ALL_EVENT_TYPES } from '../events/index.js';
import { DeliveryStatus, WebhookCursorModel, WebhookDeliveryModel, WebhookModel, type WebhookDelivery } from './webhook.model.js';
import { openSecret } from './webhook-secret.js';
import { send, type SendPolicy } from './webhook-sender.js';
import { signedHeaders } from './webhook-signature.js';

/** The contract's retry schedule: about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h after each failure; then failed. */
export const DEFAULT_RETRY_SCHEDULE_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000];
/** An endpoint failing with no success for this long is disabled. */
export const DEFAULT_DISABLE_AFTER_MS = 5 * 24 * 3600 * 1000;
export const DEFAULT_DELIVERY_TIMEOUT_MS = 10_000;
/** A test event is the one event type never fanned out: it goes to the endpoint it was sent for. */
export const TEST_EVENT_TYPE = 'webhooks.test';
export const DISABLED_EVENT_TYPE = 'webhooks.disabled';
const CURSOR_ID = 'fan-out';
/** A delivery nobody holds: a lease that ended long ago (one range condition claims, no $or). */
export const NO_LEASE = new Date(0);

/** What tests may change (createService options, never the environment). */
export interface WebhookDeliveryOptions {
  retryScheduleMs?: readonly number[];
  timeoutMs?: number;
  disableAfterMs?: number;
  /** Deliveries one instance sends at once. */
  concurrency?: number;
  /** How often due deliveries are looked for (retries, other instances' fan-out). */
  pollMs?: number;
  /** The clock (tests of the disable rule). */
  now?: () => number;
}

export interface WebhookWorkerDeps {
  tail: EventTail;
  eventLog: EventLog;
  jwtSecret: string;
  /** Production without WEBHOOK_ALLOW_PRIVATE. */
  guarded: boolean;
  logger: Logger;
  options?: WebhookDeliveryOptions;
}

const CANNOT_OPEN_SECRET =
  'the signing secret cannot be decrypted: JWT_SECRET changed since the endpoint was created; delete the endpoint and create it again';

/** The event as POSTed to endpoints. */
export function eventPayload(event: Pick<TailedEvent, 'id' | 'type' | 'tenant_id' | 'occurredAt' | 'actor' | 'target' | 'data'>): Record<string, unknown> {
  return {
    id: event.id,
    type: event.type,
    tenant_id: event.tenant_id,
    occurredAt: event.occurredAt,
    actor: { type: event.actor.type, id: event.actor.id },
    target: { type: event.target.type, id: event.target.id },
    data: event.data ?? {},
  };
}

/**
 * Delivers events to webhook endpoints, on every instance at once:
 * - fan-out: each committed event of the tail becomes one delivery per
 *   matching enabled endpoint; the unique (eventId, webhookId) index makes
 *   instances fanning out the same event create one. A watermark in the
 *   database catches up events committed while no instance ran.
 * - workers: claim a due delivery with a lease (findOneAndUpdate), longer
 *   than the send timeout, so a live delivery is never claimed twice and a
 *   crashed instance's claims are retaken once their lease ends.
 * It holds no API request (everything runs off the request path) and a
 * database error is logged and retried at the next round.
 */
export class WebhookWorker {
  private readonly schedule: readonly number[];
  private readonly timeoutMs: number;
  private readonly disableAfterMs: number;
  private readonly concurrency: number;
  private readonly pollMs: number;
  private readonly leaseMs: number;
  private readonly now: () => number;
  // The pid first: a test of a killed instance counts the leases it held.
  private readonly owner = `${process.pid}-${randomBytes(6).toString('hex')}`;
  private readonly policy: SendPolicy;
  private active = 0;
  private pumping = false;
  /** The pump under way, which close() waits for. */
  private pumped: Promise<void> = Promise.resolve();
  private stopped = true;
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private readonly inFlight = new Set<Promise<void>>();
  private fanning: Promise<void> = Promise.resolve();

  constructor(private readonly deps: WebhookWorkerDeps) {
    const options = deps.options ?? {};
    this.schedule = options.retryScheduleMs ?? DEFAULT_RETRY_SCHEDULE_MS;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS;
    this.disableAfterMs = options.disableAfterMs ?? DEFAULT_DISABLE_AFTER_MS;
    this.concurrency = options.concurrency ?? 16;
    this.pollMs = options.pollMs ?? 200;
    this.leaseMs = this.timeoutMs + 20_000;
    this.now = options.now ?? Date.now;
    this.policy = { guarded: deps.guarded, timeoutMs: this.timeoutMs, userAgent: 'admin-gateway-webhooks/1.0' };
  }

  /** Catches up from the stored watermark, then follows the tail and polls for due deliveries. */
  start(): void {
    this.stopped = false;
    this.fanning = this.catchUp().catch((error) => this.deps.logger.error({ err: error }, 'webhook fan-out catch-up failed; the tail goes on'));
    this.unsubscribe = this.deps.tail.subscribe((events) => {
      this.fanning = this.fanning.then(() => this.fanOut(events)).catch((error) => this.deps.logger.error({ err: error }, 'webhook fan-out failed'));
    });
    this.timer = setInterval(() => this.wake(), this.pollMs);
    this.timer.unref();
  }

  /** Looks for due deliveries now. */
  wake(): void {
    if (!this.stopped && !this.pumping) this.pumped = this.pump();
  }

  /** Stops claiming; waits for the sends under way (each ends by its timeout). */
  async close(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    if (this.timer) clearInterval(this.timer);
    await this.fanning;
    // The claim under way ends first (the database may close after this); then the sends it started.
    await this.pumped;
    await Promise.allSettled([...this.inFlight]);
  }

  /** Events committed since the stored watermark (the first run starts from now). */
  private async catchUp(): Promise<void> {
    const cursor = await WebhookCursorModel.findById(CURSOR_ID).lean();
    if (!cursor) {
      await WebhookCursorModel.updateOne({ _id: CURSOR_ID }, { $max: { committedAt: new Date(this.now()) } }, { upsert: true });
      return;
    }
    let since = cursor.committedAt;
    for (;;) {
      const found = await EventModel.find({ state: EventState.committed, committedAt: trusted({ $gte: since }) }, { state: 0, dedupeKey: 0, expireAt: 0 })
        .sort({ committedAt: 1, _id: 1 })
        .limit(500)
        .lean();
      await this.fanOut(found.map((event) => ({ ...(event as unknown as TailedEvent), id: String(event._id) })));
      const last = found.at(-1);
      if (found.length < 500 || !last || (last.committedAt as Date).getTime() === since.getTime()) break;
      since = last.committedAt as Date;
    }
  }

  /** One delivery per (event, matching enabled endpoint); an existing one (another instance's) is kept. */
  private async fanOut(events: readonly TailedEvent[]): Promise<void> {
    const fanned = events.filter((event) => event.type !== TEST_EVENT_TYPE);
    if (fanned.length > 0) {
      const hooks = await WebhookModel.find({ enabled: true }, { _id: 1, tenant_id: 1, events: 1 }).lean();
      const deliveries = [];
      const now = new Date(this.now());
      for (const event of fanned) {
        for (const hook of hooks) {
          if (hook.tenant_id !== null && hook.tenant_id !== event.tenant_id) continue;
          if (!hook.events.includes(ALL_EVENT_TYPES) && !hook.events.includes(event.type)) continue;
          deliveries.push({
            webhookId: String(hook._id),
            eventId: event.id,
            type: event.type,
            tenant_id: event.tenant_id,
            status: DeliveryStatus.pending,
            attempts: 0,
            nextAttemptAt: now,
            leaseUntil: NO_LEASE,
            payload: eventPayload(event),
          });
        }
      }
      if (deliveries.length > 0) {
        await WebhookDeliveryModel.insertMany(deliveries, { ordered: false }).catch((error: { code?: number; writeErrors?: { code?: number }[] }) => {
          const duplicatesOnly = error.code === 11000 || (error.writeErrors ?? []).every((e) => e.code === 11000);
          if (!duplicatesOnly) throw error;
        });
        this.wake();
      }
    }
    const newest = events.reduce((max, event) => Math.max(max, (event.committedAt as Date | null)?.getTime() ?? 0), 0);
    if (newest > 0) await WebhookCursorModel.updateOne({ _id: CURSOR_ID }, { $max: { committedAt: new Date(newest) } }, { upsert: true });
  }

  /** Claims and sends due deliveries while there is room. */
  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (!this.stopped && this.active < this.concurrency) {
        const claimed = await this.claim();
        if (!claimed) break;
        this.active += 1;
        const sending = this.attempt(claimed)
          .catch((error) => this.deps.logger.error({ err: error, deliveryId: String(claimed._id) }, 'webhook delivery attempt failed to record; its lease will expire and it is retried'))
          .finally(() => {
            this.active -= 1;
            this.inFlight.delete(sending);
            this.wake();
          });
        this.inFlight.add(sending);
      }
    } catch (error) {
      this.deps.logger.error({ err: error }, 'claiming webhook deliveries failed; retrying at the next round');
    } finally {
      this.pumping = false;
    }
  }

  private async claim(): Promise<(WebhookDelivery & { _id: unknown }) | null> {
    const now = new Date(this.now());
    return WebhookDeliveryModel.findOneAndUpdate(
      { status: DeliveryStatus.pending, nextAttemptAt: trusted({ $lte: now }), leaseUntil: trusted({ $lt: now }) },
      { $set: { leaseUntil: new Date(now.getTime() + this.leaseMs), leaseOwner: this.owner } },
      { sort: { nextAttemptAt: 1 }, returnDocument: 'after' },
    ).lean();
  }

  /** One attempt, its outcome recorded under this instance's lease. */
  private async attempt(delivery: WebhookDelivery & { _id: unknown }): Promise<void> {
    const hook = await WebhookModel.findById(delivery.webhookId).lean();
    const mine = { _id: delivery._id, leaseOwner: this.owner };
    if (!hook || !hook.enabled) {
      await WebhookDeliveryModel.updateOne(mine, {
        $set: { status: DeliveryStatus.failed, nextAttemptAt: null, leaseUntil: NO_LEASE, error: hook ? 'the endpoint is disabled' : 'the endpoint was deleted' },
      });
      return;
    }
    const secret = openSecret(this.deps.jwtSecret, hook.secretSealed);
    const body = JSON.stringify(delivery.payload);
    const outcome = secret
      ? await send(hook.url, body, signedHeaders(secret, delivery.eventId, Math.floor(this.now() / 1000), body), this.policy)
      : { ok: false, responseStatus: null, durationMs: 0, error: CANNOT_OPEN_SECRET };
    const attempts = delivery.attempts + 1;
    const at = new Date(this.now());
    const lastChance = delivery.manualRetry === true || attempts > this.schedule.length;
    const status = outcome.ok ? DeliveryStatus.delivered : lastChance ? DeliveryStatus.failed : DeliveryStatus.pending;
    const nextAttemptAt = status === DeliveryStatus.pending ? new Date(at.getTime() + this.schedule[attempts - 1]!) : null;
    await WebhookDeliveryModel.updateOne(mine, {
      $set: {
        attempts,
        status,
        nextAttemptAt,
        lastAttemptAt: at,
        responseStatus: outcome.responseStatus,
        durationMs: outcome.durationMs,
        error: outcome.error,
        leaseUntil: NO_LEASE,
        leaseOwner: null,
        manualRetry: false,
      },
    });
    await (outcome.ok ? this.succeeded(hook._id) : this.failed(hook._id, hook.tenant_id, at));
  }

  private async succeeded(hookId: unknown): Promise<void> {
    await WebhookModel.updateOne({ _id: hookId, failingSince: trusted({ $ne: null }) }, { $set: { failingSince: null } });
  }

  /** Notes the first failure; past the disable rule, disables the endpoint (once: the update's filter decides) and says so with an event. */
  private async failed(hookId: unknown, tenantId: string | null, at: Date): Promise<void> {
    await WebhookModel.updateOne({ _id: hookId, failingSince: null }, { $set: { failingSince: at } });
    const cutoff = new Date(at.getTime() - this.disableAfterMs);
    const disabled = await WebhookModel.findOneAndUpdate(
      { _id: hookId, enabled: true, failingSince: trusted({ $lte: cutoff }) },
      { $set: { enabled: false, disabledAt: at, disabledReason: `every delivery failed for ${Math.round(this.disableAfterMs / 3_600_000)} hours in a row` } },
      { returnDocument: 'after' },
    ).lean();
    if (!disabled) return;
    this.deps.logger.warn({ webhookId: String(hookId) }, 'webhook endpoint disabled: its deliveries failed continuously');
    await this.deps.eventLog.append({
      type: DISABLED_EVENT_TYPE,
      tenant_id: tenantId,
      actor: { type: 'system', id: null },
      target: { type: 'Webhook', id: String(hookId) },
      data: { failingSince: disabled.failingSince, reason: disabled.disabledReason },
      dedupeKey: `${DISABLED_EVENT_TYPE}:${String(hookId)}:${(disabled.failingSince as Date).getTime()}`,
    });
  }
}
