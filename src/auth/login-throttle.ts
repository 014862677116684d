import { randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import type { AppConfig } from '../config.js';
import { errors } from '../errors/index.js';
import { emailComparisonKey } from '../shared/index.js';
import { normalizeIp } from './api-key.strategy.js';
import { LoginThrottleModel } from './login-throttle.model.js';

/**
 * Sign-in throttling, against password guessing. Two counters see every
 * attempt: one of the submitted email and tenant (normalised; whether or not
 * an account has it) and one of the client IP (IPv6 by /64, which one
 * subscriber usually holds). Each allows a few free failures (config
 * `loginThrottle`: 5 per email, 20 per IP); after those, each attempt must
 * wait FIRST_WAIT_SECONDS after the previous one, doubling with every further
 * failure, up to MAX_WAIT_SECONDS. An attempt before its wait is over gets 429
 * with Retry-After, checks no password and is not counted (so hammering does
 * not lengthen a wait). A counter starts over after `windowSeconds` without
 * attempts past its wait; a TTL index removes it.
 *
 * An attempt is counted as a failure when it is let through, before the
 * password check, in the same atomic update that decides it may run: so
 * concurrent attempts, on any instance, never get more password checks than
 * the counters allow. A sign-in that succeeds then clears its email's counter
 * and gives its IP back its own attempt (the IP keeps counting failures, so a
 * caller's own good sign-ins do not buy guesses at other accounts).
 *
 * The IP's counter is asked first, and the email's only when the IP may go
 * on: a refused attempt creates no document (a refusal by the IP touches only
 * that IP's existing counter), so it costs one update and stores nothing new.
 *
 * Unknown and known emails are counted and answered alike: the counters are
 * keyed by what was submitted, never by what exists.
 *
 * Every time is the database's (`$$NOW` in the updates), never an instance's
 * clock: instances whose clocks disagree still agree on every wait.
 */

export type LoginThrottleSettings = AppConfig['loginThrottle'];

/** The wait after the last free failure; each further failure doubles it. */
export const FIRST_WAIT_SECONDS = 15;
/** The longest wait. */
export const MAX_WAIT_SECONDS = 15 * 60;

/** An attempt that was let through. */
export interface SignInAttempt {
  /** It signed in: clears the email's counter and gives the IP back this attempt. */
  succeeded(): Promise<void>;
  /** No password was checked after all (the hashing queue was full): both counters get it back. */
  unchecked(): Promise<void>;
  /**
   * Set when this attempt, if it fails, is the one that starts the email's
   * throttling (its last free failure): the lock's start and end, the
   * database's times. One attempt per lock has it (the counting is atomic).
   */
  startsLock?: { at: Date; until: Date };
}

/**
 * Lets one sign-in attempt through, counting it on both counters, or throws
 * 429 (Retry-After: the wait of the counter that refused) when either says to wait.
 */
export async function admitSignIn(settings: LoginThrottleSettings, email: string, ip: string, tenant?: string | null): Promise<SignInAttempt> {
  const account: Counter = { key: accountThrottleKey(email, tenant), freeFailures: settings.accountFailures, windowSeconds: settings.windowSeconds };
  const address: Counter = { key: ipThrottleKey(ip), freeFailures: settings.ipFailures, windowSeconds: settings.windowSeconds };
  const attempt = randomUUID();
  // The IP's counter first: an attempt it refuses stores nothing for its email, so a flood of
  // fresh emails from one address stops adding documents once the address must wait.
  const addressWait = await letThrough(address, attempt);
  if (typeof addressWait === 'number') throw refusal(addressWait);
  const counted = await letThrough(account, attempt);
  if (typeof counted === 'number') {
    // Refused by the email's counter: the IP gets the attempt back (no password was checked).
    await giveBack(address);
    throw refusal(counted);
  }
  return {
    ...(counted.failures === account.freeFailures ? { startsLock: { at: counted.lastAt, until: counted.lockedUntil } } : {}),
    async succeeded() {
      await Promise.all([LoginThrottleModel.collection.deleteOne({ _id: account.key as never }), giveBack(address)]);
    },
    async unchecked() {
      await Promise.all([giveBack(account), giveBack(address)]);
    },
  };
}

/**
 * Lets one attempt with a one-time secret that names no account (a password
 * ticket) through, counting it on the IP's counter, the one sign-in uses: a
 * guesser's failures at either make both wait. 429 (Retry-After) while the IP
 * must wait. `succeeded` gives the attempt back, as a sign-in's does.
 */
export async function admitFromAddress(settings: LoginThrottleSettings, ip: string): Promise<SignInAttempt> {
  const address: Counter = { key: ipThrottleKey(ip), freeFailures: settings.ipFailures, windowSeconds: settings.windowSeconds };
  const wait = await letThrough(address, randomUUID());
  if (typeof wait === 'number') throw refusal(wait);
  const giveItBack = () => giveBack(address);
  return { succeeded: giveItBack, unchecked: giveItBack };
}

function refusal(seconds: number) {
  return errors.rateLimited(seconds, `Too many failed sign-in attempts; try again in ${seconds} s`);
}

interface Counter {
  key: string;
  freeFailures: number;
  windowSeconds: number;
}

/** The stored fields letThrough reads back. */
interface StoredCounter {
  attempt: string;
  failures: number;
  lastAt: Date;
  lockedUntil: Date;
  seenAt: Date;
}

/** A counter that let the attempt through, as it stands with it counted. */
type Counted = Pick<StoredCounter, 'failures' | 'lastAt' | 'lockedUntil'>;

/** The database's time of the update that reads it (the same in every stage of one update). */
const NOW = '$$NOW';

/**
 * One atomic upsert: when the counter is new, over, or past its wait, counts
 * the attempt (marking it as this attempt) and sets the next wait; else
 * changes nothing. The counter with this attempt when it was let through,
 * else the seconds to wait.
 */
async function letThrough(counter: Counter, attempt: string, retried = false): Promise<Counted | number> {
  const over = { $not: [{ $gt: ['$expireAt', NOW] }] };
  const open = { $or: [over, { $lte: ['$lockedUntil', NOW] }] };
  const pipeline = [
    {
      $set: {
        failures: { $cond: [over, 1, { $cond: [open, { $add: ['$failures', 1] }, '$failures'] }] },
        lastAt: { $cond: [open, NOW, '$lastAt'] },
        attempt: { $cond: [open, attempt, '$attempt'] },
        seenAt: NOW,
      },
    },
    { $set: { lockedUntil: { $cond: [{ $eq: ['$attempt', attempt] }, nextUnlock(counter), '$lockedUntil'] } } },
    { $set: { expireAt: { $add: ['$lockedUntil', counter.windowSeconds * 1000] } } },
  ];
  try {
    const stored = (await LoginThrottleModel.collection.findOneAndUpdate({ _id: counter.key as never }, pipeline, {
      upsert: true,
      returnDocument: 'after',
      projection: { attempt: 1, failures: 1, lastAt: 1, lockedUntil: 1, seenAt: 1 },
    })) as StoredCounter | null;
    // No document back (an engine that answers none for an upsert): counted, and no lock is known to start.
    if (!stored) return { failures: 0, lastAt: new Date(0), lockedUntil: new Date(0) };
    if (stored.attempt === attempt) return stored;
    // The wait as the database counts it: from this attempt's time there, not this instance's.
    return Math.max(1, Math.ceil((stored.lockedUntil.getTime() - stored.seenAt.getTime()) / 1000));
  } catch (err) {
    // Two first attempts on one key may race to insert it: the loser updates the winner's.
    if (!retried && (err as { code?: number }).code === 11000) return letThrough(counter, attempt, true);
    throw err;
  }
}

/** Takes one attempt off a counter and recomputes its wait (a success, or a refusal by the other counter). */
async function giveBack(counter: Counter): Promise<void> {
  const live = { $expr: { $gt: ['$expireAt', NOW] } };
  await LoginThrottleModel.collection.updateOne({ _id: counter.key as never, failures: { $gt: 0 }, ...live }, [
    { $set: { failures: { $subtract: ['$failures', 1] } } },
    { $set: { lockedUntil: nextUnlock(counter) } },
    { $set: { expireAt: { $add: ['$lockedUntil', counter.windowSeconds * 1000] } } },
  ]);
}

/** `lastAt` plus the wait its `failures` call for: none within the free failures, then doubling to the cap. */
function nextUnlock({ freeFailures }: Counter): object {
  const beyondFree = { $min: [{ $subtract: ['$failures', freeFailures] }, 20] };
  const waitMs = { $min: [MAX_WAIT_SECONDS * 1000, { $multiply: [FIRST_WAIT_SECONDS * 1000, { $pow: [2, beyondFree] }] }] };
  return { $add: ['$lastAt', { $cond: [{ $lt: ['$failures', freeFailures] }, 0, waitMs] }] };
}

/**
 * The email's counter, per tenant named (none, or null for the platform: the
 * tenant-less sign-in's). The email is folded by emailComparisonKey, the
 * users' email collation's own key (case, compatibility forms and every
 * character the collation ignores), so no spelling that finds an account
 * gets a counter of its own. Per tenant, because anyone may give their own
 * account an email another tenant's user holds: with one counter per email,
 * their own good sign-ins would start the other account's count over between
 * guesses.
 */
export function accountThrottleKey(email: string, tenant?: string | null): string {
  const account = `account:${emailComparisonKey(email)}`;
  // Tenant ids are exact (a sign-in compares them so): no folding.
  return tenant == null ? account : `${account}\u0000tenant:${tenant}`;
}

/** The IP's counter: an IPv4 address (also IPv4-mapped), or the /64 of an IPv6 one. */
export function ipThrottleKey(ip: string): string {
  const address = normalizeIp(ip.split('%')[0]);
  return `ip:${isIP(address) === 6 ? ipv6Slash64(address) : address}`;
}

/** `2001:db8:1:2::/64` for any address of that /64, however it is written. */
function ipv6Slash64(address: string): string {
  const [head, tail] = address.split('::');
  const groupsOf = (text: string | undefined) => (text ? text.split(':') : []);
  // A dotted IPv4 tail stands for two groups.
  const width = (groups: string[]) => groups.reduce((sum, group) => sum + (group.includes('.') ? 2 : 1), 0);
  const groups =
    tail === undefined
      ? groupsOf(head)
      : [...groupsOf(head), ...Array<string>(8 - width(groupsOf(head)) - width(groupsOf(tail))).fill('0'), ...groupsOf(tail)];
  return `${groups
    .slice(0, 4)
    .map((group) => parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}
