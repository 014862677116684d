import type { Schema } from 'mongoose';
import { sameHash, type ApiKeyCredentialRecord, type CountedApiKeyUse } from '../auth/index.js';

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

/** The database operations grants are built on (api-key-store.ts). */
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
  timer?: NodeJS.Timeout;
}

interface KeyGrants {
  grant: Grant | null;
  /** The key as last read: its limit guards the next grant. */
  key: ApiKeyCredentialRecord;
  /** The size of the next grant, adapted to how fast the key is used. */
  nextSize: number;
  /** A grant being taken: other uses of the key wait for it rather than each writing. */
  taking: Promise<unknown> | null;
  /** When the last grant ended (states idle longer than a grant's life are swept). */
  endedAt: number;
  /** Its unused uses being given back: the next grant waits for it, so the count it answers is exact. */
  givingBack: Promise<void> | null;
}

export interface UseGrants {
  countUse(keyId: string, secretHash: string, at: Date, windowStart: Date): Promise<CountedApiKeyUse | null>;
  releaseUse(keyId: string, windowStart: Date): Promise<void>;
  /** Ends every grant (unused uses given back): the next use of each key asks the database. */
  forget(): void;
  /** Ends every grant and waits until the unused uses are given back (service shutdown). */
  close(): Promise<void>;
}

/** Every live set of grants in this process, so that a write to a key can end them all (forgetApiKeyGrants). */
const liveGrants = new Set<UseGrants>();

/**
 * Ends every grant of this process: called once a write to any key is stored
 * (the model's plugin), so the instance that revoked, rolled or changed a key
 * answers by the change at once.
 */
export function forgetApiKeyGrants(): void {
  for (const grants of liveGrants) grants.forget();
}

/** Mongoose's writing operations run on a document or as a query (`doc.updateOne()` and `Model.updateOne()`). */
const EITHER_WRITES = ['updateOne', 'deleteOne'] as const;
const QUERY_WRITES = ['updateMany', 'replaceOne', 'findOneAndUpdate', 'findOneAndReplace', 'deleteMany', 'findOneAndDelete'] as const;

/**
 * A schema plugin for the API key model: every write through the model
 * (revoke, roll, update, delete), once stored, ends this process's grants.
 * The credential's own counting works on the native collection and does not
 * end them; a write on the native collection (another instance) is seen
 * within GRANT_MAX_AGE_MS.
 */
