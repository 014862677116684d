import { Document, Query, Types, type Schema } from 'mongoose';
import { sameHash, type ApiKeyCredentialRecord, type CountedApiKeyUse } from '../auth/index.js';
import type { Logger } from '../logger.js';

/**
 * How long an instance serves the uses of a grant without asking the
 * database: the bound within which a revoke, roll or change stored by another
 * instance is honoured here (this instance's own writes end its grants at once).
 */
export const GRANT_MAX_AGE_MS = 1000;

/** The most uses one grant takes from a key's hourly window. */
export const MAX_GRANT = 100;

/**
 * The largest grant a key's hourly limit allows: a thousandth of it, at most
 * MAX_GRANT. Below 2 (a limit under 2,000 per hour) the key is counted one use
 * at a time in the database, as every key was before grants: such keys are
 * not busy enough for a grant to save anything, and their limit is small
 * enough that uses lent to one instance for a second would be felt by others.
 */
export function grantCap(rateLimit: number): number {
  return Math.min(MAX_GRANT, Math.floor(rateLimit / 1000));
}

/** The database operations grants are built on (api-key-credential.store.ts). */
export interface GrantOperations {
  /** One use, checked and counted exactly (null: refused, nothing counted). */
  countOne(keyId: string, secretHash: string, at: Date, windowStart: Date): Promise<CountedApiKeyUse | null>;
  /**
   * `size` uses at once, with the same check as `countOne`, only while the
   * window started at `windowStart`, the key's limit is still `rateLimit` and
   * the count stays within it; else null, counting nothing.
   */
  countMany(keyId: string, secretHash: string, at: Date, windowStart: Date, size: number, rateLimit: number): Promise<CountedApiKeyUse | null>;
  /** Takes `uses` back off the window started at `windowStart` (no effect once it has moved on). */
  giveBack(keyId: string, windowStart: Date, uses: number): Promise<void>;
}

/** Uses of one key taken from the database at once, served by this instance for at most GRANT_MAX_AGE_MS. */
interface Grant {
  /** The key as stored when the grant was taken: uses are checked against it. */
  key: ApiKeyCredentialRecord;
  windowStart: number;
  endsAt: number;
  size: number;
  unused: number;
  /** The window's count in the database once the grant was taken (unused uses included). */
  countAfter: number;
}

interface KeyGrants {
  grant: Grant | null;
  /** The key as last read: its limit guards the next grant. */
  key: ApiKeyCredentialRecord;
  /** The size of the next grant, adapted to how fast the key is used. */
  nextSize: number;
  /** A grant being taken: other uses of the key wait for it rather than each writing. */
  taking: Promise<unknown> | null;
  /** Ends the live grant when its life is over, or drops the state once the key has been idle that long. */
  timer?: NodeJS.Timeout;
}

/** Which of this process's keys a write touched: by `_id` (hex) or key id; none named means every key. */
export interface WrittenKey {
  id?: string;
  keyId?: string;
}

export interface UseGrants {
  countUse(keyId: string, secretHash: string, at: Date, windowStart: Date): Promise<CountedApiKeyUse | null>;
  releaseUse(use: CountedApiKeyUse, windowStart: Date): Promise<void>;
  /** Ends the grants of the keys written (of every key without an argument): their next use asks the database. */
  forget(written?: readonly WrittenKey[]): void;
  /** Ends every grant and waits until the unused uses are given back (service shutdown). */
  close(): Promise<void>;
}

export interface UseGrantsOptions {
  now?: () => number;
  /** Told when unused uses could not be given back (the hour's count then stays stricter than the uses). */
  logger?: Pick<Logger, 'warn'>;
}

/** Every live set of grants in this process, so that a write to a key can end them (forgetApiKeyGrants). */
const liveGrants = new Set<UseGrants>();

/**
 * Ends this process's grants of the keys written (of every key when they are
 * not known): called once a write through the model is stored (its plugin),
 * so the instance that revoked, rolled or changed a key answers by the change
 * at once.
 */
export function forgetApiKeyGrants(written?: readonly WrittenKey[]): void {
  for (const grants of liveGrants) grants.forget(written);
}

/** Mongoose's writing operations run on a document or as a query (`doc.updateOne()` and `Model.updateOne()`). */
const EITHER_WRITES = ['updateOne', 'deleteOne'] as const;
const QUERY_WRITES = ['updateMany', 'replaceOne', 'findOneAndUpdate', 'findOneAndReplace', 'deleteMany', 'findOneAndDelete'] as const;

