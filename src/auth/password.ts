import { randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';

/**
 * Argon2id with the OWASP-recommended baseline (m=19 MiB, t=2, p=1).
 * `algorithm: 2` is Argon2id: the package's enum is a `const enum`, which
 * per-file compilers (SWC) cannot inline.
 */
const ARGON2ID = 2;
const hashOptions = { algorithm: ARGON2ID, memoryCost: 19456, timeCost: 2, parallelism: 1 };

export function hashPassword(password: string): Promise<string> {
  return hash(password, hashOptions);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    // A malformed stored hash is a failed sign-in, not a crash.
    return false;
  }
}

let dummyHash: Promise<string> | undefined;

/**
 * The hash a sign-in checks the password against when no account is chosen,
 * so that every sign-in runs exactly one verification of the same cost and
 * response time does not tell an unknown email from a wrong password. Made
 * once per process, of a random password (nothing matches it).
 */
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(32).toString('base64url'));
  return dummyHash;
}