export function forgetApiKeyGrantsOnWrite(schema: Schema): void {
  for (const operation of EITHER_WRITES) schema.post(operation, { document: true, query: true }, forgetApiKeyGrants);
  for (const operation of QUERY_WRITES) schema.post(operation, forgetApiKeyGrants);
  schema.post('save', forgetApiKeyGrants);
  schema.post('insertMany', forgetApiKeyGrants);
  schema.post('bulkWrite', forgetApiKeyGrants);
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
 * spends nothing of a grant.
 */
export function createUseGrants(operations: GrantOperations, now: () => number = Date.now): UseGrants {
  const states = new Map<string, KeyGrants>();
  /** Raised by forget(): a grant taken before it is not kept. */
  let generation = 0;
  let lastSweep = now();
  const givingBack = new Set<Promise<void>>();

  const giveBack = (keyId: string, windowStart: number, uses: number): Promise<void> => {
    // A give-back that fails leaves the count higher than the uses: the limit only gets stricter, never exceeded.
    const done = operations.giveBack(keyId, new Date(windowStart), uses).catch(() => undefined);
    givingBack.add(done);
    void done.finally(() => givingBack.delete(done));
    return done;
  };

  const endGrant = (keyId: string, state: KeyGrants) => {
    const grant = state.grant;
    if (!grant) return;
    clearTimeout(grant.timer);
    state.grant = null;
    state.endedAt = now();
    state.nextSize = Math.max(1, grant.size - grant.unused);
    if (grant.unused > 0) state.givingBack = giveBack(keyId, grant.windowStart, grant.unused);
  };

  const sweep = (at: number) => {
    if (at - lastSweep < GRANT_MAX_AGE_MS) return;
    lastSweep = at;
    for (const [keyId, state] of states) if (!state.grant && !state.taking && at - state.endedAt >= GRANT_MAX_AGE_MS) states.delete(keyId);
  };

  /** Takes a grant of `size` uses (one use of it for this request); answers the use, or null when refused. */
  const take = async (keyId: string, secretHash: string, at: Date, windowStart: Date, size: number, known: ApiKeyCredentialRecord | null) => {
    const takenIn = generation;
    const before = states.get(keyId);
    if (before?.givingBack) {
      const returning = before.givingBack;
      await returning;
      if (before.givingBack === returning) before.givingBack = null;
    }
    let counted = size >= 2 && known ? await operations.countMany(keyId, secretHash, at, windowStart, size, known.rateLimit) : null;
    // Refused (the limit is near, the key changed, the secret is not accepted): one use, checked and counted exactly.
    const granted = counted ? size : 1;
    counted ??= await operations.countOne(keyId, secretHash, at, windowStart);
    if (!counted) return null;
    const cap = grantCap(counted.key.rateLimit);
    let state = states.get(keyId);
    if (cap < 2 || takenIn !== generation) {
      // A key with a small limit, or one written to meanwhile: no grant kept.
      if (granted > 1) giveBack(keyId, windowStart.getTime(), granted - 1);
      if (cap < 2 && state && !state.grant) states.delete(keyId);
      return { key: counted.key, usedInWindow: counted.usedInWindow - (granted - 1) };
    }
    if (!state) states.set(keyId, (state = { grant: null, key: counted.key, nextSize: 1, taking: null, endedAt: at.getTime(), givingBack: null }));
    endGrant(keyId, state);
    state.key = counted.key;
    const grant: Grant = {
      key: counted.key,
      windowStart: windowStart.getTime(),
      endsAt: at.getTime() + GRANT_MAX_AGE_MS,
      size: granted,
      unused: granted - 1,
      countAfter: counted.usedInWindow,
    };
    if (grant.unused > 0) {
      grant.timer = setTimeout(() => state.grant === grant && endGrant(keyId, state), grant.endsAt - now());
      grant.timer.unref();
    }
    state.grant = grant;
    return { key: grant.key, usedInWindow: grant.countAfter - grant.unused };
  };

  const grants: UseGrants = {
    async countUse(keyId, secretHash, at, windowStart) {
      for (;;) {
        const state = states.get(keyId);
        if (!state) {
          sweep(at.getTime());
          // The first use of a key here: counted exactly; its record tells whether grants apply.
          return take(keyId, secretHash, at, windowStart, 1, null);
        }
        if (state.grant && (state.grant.windowStart !== windowStart.getTime() || at.getTime() >= state.grant.endsAt)) endGrant(keyId, state);
        // A secret the key as last read does not accept (a wrong one, or one rolled in elsewhere) is for the database alone.
        if (!accepts(state.grant?.key ?? state.key, secretHash, at)) return operations.countOne(keyId, secretHash, at, windowStart);
        const grant = state.grant;
        if (grant && grant.unused > 0) {
          grant.unused -= 1;
          return { key: grant.key, usedInWindow: grant.countAfter - grant.unused };
        } else if (grant) {
          endGrant(keyId, state);
          state.nextSize = grownSize(grant);
        }
        if (state.taking) {
          await state.taking;
          continue;
        }
        const taking = take(keyId, secretHash, at, windowStart, state.nextSize, state.key);
        state.taking = taking.catch(() => undefined);
        try {
          return await taking;
        } finally {
          if (states.get(keyId) === state) state.taking = null;
        }
      }
    },

    async releaseUse(keyId, windowStart) {
      // A use refused after it was counted (IP, Origin) goes back into the live grant, given back with the rest.
      const grant = states.get(keyId)?.grant;
      if (grant && grant.windowStart === windowStart.getTime() && now() < grant.endsAt) grant.unused += 1;
      else await operations.giveBack(keyId, windowStart, 1);
    },

    forget() {
      generation += 1;
      for (const [keyId, state] of states) endGrant(keyId, state);
      states.clear();
    },

    async close() {
      grants.forget();
      liveGrants.delete(grants);
      await Promise.all(givingBack);
    },
  };
  liveGrants.add(grants);
  return grants;
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
  if (key.revokedAt || (key.expiresAt && key.expiresAt.getTime() <= at.getTime())) return false;
  return key.secrets.some((secret) => (secret.validUntil === null || secret.validUntil.getTime() > at.getTime()) && sameHash(secret.hash, secretHash));
}