/** The key a document or a query's filter names by a plain `_id` or `keyId`; undefined when it could touch others. */
function writtenBy(target: unknown): WrittenKey[] | undefined {
  if (target instanceof Query) {
    const filter = target.getFilter() as Record<string, unknown>;
    if (isPlainId(filter._id)) return [{ id: String(filter._id) }];
    if (typeof filter.keyId === 'string') return [{ keyId: filter.keyId }];
    return undefined;
  }
  if (target instanceof Document) return [{ id: String(target._id) }];
  return undefined;
}

function isPlainId(value: unknown): boolean {
  return typeof value === 'string' || value instanceof Types.ObjectId;
}

/**
 * A schema plugin for the API key model: every write through the model
 * (revoke, roll, update, delete), once stored, ends this process's grants of
 * that key (of every key when the write does not name one). A new key has no
 * grants. The credential's own counting works on the native collection and
 * does not end them; a write on the native collection (another instance) is
 * seen within GRANT_MAX_AGE_MS.
 */
export function forgetApiKeyGrantsOnWrite(schema: Schema): void {
  const forgetWritten = function (this: unknown) {
    forgetApiKeyGrants(writtenBy(this));
  };
  for (const operation of EITHER_WRITES) schema.post(operation, { document: true, query: true }, forgetWritten);
  for (const operation of QUERY_WRITES) schema.post(operation, forgetWritten);
  schema.post('save', forgetWritten);
  schema.post('bulkWrite', () => forgetApiKeyGrants());
}

/**
 * Counting a busy key's uses in grants. A key whose limit allows grants
 * (grantCap >= 2) has its uses taken from the database several at a time: one
 * atomic update checks the key and the secret exactly as a single use does and
 * adds the grant to the window's count, only if the count stays within the
 * limit, so the limit holds across instances. This instance then serves the
 * granted uses for at most GRANT_MAX_AGE_MS, checking each secret against the
 * key as stored (timing-safe), and gives back what it did not use when the
 * grant ends, so the count stays exact. A grant starts at 1 and doubles when
 * it is used up within its life, up to grantCap; a slowly used key costs one
 * write per use, as before. A secret the key as last read does not accept
 * goes to the database (a roll on another instance may have made it), and
 * spends nothing of a grant. A key's next count in the database waits for its
 * give-backs, so it answers the uses actually served.
 */
export function createUseGrants(operations: GrantOperations, options: UseGrantsOptions = {}): UseGrants {
  const grants = new ProcessUseGrants(operations, options);
  liveGrants.add(grants);
  return grants;
}

/** One process's grants of its keys' uses (createUseGrants), step by step. */
class ProcessUseGrants implements UseGrants {
  private readonly states = new Map<string, KeyGrants>();
  /** Raised by forget(): a grant taken before it is not kept. */
  private generation = 0;
  /** Give-backs in flight, per key: kept apart from `states`, which forget() clears, so a count after it still waits for them. */
  private readonly givingBack = new Map<string, Promise<void>>();
  private readonly now: () => number;
  private readonly logger: Pick<Logger, 'warn'> | undefined;

  constructor(
    private readonly operations: GrantOperations,
    { now = Date.now, logger }: UseGrantsOptions,
  ) {
    this.now = now;
    this.logger = logger;
  }

  async countUse(keyId: string, secretHash: string, at: Date, windowStart: Date): Promise<CountedApiKeyUse | null> {
    for (;;) {
      const state = this.states.get(keyId);
      // The first use of a key here: counted exactly; its record tells whether grants apply.
      if (!state) return this.take(keyId, secretHash, at, windowStart, 1, null);
      this.endGrantIfOver(keyId, state, at, windowStart);
      // A secret the key as last read does not accept (a wrong one, or one rolled in elsewhere) is for the database alone.
      if (!accepts(state.grant?.key ?? state.key, secretHash, at)) return this.countInDatabase(keyId, secretHash, at, windowStart);
      const served = this.serveFromGrant(keyId, state);
      if (served) return served;
      if (state.taking) {
        await state.taking;
        continue;
      }
      return this.takeNext(keyId, state, secretHash, at, windowStart);
    }
  }

