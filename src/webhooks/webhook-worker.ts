import { randomBytes } from 'node:crypto';
import { threadId } from 'node:worker_threads';
import mongoose, { trusted } from 'mongoose';
import type { Logger } from 'pino';
import { EventModel, type EventLog, type EventTail, type TailedEvent } from '../events/index.js';
import { ALL_EVENT_TYPES } from '../events/index.js';
import { DeliveryStatus, HELD, WebhookCursorModel, WebhookDeliveryModel, WebhookModel, type Webhook, type WebhookDelivery } from './webhook.model.js';
import { openSecret } from './webhook-secret.js';
import { send, sendingAgents, type SendPolicy } from './webhook-sender.js';
import { signedHeaders } from './webhook-signature.js';
import type { DeliveryOutcome } from '../metrics/index.js';
import { GroupWrite } from '../shared/index.js';

/** The contract's retry schedule: about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h after each failure; then failed. */
export const DEFAULT_RETRY_SCHEDULE_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000];
/** An endpoint failing with no success for this long is disabled. */
export const DEFAULT_DISABLE_AFTER_MS = 5 * 24 * 3600 * 1000;
export const DEFAULT_DELIVERY_TIMEOUT_MS = 10_000;
/** A test event is the one event type never fanned out: it goes to the endpoint it was sent for. */
export const TEST_EVENT_TYPE = 'webhooks.test';
export const DISABLED_EVENT_TYPE = 'webhooks.disabled';
const CURSOR_ID = 'fan-out';
/** How often the fan-out's watermark is stored. */
const WATERMARK_EVERY_MS = 1000;
/** How far before the watermark a catch-up starts (as the tail's lookback). */
const CATCH_UP_LOOKBACK_MS = 2000;
/** Events read per page of a catch-up. */
const CATCH_UP_PAGE = 500;
/** How soon a claim past full shares that found nothing is asked again with nothing new (WebhookWorker.emptyClaims). */
const EMPTY_CLAIM_REPEAT_MS = 1000;
/** Empty claims remembered at once (WebhookWorker.emptyClaims). */
const MAX_EMPTY_CLAIMS = 8;

interface Exclusions {
  fullEndpoints: string[];
  fullTenants: (string | null)[];
}
/** A claim that found nothing due: its exclusions, the fan-out news it had seen, and when. */
interface EmptyClaim extends Exclusions {
  news: number;
  at: number;
}

/** Whether `exclusions` leave out every endpoint and tenant `other` left out. */
function excludesAtLeast(exclusions: Exclusions, other: Exclusions): boolean {
  return other.fullEndpoints.every((id) => exclusions.fullEndpoints.includes(id)) && other.fullTenants.every((id) => exclusions.fullTenants.includes(id));
}
/** A delivery nobody holds: a lease that ended long ago (one range condition claims, no $or). */
export const NO_LEASE = new Date(0);

/** What tests may change (createService options, never the environment). */
export interface WebhookDeliveryOptions {
  retryScheduleMs?: readonly number[];
  timeoutMs?: number;
  disableAfterMs?: number;
  /** Deliveries one instance sends at once. */
  concurrency?: number;
  /** Of those, at most this many to one endpoint (a hanging endpoint holds no more of the pool). */
  perEndpoint?: number;
  /** And at most this many for one tenant's events (a tenant's hanging endpoints leave room for the others'). */
  perTenant?: number;
  /** How often due deliveries are looked for (retries, other instances' fan-out). */
  pollMs?: number;
  /** The clock of the disable rule and the signature timestamp (tests); leases and due times follow the database's clock. */
  now?: () => number;
}

/** Each instance's share of the pool: a few sends per endpoint, half the pool per tenant. */
export const DEFAULT_CONCURRENCY = 16;
export const DEFAULT_PER_ENDPOINT = 4;

export interface WebhookWorkerDeps {
  tail: EventTail;
  eventLog: EventLog;
  jwtSecret: string;
  /** EVENT_RETENTION: a delivery is kept this long after its last attempt (or after it was due), then the TTL index removes it. */
  retentionSeconds: number;
  /** Production without WEBHOOK_ALLOW_PRIVATE. */
  guarded: boolean;
  logger: Logger;
  options?: WebhookDeliveryOptions;
  /** Told how each attempt ended, with the seconds since its event occurred (metrics: webhook_deliveries_total). */
  onAttempt?: (outcome: DeliveryOutcome, delaySeconds: number | null) => void;
}

