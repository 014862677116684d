import { hasPermission, tenantScope, type Actor } from '../auth/index.js';
import { errors, isAppError, type AppError } from '../errors/index.js';
import type { Logger } from '../logger.js';
import type { EventTail, TailedEvent } from './event-tail.js';
import { ALL_EVENT_TYPES, isEventType } from './event-types.js';
import { SubscriptionSlots } from './subscription-slots.js';

/** The permission a subscriber must hold, at the start and at every re-check. */
export const EVENTS_READ = 'events:read';

/** Who subscribes, as the transport (WebSocket or SSE) authenticated it. */
export interface SubscriptionCaller {
  actor: Actor;
  /** The credential the stream counts against (one API key, one sign-in session). */
  credential: string;
  /** Resolves the same credential again, as a request would: throws (401/403) once it no longer holds. */
  recheck(): Promise<Actor | null>;
}

/** What a stream hands out: an event, or the reason it ends (the resolver raises it as the last frame). */
export type EventStreamItem = { event: TailedEvent } | { end: AppError };

export interface EventSubscriptionOptions {
  /** Streams one credential may hold open, across instances (its slots are in the database). */
  perCredential?: number;
  /** The slots the limit is kept in (default: the database's, 15 s leases). */
  slots?: SubscriptionSlots;
  /** How often a stream's credential is resolved again. */
  recheckMs?: number;
  /** Events a stream may hold unsent; one more ends it. */
  buffer?: number;
  logger?: Logger;
}

/**
 * The `events` subscription's streams: each follows the instance's one tail
 * (event-tail.ts), keeps its caller's tenant's events (tenantScope) of the
 * types asked for, and ends with an error saying why when its credential no
 * longer holds (re-checked every second through the request's own path), when
 * its subscriber falls more than `buffer` events behind, or at shutdown.
 */
export class EventSubscriptions {
  private readonly perCredential: number;
  private readonly recheckMs: number;
  private readonly buffer: number;
  private readonly slots: SubscriptionSlots;
  private readonly live = new Set<(reason: AppError) => void>();

  constructor(
    private readonly tail: EventTail,
    private readonly options: EventSubscriptionOptions = {},
  ) {
    this.perCredential = options.perCredential ?? 5;
    this.recheckMs = options.recheckMs ?? 1000;
    this.buffer = options.buffer ?? 1000;
    this.slots = options.slots ?? new SubscriptionSlots({ onError: (err) => options.logger?.warn({ err }, 'could not renew the event subscriptions\' slots; trying again') });
  }

  /** A stream of committed events for `caller`; refuses unknown `types` (400) and one stream too many, on any instance (429). */
  async open(caller: SubscriptionCaller, types: readonly string[] | null | undefined): Promise<AsyncIterableIterator<EventStreamItem>> {
    const wanted = checkedTypes(types);
    const scope = tenantScope(caller.actor);
    const release = await this.slots.take(caller.credential, this.perCredential);
    if (!release) {
      throw errors.rateLimited(
        Math.ceil(this.slots.leaseMs / 1000),
        `This credential already has ${this.perCredential} event subscriptions open, the most it may (EVENT_SUBSCRIPTIONS_PER_CREDENTIAL); end one first`,
      );
    }
    const keeps = (event: TailedEvent) =>
      (scope.tenant_id === undefined || event.tenant_id === scope.tenant_id) && (wanted === null || wanted.has(event.type));

    const queue: EventStreamItem[] = [];
    let waiting: ((result: IteratorResult<EventStreamItem>) => void) | null = null;
    let finished = false;
    const push = (item: EventStreamItem) => {
      if (waiting) {
        const resolve = waiting;
        waiting = null;
        resolve({ value: item, done: false });
      } else queue.push(item);
    };
    const end = (reason: AppError) => {
      if (finished) return;
      cleanup();
      // The reason goes ahead of anything not yet sent: a revoked caller gets nothing more.
      queue.length = 0;
      push({ end: reason });
      finished = true;
    };
    const unsubscribe = this.tail.subscribe((events) => {
      if (finished) return;
      for (const event of events) {
        if (!keeps(event)) continue;
        if (queue.length >= this.buffer) {
          return end(errors.unavailable(1, `This subscription fell more than ${this.buffer} events behind and was ended; subscribe again`));
        }
        push({ event });
      }
    });
    const recheck = setInterval(() => void this.recheck(caller).then((refusal) => refusal && end(refusal)), this.recheckMs);
    recheck.unref();
    let cleaned = false;
    const cleanup = () => {
      if (cleaned) return;
      cleaned = true;
      unsubscribe();
      clearInterval(recheck);
      this.live.delete(end);
      // Not released (the database away): the lease frees the slot.
      release().catch((err: unknown) => this.options.logger?.warn({ err }, 'could not release an event subscription\'s slot; its lease frees it'));
    };
    this.live.add(end);

    const done = (): IteratorResult<EventStreamItem> => ({ value: undefined, done: true });
    const iterator: AsyncIterableIterator<EventStreamItem> = {
      next: () => {
        const item = queue.shift();
        if (item) return Promise.resolve({ value: item, done: false });
        if (finished) return Promise.resolve(done());
        return new Promise((resolve) => (waiting = resolve));
      },
      return: () => {
        finished = true;
        cleanup();
        queue.length = 0;
        waiting?.(done());
        waiting = null;
        return Promise.resolve(done());
      },
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  /** Streams open on this instance (tests, shutdown). */
  get size(): number {
    return this.live.size;
  }

  /** Ends every stream (shutdown): each subscriber is told the service is stopping. */
  close(): void {
    for (const end of [...this.live]) end(errors.unavailable(1, 'The service is stopping; subscribe again'));
    this.slots.close();
  }

  /** The refusal that ends a stream now, or null while the credential holds. */
  private async recheck(caller: SubscriptionCaller): Promise<AppError | null> {
    try {
      const actor = await caller.recheck();
      if (!actor) return errors.unauthenticated('The credential of this subscription is no longer accepted');
      if (!hasPermission(actor, EVENTS_READ)) return errors.forbidden(`The caller of this subscription no longer holds ${EVENTS_READ}`);
      return null;
    } catch (err) {
      if (isAppError(err) && err.status < 500) return err;
      // The database is away: the credential cannot be confirmed either way; the next second tries again.
      this.options.logger?.warn({ err }, 'could not re-check the credential of an event subscription');
      return null;
    }
  }
}

/** The types asked for, each checked against the catalogue; null: every type. */
function checkedTypes(types: readonly string[] | null | undefined): ReadonlySet<string> | null {
  if (types === null || types === undefined || types.includes(ALL_EVENT_TYPES)) return null;
  const unknown = types.filter((type) => !isEventType(type));
  if (unknown.length > 0) {
    throw errors.invalidField('types', 'eventType', `Unknown event type(s): ${unknown.map((type) => JSON.stringify(type.slice(0, 100))).join(', ')}; see docs/events.md for the catalogue`);
  }
  return new Set(types);
}