  async releaseUse(use: CountedApiKeyUse, windowStart: Date): Promise<void> {
    // A use refused after it was counted (IP, Origin): back into the grant that served it while that grant is live;
    // any other (counted by the database alone, past the limit, or its grant ended) is given back to the database.
    const keyId = use.key.keyId;
    const grant = use.servedBy as Grant | undefined;
    if (grant && this.states.get(keyId)?.grant === grant && this.now() < grant.endsAt) grant.unused += 1;
    else await this.giveBack(keyId, windowStart.getTime(), 1);
  }

  forget(written?: readonly WrittenKey[]): void {
    this.generation += 1;
    for (const [keyId, state] of this.states) {
      if (written && !written.some((key) => key.keyId === keyId || key.id === state.key.id)) continue;
      this.endGrant(keyId, state);
      this.drop(keyId, state);
    }
  }

  async close(): Promise<void> {
    this.forget();
    liveGrants.delete(this);
    await Promise.all(this.givingBack.values());
  }

  /** The live grant ends once the window has moved on or its life is over. */
  private endGrantIfOver(keyId: string, state: KeyGrants, at: Date, windowStart: Date): void {
    const grant = state.grant;
    if (grant && (grant.windowStart !== windowStart.getTime() || at.getTime() >= grant.endsAt)) this.endGrant(keyId, state);
  }

  /** One use checked and counted by the database alone, once the key's give-backs are in. */
  private async countInDatabase(keyId: string, secretHash: string, at: Date, windowStart: Date): Promise<CountedApiKeyUse | null> {
    await this.givenBack(keyId);
    return this.operations.countOne(keyId, secretHash, at, windowStart);
  }

  /** A use of the live grant while it has one left (null: none); a grant used up ends, and the next one grows. */
  private serveFromGrant(keyId: string, state: KeyGrants): CountedApiKeyUse | null {
    const grant = state.grant;
    if (!grant) return null;
    if (grant.unused > 0) {
      grant.unused -= 1;
      return servedBy(grant);
    }
    this.endGrant(keyId, state);
    state.nextSize = grownSize(grant);
    return null;
  }

  /** Takes the key's next grant; the key's other uses wait for it meanwhile (`taking`) rather than each writing. */
  private async takeNext(keyId: string, state: KeyGrants, secretHash: string, at: Date, windowStart: Date): Promise<CountedApiKeyUse | null> {
    const taking = this.take(keyId, secretHash, at, windowStart, state.nextSize, state.key);
    state.taking = taking.catch(() => undefined);
    try {
      return await taking;
    } finally {
      if (this.states.get(keyId) === state) {
        state.taking = null;
        if (!state.grant) this.dropWhenIdle(keyId, state);
      }
    }
  }

  /** Takes a grant of `size` uses (one use of it for this request); answers the use, or null when refused. */
  private async take(keyId: string, secretHash: string, at: Date, windowStart: Date, size: number, known: ApiKeyCredentialRecord | null) {
    const takenIn = this.generation;
    await this.givenBack(keyId);
    let counted = size >= 2 && known ? await this.operations.countMany(keyId, secretHash, at, windowStart, size, known.rateLimit) : null;
    // Refused (the limit is near, the key changed, the secret is not accepted): one use, checked and counted exactly.
    const granted = counted ? size : 1;
    counted ??= await this.operations.countOne(keyId, secretHash, at, windowStart);
    if (!counted) return null;
    // A key with a small limit, or one written to meanwhile: no grant kept.
    if (grantCap(counted.key.rateLimit) < 2 || takenIn !== this.generation) return this.countedWithoutGrant(keyId, windowStart, counted, granted);
    return this.keepGrant(keyId, at, windowStart, counted, granted);
  }

  /** The use alone: the other `granted` uses go back at once, and a small-limit key keeps no state here. */
  private countedWithoutGrant(keyId: string, windowStart: Date, counted: CountedApiKeyUse, granted: number): CountedApiKeyUse {
    if (granted > 1) void this.giveBack(keyId, windowStart.getTime(), granted - 1);
    const state = this.states.get(keyId);
    if (grantCap(counted.key.rateLimit) < 2 && state && !state.grant) this.drop(keyId, state);
    return { key: counted.key, usedInWindow: counted.usedInWindow - (granted - 1) };
  }