const CANNOT_OPEN_SECRET =
  'the signing secret cannot be decrypted: JWT_SECRET changed since the endpoint was created; delete the endpoint and create it again';

/**
 * The fan-out's first run starts from now, by the database's clock (which stamps committedAt,
 * event-log.ts); once a watermark is stored this changes nothing. Called before a worker that
 * starts later (a delivery thread) is started: events committed meanwhile are caught up.
 */
export async function anchorWebhookFanOut(): Promise<void> {
  await WebhookCursorModel.collection.updateOne({ _id: CURSOR_ID as never }, [{ $set: { committedAt: { $ifNull: ['$committedAt', '$$NOW'] } } }], { upsert: true });
}

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
 *   database catches up events committed while no instance ran, and after a
 *   fan-out that failed (the watermark only moves over what was written).
 * - workers: claim a due delivery with a lease judged by the database's
 *   clock ($$NOW, never this instance's), longer than the send timeout, so a
 *   live delivery is never claimed twice and a crashed instance's claims are
 *   retaken once their lease ends. A claim skips endpoints and tenants at
 *   their share of this instance's pool.
 * It holds no API request (everything runs off the request path) and a
 * database error is logged once per outage and retried at the next round.
 */
export class WebhookWorker {
  private readonly schedule: readonly number[];
  private readonly timeoutMs: number;
  private readonly disableAfterMs: number;
  private readonly concurrency: number;
  private readonly perEndpoint: number;
  private readonly perTenant: number;
  private readonly pollMs: number;
  private readonly leaseMs: number;
  private readonly retentionMs: number;
  private readonly now: () => number;
  // The pid first (a test of a killed instance counts the leases it held), then the thread (0: the process's main one).
  private readonly owner = `${process.pid}-${threadId}-${randomBytes(6).toString('hex')}`;
  private readonly policy: SendPolicy;
  /** Sends under way, by endpoint and by tenant (this instance's pool). */
  private readonly sendingTo = new Map<string, number>();
  private readonly sendingFor = new Map<string | null, number>();
  private active = 0;
  /** The pump under way (null: none), which close() waits for. */
  private pumped: Promise<void> | null = null;
  private wokenWhilePumping = false;
  private wakeScheduled = false;
  private stopped = true;
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private readonly inFlight = new Set<Promise<void>>();
  private fanning: Promise<void> = Promise.resolve();
  /** A fan-out failed: the next round catches up from the stored watermark. */
  private behind = false;
  /** The newest committedAt fanned out and not yet stored (stored at most once per WATERMARK_EVERY_MS). */
  private unstoredWatermark = 0;
  private watermarkTimer: NodeJS.Timeout | null = null;
  private readonly outage: OutageLog;
  /**
   * A claim that skipped endpoints and tenants at their share scans every pending delivery
   * of theirs (no index bounds a $nin), so a slow endpoint's backlog made each wake (one per
   * audited write) cost a scan of it: the API's writes fell to 0.40 of their rate in the
   * bench. Such a claim that found nothing is repeated only when the shares change, when a
   * fan-out brings a delivery with room (counted in `news`), or a second later (retries come
   * due, other instances free leases). A claim that found nothing excluding some shares finds
   * nothing excluding more of them: each such claim answers for every claim that excludes at
   * least what it excluded (kept while fresh, a few at a time).
   */
  private news = 0;
  private emptyClaims: EmptyClaim[] = [];
  /** Claims of several deliveries made so far: each leases them under an owner of its own (claimSeveral). */
  private claims = 0;
  /**
   * The attempts' outcomes, one bulk write for those that end together (group-write.ts): a
   * command of its own cost the engine about three times an update in a batch of 8, and the
   * outcome was the one write of every first attempt.
   */
  private readonly outcomes = new GroupWrite<Record<string, unknown>>(() => WebhookDeliveryModel.collection as never);

  constructor(private readonly deps: WebhookWorkerDeps) {
    const options = deps.options ?? {};
    this.schedule = options.retryScheduleMs ?? DEFAULT_RETRY_SCHEDULE_MS;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS;
    this.disableAfterMs = options.disableAfterMs ?? DEFAULT_DISABLE_AFTER_MS;
    this.concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
    this.perEndpoint = options.perEndpoint ?? DEFAULT_PER_ENDPOINT;
    this.perTenant = options.perTenant ?? Math.max(this.perEndpoint, Math.floor(this.concurrency / 2));
    this.pollMs = options.pollMs ?? 200;
    this.leaseMs = this.timeoutMs + 20_000;
    this.retentionMs = deps.retentionSeconds * 1000;
    this.now = options.now ?? Date.now;
    this.policy = { guarded: deps.guarded, timeoutMs: this.timeoutMs, userAgent: 'admin-gateway-webhooks/1.0', agents: sendingAgents(this.concurrency) };
    this.outage = new OutageLog(deps.logger);
  }

  /** Catches up from the stored watermark, then follows the tail and polls for due deliveries. */
  start(): void {
    this.stopped = false;
    this.behind = true;
    this.fanInOrder([]);
    // The tail hands out what commits from its first read, made at once: before the catch-up's
    // read, so that the two overlap (the unique index keeps one delivery) rather than leave a gap.
    this.unsubscribe = this.deps.tail.subscribe((events) => this.fanInOrder(events, true));
    this.timer = setInterval(() => this.wake(), this.pollMs);
    this.timer.unref();
  }

  /** Looks for due deliveries now (and retries a failed fan-out). */
  wake(): void {
    if (this.stopped) return;
    if (this.behind) this.fanInOrder([]);
    // A wake while a pump runs (a send ended after its last claim) runs one more when it ends.
    if (this.pumped) {
      this.wokenWhilePumping = true;
      return;
    }
    this.pumped = this.pump().finally(() => {
      this.pumped = null;
      if (!this.wokenWhilePumping) return;
      this.wokenWhilePumping = false;
      this.wake();
    });
  }

  /**
   * Wakes once the sends ending in this turn have all ended: the outcomes of sends that ended
   * together are recorded together (one bulk write) and resolve in one turn, so their room makes
   * one claim of several, not a claim of one followed by one of the rest.
   */
  private wakeAfterSendsEnd(): void {
    if (this.wakeScheduled) return;
    this.wakeScheduled = true;
    setImmediate(() => {
      this.wakeScheduled = false;
      this.wake();
    });
  }

  /** Stops claiming; waits for the sends under way (each ends by its timeout). */
  async close(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    if (this.timer) clearInterval(this.timer);
    await this.fanning;
    await this.storeWatermark().catch((error) => this.deps.logger.warn({ err: error }, 'could not store the webhook fan-out watermark at shutdown'));
    // The claim under way ends first (the database may close after this); then the sends it started.
    await this.pumped;
    await Promise.allSettled([...this.inFlight]);
    this.policy.agents?.destroy();
  }

  /**
   * Fans out one tail batch after the previous one. Behind (at start, or after
   * a failure), it first catches up from the stored watermark, which covers the
   * failed batch: the watermark only moved over batches written.
   */
  private fanInOrder(events: readonly TailedEvent[], live = false): void {
    this.fanning = this.fanning.then(async () => {
      if (this.stopped && events.length === 0) return;
      try {
        if (this.behind) {
          await this.catchUp();
          this.behind = false;
        }
        await this.fanOut(events, live && !this.stopped);
        this.outage.ended('webhook fan-out');
      } catch (error) {
        this.behind = true;
        this.outage.failed('webhook fan-out', error, 'webhook fan-out failed; it catches up from the stored watermark at the next round');
      }
    });
  }

  /** Events committed since the stored watermark, in pages by (committedAt, _id) (the first run starts from now). */
  private async catchUp(): Promise<void> {
    const watermark = (await WebhookCursorModel.findById(CURSOR_ID).lean())?.committedAt;
    if (!(watermark instanceof Date)) {
      await anchorWebhookFanOut();
      return;
    }
    let since: { committedAt: Date; _id: unknown } | null = null;
    for (;;) {
      const after: Record<string, unknown> = since
        ? { $or: [{ committedAt: { $gt: since.committedAt } }, { committedAt: since.committedAt, _id: { $gt: since._id } }] }
        : // A little before it too: an event that became visible late (the tail's lookback) may sit below it.
          { committedAt: { $gte: new Date(watermark.getTime() - CATCH_UP_LOOKBACK_MS) } };
      const found = await EventModel.collection
        // committedAt is set exactly when an event commits: the range alone selects committed events (event-tail.ts).
        .find(after, { projection: { state: 0, dedupeKey: 0, expireAt: 0 } })
        .sort({ committedAt: 1, _id: 1 })
        .limit(CATCH_UP_PAGE)
        .toArray();
      await this.fanOut(found.map((event) => ({ ...(event as unknown as TailedEvent), id: String(event._id) })));
      const last = found.at(-1);
      if (found.length < CATCH_UP_PAGE || !last) break;
      since = { committedAt: last.committedAt as Date, _id: last._id as unknown };
    }
  }

  /**
   * One delivery per (event, matching enabled endpoint); an existing one (another instance's) is kept.
   * `live` (events of the tail, committed moments ago): the deliveries this instance has room for
   * are inserted already leased to it and sent at once, with the endpoint as the fan-out read it:
   * no claim and no endpoint read for a delivery that goes out the first time (two of its four
   * database commands). Their lease runs from the event's commit, by the database's clock.
   */
  private async fanOut(events: readonly TailedEvent[], live = false): Promise<void> {
    const fanned = events.filter((event) => event.type !== TEST_EVENT_TYPE);
    if (fanned.length > 0) {
      const hooks = await WebhookModel.find({ enabled: true }, { ...ENDPOINT_TO_SEND, events: 1 }).lean();
      const deliveries: FannedDelivery[] = [];
      const sendNow: { index: number; hook: EndpointToSend }[] = [];
      const now = new Date(this.now());
      for (const event of fanned) {
        const committedAt = event.committedAt as Date | null;
        for (const hook of hooks) {
          if (hook.tenant_id !== null && hook.tenant_id !== event.tenant_id) continue;
          if (!hook.events.includes(ALL_EVENT_TYPES) && !hook.events.includes(event.type)) continue;
          const webhookId = String(hook._id);
          const leased = live && committedAt !== null && this.active < this.concurrency && this.hasRoomFor({ webhookId, tenant_id: event.tenant_id });
          if (leased) {
            sendNow.push({ index: deliveries.length, hook });
            this.sending({ webhookId, tenant_id: event.tenant_id }, +1);
          }
          // Every field of the model, as mongoose's defaults and timestamps would set them: the
          // insert is lean (no document, casting or validation per delivery, a third of a delivery's cost).
          deliveries.push({
            _id: new mongoose.Types.ObjectId(),
            webhookId,
            eventId: event.id,
            type: event.type,
            tenant_id: event.tenant_id,
            status: DeliveryStatus.pending,
            attempts: 0,
            responseStatus: null,
            durationMs: null,
            // Due since it committed (a time from the database's clock when the log stamps it so, never this
            // instance's clock), or when its lease ends if this instance sends it now.
            nextAttemptAt: leased ? new Date(committedAt.getTime() + this.leaseMs) : (committedAt ?? now),
            lastAttemptAt: null,
            error: null,
            payload: eventPayload(event),
            leaseUntil: leased ? new Date(committedAt.getTime() + this.leaseMs) : NO_LEASE,
            leaseOwner: leased ? this.owner : null,
            expireAt: new Date(now.getTime() + this.retentionMs),
            manualRetry: false,
            createdAt: now,
            updatedAt: now,
            __v: 0,
          });
        }
      }
      if (deliveries.length > 0) {
        // Another instance's fan-out of the same event inserted first: its delivery is the one (and its to send).
        const duplicates = new Set<number>();
        try {
          await WebhookDeliveryModel.insertMany(deliveries, { ordered: false, lean: true }).catch((error: { writeErrors?: WriteErrorShape | WriteErrorShape[] }) => {
            // mongoose lists each as { err, index } (index: in `deliveries`); the driver's own are the error itself.
            const writeErrors = error.writeErrors === undefined ? [] : [error.writeErrors].flat();
            if (writeErrors.length === 0 || writeErrors.some((e) => (e.err?.code ?? e.code) !== 11000 || typeof e.index !== 'number')) throw error;
            for (const e of writeErrors) duplicates.add(e.index!);
          });
        } catch (error) {
          // Unknown which were written: a written one's lease ends and a claim sends it then.
          for (const { index } of sendNow) this.sending(deliveries[index]!, -1);
          throw error;
        }
        for (const { index, hook } of sendNow) {
          const delivery = deliveries[index]!;
          if (duplicates.has(index)) this.sending(delivery, -1);
          else this.sendClaimed(delivery as unknown as ClaimedDelivery, hook);
        }
        const leased = new Set(sendNow.map(({ index }) => index));
        if (deliveries.some((delivery, index) => !leased.has(index) && this.hasRoomFor(delivery))) this.news += 1;
        this.wake();
      }
    }
    const newest = events.reduce((max, event) => Math.max(max, (event.committedAt as Date | null)?.getTime() ?? 0), 0);
    if (newest > this.unstoredWatermark) {
      this.unstoredWatermark = newest;
      // Stored once a second, not once per batch (one write per audited call): a crash loses at most
      // that second of progress, whose events the next catch-up fans out again (unique: no duplicates).
      this.watermarkTimer ??= setTimeout(() => {
        this.watermarkTimer = null;
        this.fanning = this.fanning.then(() => this.storeWatermark()).catch((error) => {
          this.behind = true;
          this.outage.failed('webhook fan-out', error, 'storing the webhook fan-out watermark failed; it catches up from the stored one at the next round');
        });
      }, WATERMARK_EVERY_MS);
      this.watermarkTimer.unref();
    }
  }

  private async storeWatermark(): Promise<void> {
    if (this.watermarkTimer) clearTimeout(this.watermarkTimer);
    this.watermarkTimer = null;
    const newest = this.unstoredWatermark;
    if (newest === 0) return;
    await WebhookCursorModel.updateOne({ _id: CURSOR_ID }, { $max: { committedAt: new Date(newest) } }, { upsert: true });
    if (this.unstoredWatermark === newest) this.unstoredWatermark = 0;
  }

  /** Claims and sends due deliveries while there is room. */
  private async pump(): Promise<void> {
    try {
      while (!this.stopped && this.active < this.concurrency) {
        const exclusions = this.exclusions();
        const now = Date.now();
        this.emptyClaims = this.emptyClaims.filter((empty) => empty.news === this.news && now - empty.at < EMPTY_CLAIM_REPEAT_MS);
        if (this.emptyClaims.some((empty) => excludesAtLeast(exclusions, empty))) break;
        const news = this.news;
        const room = this.concurrency - this.active;
        const claimed = room === 1 ? await this.claimOne(exclusions) : await this.claimSeveral(exclusions, room);
        if (claimed.length === 0) {
          // Nothing due at all (no exclusions) is cheap to ask again: the index's first entries say so.
          if (exclusions.fullEndpoints.length + exclusions.fullTenants.length > 0) this.emptyClaims = [...this.emptyClaims.slice(-(MAX_EMPTY_CLAIMS - 1)), { ...exclusions, news, at: Date.now() }];
          break;
        }
        // What came up empty excluding other shares still stands (a claim adds no delivery): after each claim
        // of a backlog's delivery, the next (every share full again) would otherwise scan the backlog again.
        this.emptyClaims = this.emptyClaims.filter((empty) => !excludesAtLeast(exclusions, empty));
        for (const { delivery, hook } of claimed) this.sendClaimed(delivery, hook);
      }
      this.outage.ended('claiming webhook deliveries');
    } catch (error) {
      this.outage.failed('claiming webhook deliveries', error, 'claiming webhook deliveries failed; retrying at the next round');
    }
  }

  /** Sends a delivery leased to this instance and counted in its pool (`hook`: as read just now, null if it was not found; else read first). */
  private sendClaimed(delivery: ClaimedDelivery, hook?: EndpointToSend | null): void {
    const sending = this.attempt(delivery, hook)
      .catch((error) => this.deps.logger.error({ err: error, deliveryId: String(delivery._id) }, 'webhook delivery attempt failed to record; its lease will expire and it is retried'))
      .finally(() => {
        this.sending(delivery, -1);
        this.inFlight.delete(sending);
        this.wakeAfterSendsEnd();
      });
    this.inFlight.add(sending);
  }

  /** Counts a send in (+1) or out (-1) of the pool and of its endpoint's and tenant's shares. */
  private sending(delivery: Pick<WebhookDelivery, 'webhookId' | 'tenant_id'>, step: 1 | -1): void {
    this.active += step;
    this.sendingTo.set(delivery.webhookId, (this.sendingTo.get(delivery.webhookId) ?? 0) + step);
    this.sendingFor.set(delivery.tenant_id, (this.sendingFor.get(delivery.tenant_id) ?? 0) + step);
    if (this.sendingTo.get(delivery.webhookId) === 0) this.sendingTo.delete(delivery.webhookId);
    if (this.sendingFor.get(delivery.tenant_id) === 0) this.sendingFor.delete(delivery.tenant_id);
  }

  /** Endpoints and tenants at their share of this instance's pool. */
  private exclusions(): Exclusions {
    const full = <K>(counts: Map<K, number>, cap: number) => [...counts].filter(([, n]) => n >= cap).map(([key]) => key);
    return { fullEndpoints: full(this.sendingTo, this.perEndpoint), fullTenants: full(this.sendingFor, this.perTenant) };
  }

  private hasRoomFor(delivery: Pick<WebhookDelivery, 'webhookId' | 'tenant_id'>): boolean {
    return (this.sendingTo.get(delivery.webhookId) ?? 0) < this.perEndpoint && (this.sendingFor.get(delivery.tenant_id) ?? 0) < this.perTenant;
  }

  /** The oldest due delivery not leased, of an endpoint and a tenant with room; leased by the database's clock (one command). */
  private async claimOne(exclusions: Exclusions): Promise<Claimed[]> {
    // The driver's collection: mongoose's sanitizeFilter refuses $expr.
    const delivery = (await WebhookDeliveryModel.collection.findOneAndUpdate(
      dueDeliveries(exclusions),
      [{ $set: this.lease(this.owner) }],
      { sort: { nextAttemptAt: 1 }, returnDocument: 'after' },
    )) as ClaimedDelivery | null;
    if (!delivery) return [];
    this.sending(delivery, +1);
    return [{ delivery }];
  }

  /**
   * Up to `room` due deliveries, oldest first, within each endpoint's and tenant's share, in three
   * commands whatever their number (a claim each, and an endpoint read each, made a backlog's
   * delivery cost the engine four commands): a read of candidates, one update leasing those still
   * due and unchanged under a lease owner of this claim alone, and one read of their endpoints.
   * Only when another instance took or changed some of them meanwhile is the claim's own lease
   * read back to know which are this one's.
   */
  private async claimSeveral(exclusions: Exclusions, room: number): Promise<Claimed[]> {
    const due = dueDeliveries(exclusions);
    // Twice the room: candidates past an endpoint's or a tenant's share within this claim are skipped.
    const candidates = (await WebhookDeliveryModel.collection.find(due).sort({ nextAttemptAt: 1 }).limit(2 * room).toArray()) as unknown as ClaimedDelivery[];
    const picked: ClaimedDelivery[] = [];
    for (const candidate of candidates) {
      if (picked.length === room) break;
      if (!this.hasRoomFor(candidate)) continue;
      // Counted in the pool now: a fan-out meanwhile leaves room for these.
      this.sending(candidate, +1);
      picked.push(candidate);
    }
    if (picked.length === 0) return [];
    const pickedIds = picked.map(({ _id }) => _id);
    let claimed = picked;
    try {
      const leaseOwner = `${this.owner}-${(this.claims += 1)}`;
      const { modifiedCount } = await WebhookDeliveryModel.collection.updateMany(
        // Each as read: what an attempt uses of it (its attempts, a manual retry) has not changed since. The
        // $in bounds the update to their _ids (planned on the status index, the $or alone read every due delivery).
        {
          ...due,
          _id: { $in: pickedIds },
          $or: picked.map(({ _id, attempts, manualRetry }) => ({ _id, attempts, manualRetry: manualRetry ?? null })),
        } as never,
        [{ $set: this.lease(leaseOwner) }],
      );
      if (modifiedCount < picked.length) {
        claimed = (await WebhookDeliveryModel.collection.find({ _id: { $in: pickedIds }, leaseOwner } as never).toArray()) as unknown as ClaimedDelivery[];
        const mine = new Set(claimed.map(({ _id }) => String(_id)));
        for (const candidate of picked) if (!mine.has(String(candidate._id))) this.sending(candidate, -1);
      } else {
        for (const delivery of claimed) delivery.leaseOwner = leaseOwner;
      }
      if (claimed.length === 0) return [];
      const webhookIds = [...new Set(claimed.map(({ webhookId }) => webhookId))];
      const hooks = await WebhookModel.find({ _id: trusted({ $in: webhookIds }) }, ENDPOINT_TO_SEND).lean();
      const byId = new Map(hooks.map((hook) => [String(hook._id), hook as EndpointToSend]));
      // null: the endpoint was deleted (attempt() fails the delivery).
      return claimed.map((delivery) => ({ delivery, hook: byId.get(delivery.webhookId) ?? null }));
    } catch (error) {
      // Not sent: a delivery leased meanwhile is due again when its lease ends, and a claim sends it then.
      for (const delivery of claimed) this.sending(delivery, -1);
      throw error;
    }
  }

  /** A lease for `leaseOwner`, by the database's clock: due again when it ends (another instance retakes it then, if this one died). */
  private lease(leaseOwner: string): Record<string, unknown> {
    // A leased delivery leaves the front of the claims' order, which scanned past every one in flight.
    return { leaseUntil: { $add: ['$$NOW', this.leaseMs] }, nextAttemptAt: { $add: ['$$NOW', this.leaseMs] }, leaseOwner: { $literal: leaseOwner } };
  }

  /** One attempt, its outcome recorded under this instance's lease. */
  private async attempt(delivery: ClaimedDelivery, known?: EndpointToSend | null): Promise<void> {
    const hook = known === undefined ? await WebhookModel.findById(delivery.webhookId, ENDPOINT_TO_SEND).lean() : known;
    // Under the lease it was sent with (the fan-out's and a single claim's: this instance; a claim of several: that claim).
    const mine = { _id: delivery._id, leaseOwner: delivery.leaseOwner };
    if (!hook) {
      await WebhookDeliveryModel.updateOne(mine, { $set: { status: DeliveryStatus.failed, nextAttemptAt: null, leaseUntil: NO_LEASE, leaseOwner: null, error: 'the endpoint was deleted' } });
      this.attempted('failed', delivery);
      return;
    }
    if (!hook.enabled) {
      // Held, not failed: enabling the endpoint again makes it due (WebhookRecords.release).
      await WebhookDeliveryModel.updateOne(mine, { $set: { nextAttemptAt: null, leaseUntil: NO_LEASE, leaseOwner: null, error: HELD } });
      this.attempted('held', delivery);
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
    // The next attempt is due by the database's clock (claims judge it so); the record is kept EVENT_RETENTION after it.
    const nextAttemptAt = status === DeliveryStatus.pending ? { $add: ['$$NOW', this.schedule[attempts - 1]!] } : null;
    // Values as stored (the driver's collection: no casting), under this instance's lease.
    await this.outcomes.write({
      updateOne: {
        filter: mine,
        update: [
          {
            $set: {
              attempts,
              status: { $literal: status },
              nextAttemptAt,
              lastAttemptAt: at,
              responseStatus: outcome.responseStatus,
              durationMs: outcome.durationMs,
              error: { $literal: outcome.error },
              leaseUntil: NO_LEASE,
              leaseOwner: null,
              manualRetry: false,
            },
          },
          { $set: { expireAt: { $add: [{ $ifNull: ['$nextAttemptAt', '$$NOW'] }, this.retentionMs] } } },
        ],
      },
    });
    this.attempted(status === DeliveryStatus.delivered ? 'delivered' : status === DeliveryStatus.failed ? 'failed' : 'retrying', delivery);
    await (outcome.ok ? this.succeeded(hook) : this.failed(hook._id, hook.tenant_id, at));
  }

  /** Tells onAttempt how an attempt ended (once recorded), and how long after its event occurred. */
  private attempted(outcome: DeliveryOutcome, delivery: Pick<WebhookDelivery, 'payload'>): void {
    if (!this.deps.onAttempt) return;
    const occurredAt = new Date((delivery.payload as { occurredAt?: unknown } | null)?.occurredAt as string).getTime();
    this.deps.onAttempt(outcome, Number.isNaN(occurredAt) ? null : (this.now() - occurredAt) / 1000);
  }

  /** Ends the endpoint's failing run; nothing to write when it was not failing as it was read (a failure since is another attempt's to note). */
  private async succeeded(hook: { _id: unknown; failingSince?: Date | null }): Promise<void> {
    if (!hook.failingSince) return;
    await WebhookModel.updateOne({ _id: hook._id, failingSince: trusted({ $ne: null }) }, { $set: { failingSince: null } });
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

/**
 * How far past this instance's clock a claim looks: the database's clock decides what is due
 * ($$NOW in the $expr), but an $expr bounds no index scan, so without a range a claim that found
 * nothing due read every pending delivery, those in flight included (due again at their lease's
 * end): 40 ms of the engine's thread per claim with 3,000 of them, while the API's writes waited.
 * An instance whose clock runs behind the database's by more than this claims that much later,
 * never earlier.
 */
export const CLAIM_CLOCK_ALLOWANCE_MS = 5_000;

/** The filter of a claim: pending, due by the database's clock and not leased, of an endpoint and a tenant with room. */
export function dueDeliveries({ fullEndpoints, fullTenants }: { fullEndpoints: string[]; fullTenants: (string | null)[] }): Record<string, unknown> {
  return {
    status: DeliveryStatus.pending,
    // A Date range: null (held while its endpoint is disabled, attempt()) is never in it.
    nextAttemptAt: { $lte: new Date(Date.now() + CLAIM_CLOCK_ALLOWANCE_MS) },
    $expr: { $and: [{ $lte: ['$nextAttemptAt', '$$NOW'] }, { $lt: ['$leaseUntil', '$$NOW'] }] },
    ...(fullEndpoints.length > 0 ? { webhookId: { $nin: fullEndpoints } } : {}),
    ...(fullTenants.length > 0 ? { tenant_id: { $nin: fullTenants } } : {}),
  };
}

/** A delivery as the fan-out writes it: every field of the model (a lean insert). */
type FannedDelivery = Omit<WebhookDelivery, 'id'> & { _id: mongoose.Types.ObjectId; __v: number };

type WriteErrorShape = { code?: number; index?: number; err?: { code?: number } };

/** What an attempt needs of its endpoint (the fan-out's read, a claim's, or the attempt's own). */
type EndpointToSend = Pick<Webhook, 'tenant_id' | 'enabled' | 'url' | 'secretSealed' | 'failingSince'> & { _id: unknown };
const ENDPOINT_TO_SEND = { _id: 1, tenant_id: 1, enabled: 1, url: 1, secretSealed: 1, failingSince: 1 } as const;

/** A delivery leased to this instance, as stored. */
type ClaimedDelivery = WebhookDelivery & { _id: unknown };
/** A claimed delivery and its endpoint as the claim read it (null: deleted; absent: the attempt reads it). */
interface Claimed {
  delivery: ClaimedDelivery;
  hook?: EndpointToSend | null;
}

/**
 * One error line when an outage starts, then quiet (debug) while it lasts, and
 * one line when it ends: the worker retries every poll (200 ms) and would
 * otherwise log five errors a second while the database is down.
 */
class OutageLog {
  private readonly failing = new Set<string>();

  constructor(private readonly logger: Logger) {}

  failed(what: string, error: unknown, message: string): void {
    if (this.failing.has(what)) {
      this.logger.debug({ err: error }, message);
      return;
    }
    this.failing.add(what);
    this.logger.error({ err: error }, `${message} (logged once until it recovers)`);
  }

  ended(what: string): void {
    if (this.failing.delete(what)) this.logger.info(`${what} recovered`);
  }
}
