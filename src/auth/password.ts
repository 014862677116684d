import { randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';
import { errors } from '../errors/index.js';

/**
 * Argon2id with the OWASP-recommended baseline (m=19 MiB, t=2, p=1).
 * `algorithm: 2` is Argon2id: the package's enum is a `const enum`, which
 * per-file compilers (SWC) cannot inline.
 */
const ARGON2ID = 2;
const hashOptions = { algorithm: ARGON2ID, memoryCost: 19456, timeCost: 2, parallelism: 1 };

/** How much Argon2 work may run and wait at once (config `passwordWork`). */
export interface PasswordWorkLimits {
  /** Hashes and verifications running at once. */
  concurrency: number;
  /** Further ones waiting for a turn; beyond that a request gets 503. */
  queue: number;
  /** The Retry-After of that 503, in seconds. */
  retryAfterSeconds: number;
}

const DEFAULT_LIMITS: PasswordWorkLimits = { concurrency: 2, queue: 32, retryAfterSeconds: 1 };

/**
 * Every Argon2 hash and verification takes a turn here. Each one holds 19 MiB
 * and a libuv thread for tens of milliseconds, and the thread pool and memory
 * are the process's: unbounded, a sign-in flood spread over many addresses
 * (each let through by the throttle) slows every other request and swells
 * memory. So a few run at once, a bounded number wait, and the rest are
 * refused at once with 503 and Retry-After, having cost next to nothing.
 */
class PasswordWorkGate {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly limits: PasswordWorkLimits) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.limits.concurrency) {
      if (this.waiting.length >= this.limits.queue) {
        throw errors.unavailable(this.limits.retryAfterSeconds, 'Too many sign-ins and password changes at once; try again shortly');
      }
      // The turn is handed over by the finishing one (running stays counted), so none can jump the queue.
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running += 1;
    }
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }
}

let gate = new PasswordWorkGate(DEFAULT_LIMITS);

/** Sets the process's bound on Argon2 work (the service does at start; work already waiting keeps its turn). */
export function limitPasswordWork(limits: PasswordWorkLimits): void {
  if (gate.limits !== limits) gate = new PasswordWorkGate(limits);
}

export function hashPassword(password: string): Promise<string> {
  return gate.run(() => hash(password, hashOptions));
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  return gate.run(async () => {
    try {
      return await verify(passwordHash, password);
    } catch {
      // A malformed stored hash is a failed sign-in, not a crash.
      return false;
    }
  });
}

let dummyHash: Promise<string> | undefined;

/**
 * The hash a sign-in checks the password against when no account is chosen,
 * so that every sign-in runs exactly one verification of the same cost and
 * response time does not tell an unknown email from a wrong password. Made
 * once per process, of a random password (nothing matches it).
 */
export function dummyPasswordHash(): Promise<string> {
  // Outside the gate: made once, and a refusal must not be kept as the process's dummy hash.
  dummyHash ??= hash(randomBytes(32).toString('base64url'), hashOptions);
  return dummyHash;
}