  /** The `granted` uses counted become the key's live grant (ending any other); answers the one used now. */
  private keepGrant(keyId: string, at: Date, windowStart: Date, counted: CountedApiKeyUse, granted: number): CountedApiKeyUse {
    let state = this.states.get(keyId);
    if (!state) this.states.set(keyId, (state = { grant: null, key: counted.key, nextSize: 1, taking: null }));
    this.endGrant(keyId, state);
    state.key = counted.key;
    const grant: Grant = {
      key: counted.key,
      windowStart: windowStart.getTime(),
      endsAt: at.getTime() + GRANT_MAX_AGE_MS,
      size: granted,
      unused: granted - 1,
      countAfter: counted.usedInWindow,
    };
    this.startGrant(keyId, state, grant);
    return servedBy(grant);
  }

  private giveBack(keyId: string, windowStart: number, uses: number): Promise<void> {
    // A give-back that fails leaves the count higher than the uses: the limit only gets stricter, never exceeded; the operator is told.
    const done = this.operations.giveBack(keyId, new Date(windowStart), uses).catch((err: unknown) => {
      this.logger?.warn({ err, keyId, uses }, 'could not give back unused API key uses: the key counts them until its hour ends');
    });
    const all = Promise.all([this.givingBack.get(keyId), done]).then(() => undefined);
    this.givingBack.set(keyId, all);
    void all.then(() => this.givingBack.get(keyId) === all && this.givingBack.delete(keyId));
    return done;
  }

  /** Waits for the key's give-backs in flight, so the database's count has them. */
  private async givenBack(keyId: string): Promise<void> {
    const pending = this.givingBack.get(keyId);
    if (pending) await pending;
  }

  private drop(keyId: string, state: KeyGrants): void {
    clearTimeout(state.timer);
    if (this.states.get(keyId) === state) this.states.delete(keyId);
  }

  /** Drops the state once the key has been idle for a grant's life (its next use starts at a grant of 1 again). */
  private dropWhenIdle(keyId: string, state: KeyGrants): void {
    clearTimeout(state.timer);
    state.timer = setTimeout(() => !state.grant && !state.taking && this.drop(keyId, state), GRANT_MAX_AGE_MS);
    state.timer.unref();
  }

  private endGrant(keyId: string, state: KeyGrants): void {
    const grant = state.grant;
    if (!grant) return;
    state.grant = null;
    state.nextSize = Math.max(1, grant.size - grant.unused);
    if (grant.unused > 0) void this.giveBack(keyId, grant.windowStart, grant.unused);
    this.dropWhenIdle(keyId, state);
  }

  /** Every grant has a timer, even one of a single use: a use released into it is given back when it ends. */
  private startGrant(keyId: string, state: KeyGrants, grant: Grant): void {
    clearTimeout(state.timer);
    state.grant = grant;
    state.timer = setTimeout(() => state.grant === grant && this.endGrant(keyId, state), grant.endsAt - this.now());
    state.timer.unref();
  }
}

/** The use as answered: one served by a grant says so (releaseUse puts it back there); one past the limit never does. */
function servedBy(grant: Grant): CountedApiKeyUse {
  const usedInWindow = grant.countAfter - grant.unused;
  return usedInWindow <= grant.key.rateLimit ? { key: grant.key, usedInWindow, servedBy: grant } : { key: grant.key, usedInWindow };
}

/**
 * The grant after one used up within its life: the key is busy, so twice as
 * large, up to grantCap, and no larger than the room left in the window as
 * last counted (near the limit, uses are counted one by one, exactly).
 */
function grownSize(used: Grant): number {
  const room = used.key.rateLimit - used.countAfter;
  return Math.max(1, Math.min(used.size * 2, grantCap(used.key.rateLimit), room));
}

/** Whether the key, as stored when the grant was taken, accepts this secret at `at` (the database's check, done here). */
function accepts(key: ApiKeyCredentialRecord, secretHash: string, at: Date): boolean {
  // Disabled as revoked: a grant taken before another instance disabled the key ends within its life (GRANT_MAX_AGE_MS).
  if (key.revokedAt || key.disabledAt || (key.expiresAt && key.expiresAt.getTime() <= at.getTime())) return false;
  return key.secrets.some((secret) => (secret.validUntil === null || secret.validUntil.getTime() > at.getTime()) && sameHash(secret.hash, secretHash));
}
