import { errors, type AppError } from '../errors/index.js';
import { refusedCredential } from './credential-refusal.js';
import type { AccountStore, ApiKeyCredentialRecord, ApiKeyStore, ApiKeyUse, AuthEvents } from './ports.js';
import { isPlatformAdmin, type Actor, type RateLimitState } from './actor.js';
import { parseApiKeySecret, sameHash } from './api-key-secret.js';
import type { RequestFacts } from './credentials.js';
import { allowedCallerRefusal } from './api-key-callers.js';
import { rateLimitHeaders } from './rate-limit-headers.js';
import { permissionsOfRoles } from './role-permissions.js';
import { isAccountActive, KEY_CREATOR_DISABLED } from './account-status.js';

/** The rate window of every key: `rateLimit` requests per hour. */
export const RATE_WINDOW_SECONDS = 3600;

/**
 * What checking a key's secret found, worst first as a key's status orders
 * them (revoked > expired > disabled). `verifyApiKey` answers these codes;
 * a request made with the key turns them into its 401 / 403 / 429.
 */
export type ApiKeyCheckCode = 'VALID' | 'NOT_FOUND' | 'REVOKED' | 'EXPIRED' | 'DISABLED' | 'FORBIDDEN' | 'RATE_LIMITED';

/** The request a key is used for; `operation` names it in the usage record (verify's uses: `verify`). */
export interface KeyUseFacts extends RequestFacts {
  operation?: string | null;
}

/** One check of a secret: the code, why (the refusal's words), and what it identified. */
export interface ApiKeyOutcome {
  code: ApiKeyCheckCode;
  /** What a request made with the key is told (its 401 / 403 / 429 message). */
  message: string;
  /** When the check ran: the use's instant. */
  at: Date;
  /** The key, once identified by one of its secrets (null: NOT_FOUND). */
  key: ApiKeyCredentialRecord | null;
  /** The key's window after this use, when the use was counted (VALID, RATE_LIMITED). */
  rateLimit: RateLimitState | null;
  /** VALID: the key acting as its creator, with the scopes the creator still holds. */
  actor: Actor | null;
  /** The use checked. */
  use: KeyUseFacts;
}

/** Only keys of this tenant are found (another tenant's key is NOT_FOUND and spends nothing); absent: any key. */
export interface CheckWithin {
  tenantId: string | null;
}

export type ApiKeyCheck = (secret: string, use: KeyUseFacts, within?: CheckWithin) => Promise<ApiKeyOutcome>;

export interface ApiKeyCheckOptions {
  keys: ApiKeyStore;
  accounts: AccountStore;
  now?: () => Date;
  /** Told of each use of an identified key that is refused here (the usage rollups count them; usage.record). */
  onRefused?: (use: ApiKeyUse) => void;
  /** Told of each 429 (the `api-keys.rate-limited` event; it returns at once). */
  events?: Pick<AuthEvents, 'apiKeyRateLimited'>;
}

/**
 * The one check of an API key secret, shared by the credential (a request
 * made with the key, api-key.strategy.ts) and `verifyApiKey`: the checksum
 * (a mistyped or truncated key is NOT_FOUND without a database read), the
 * store's count of the use in the key's hourly window with the key's state
 * and secret (ApiKeyStore.countUse; a busy key's uses come from grants), the
 * allowed IPs and origins (a refused caller spends none of the quota), the
 * limit, then the creator the key acts as. Every refusal of an identified
 * key is told to `onRefused`, so the rollups count it.
 */
export function createApiKeyCheck({ keys, accounts, now = () => new Date(), onRefused, events }: ApiKeyCheckOptions): ApiKeyCheck {
  return async (secret, use, within) => {
    const at = now();
    const outcome = (code: ApiKeyCheckCode, message: string, key: ApiKeyCredentialRecord | null = null, rateLimit: RateLimitState | null = null): ApiKeyOutcome => ({
      code,
      message,
      at,
      key,
      rateLimit,
      actor: null,
      use,
    });
    const parsed = parseApiKeySecret(secret);
    if (!parsed) return outcome('NOT_FOUND', INVALID);
    const windowStart = new Date(Math.floor(at.getTime() / (RATE_WINDOW_SECONDS * 1000)) * RATE_WINDOW_SECONDS * 1000);
    /** A refusal of an identified key, told to onRefused (one call per refusal point below). */
    const refused = (apiKeyId: string, refusal: NonNullable<ApiKeyUse['refusal']>, status: number) =>
      onRefused?.({ apiKeyId, at, ip: use.ip, origin: use.origin ?? null, method: use.method, path: use.path, operation: use.operation ?? null, status, refusal });

    if (use.recheck) return recheckKey(keys, accounts, parsed, use, at, within, outcome);
    const counted = await keys.countUse(parsed.keyId, parsed.hash, at, windowStart);
    if (!counted) {
      const why = await whyRefused(keys, parsed.keyId, parsed.hash, at);
      if (!why.key || !isWithin(why.key, within)) return outcome('NOT_FOUND', INVALID);
      refused(why.key.id, 'unauthorized', 401);
      return outcome(why.code, why.message, why.key);
    }
    const { key, usedInWindow } = counted;
    if (!isWithin(key, within)) {
      // Another tenant's key: as unknown, and the use is given back (it is not the verifier's to spend).
      await keys.releaseUse(counted, windowStart);
      return outcome('NOT_FOUND', INVALID);
    }
    const callerRefusal = allowedCallerRefusal(key, use);
    if (callerRefusal) {
      // A caller the key does not allow spends none of its quota.
      await keys.releaseUse(counted, windowStart);
      refused(key.id, 'forbidden', 403);
      return outcome('FORBIDDEN', callerRefusal, key);
    }
    const rateLimit: RateLimitState = {
      limit: key.rateLimit,
      remaining: Math.max(0, key.rateLimit - usedInWindow),
      resetSeconds: Math.max(1, Math.ceil((windowStart.getTime() + RATE_WINDOW_SECONDS * 1000 - at.getTime()) / 1000)),
      windowSeconds: RATE_WINDOW_SECONDS,
    };
    if (usedInWindow > key.rateLimit) {
      refused(key.id, 'rateLimited', 429);
      events?.apiKeyRateLimited(key, windowStart, RATE_WINDOW_SECONDS);
      return outcome('RATE_LIMITED', `This API key allows ${key.rateLimit} requests per hour; try again in ${rateLimit.resetSeconds} s`, key, rateLimit);
    }
    return actingOutcome(accounts, key, rateLimit, outcome);
  };
}

type OutcomeOf = (code: ApiKeyCheckCode, message: string, key?: ApiKeyCredentialRecord | null, rateLimit?: RateLimitState | null) => ApiKeyOutcome;

/** VALID with the key acting as its creator; DISABLED when the creator is gone, disabled, or lost what a platform key needs. */
async function actingOutcome(accounts: AccountStore, key: ApiKeyCredentialRecord, rateLimit: RateLimitState, outcome: OutcomeOf): Promise<ApiKeyOutcome> {
  const acting = await actingCreator(accounts, key);
  // Not a refusal counted in the rollups, as before.
  if (typeof acting === 'string') return outcome('DISABLED', acting, key, rateLimit);
  const bounds = { expiresAt: key.expiresAt, rateLimit: key.rateLimit, allowedIPs: key.allowedIPs, allowedOrigins: key.allowedOrigins };
  const actor: Actor = { ...acting, via: { kind: 'api-key', apiKeyId: key.id, keyId: key.keyId, platform: key.tenantId === null, rateLimit, bounds } };
  return { ...outcome('VALID', 'valid', key, rateLimit), actor };
}

/**
 * A re-check (use.recheck: an open subscription's credential, once a second):
 * the key's state and secret, the tenant, the allowed callers and the creator
 * as a use checks them, but read rather than counted, so a stream spends none
 * of the key's hourly quota and writes no usage (no rollup, no 429 event).
 */
async function recheckKey(
  keys: ApiKeyStore,
  accounts: AccountStore,
  parsed: { keyId: string; hash: string },
  use: KeyUseFacts,
  at: Date,
  within: CheckWithin | undefined,
  outcome: OutcomeOf,
): Promise<ApiKeyOutcome> {
  const state = await keyState(keys, parsed.keyId, parsed.hash, at);
  if (!state.key || !isWithin(state.key, within)) return outcome('NOT_FOUND', INVALID);
  if (state.code !== 'VALID') return outcome(state.code, state.message, state.key);
  const key = state.key;
  const callerRefusal = allowedCallerRefusal(key, use);
  if (callerRefusal) return outcome('FORBIDDEN', callerRefusal, key);
  // No use counted: the window is not read, so the state says the limit only.
  const rateLimit: RateLimitState = { limit: key.rateLimit, remaining: key.rateLimit, resetSeconds: RATE_WINDOW_SECONDS, windowSeconds: RATE_WINDOW_SECONDS };
  return actingOutcome(accounts, key, rateLimit, outcome);
}

/** A request's refusal for an outcome other than VALID: 401, 403 (IP, origin) or 429 with the window's fields. */
export function refusalOf(outcome: ApiKeyOutcome): AppError {
  return refusedCredential('api_key', outcome.code.toLowerCase(), answerOf(outcome));
}

function answerOf(outcome: ApiKeyOutcome): AppError {
  if (outcome.code === 'FORBIDDEN') return errors.forbidden(outcome.message);
  if (outcome.code === 'RATE_LIMITED' && outcome.rateLimit) {
    return errors.rateLimited(outcome.rateLimit.resetSeconds, outcome.message, rateLimitHeaders(outcome.rateLimit));
  }
  return errors.unauthenticated(outcome.message);
}

const INVALID = 'Invalid API key';

function isWithin(key: ApiKeyCredentialRecord, within: CheckWithin | undefined): boolean {
  return within === undefined || key.tenantId === within.tenantId;
}

/**
 * Why a secret was refused. Revoked, expired or disabled (in that order, as
 * the key's status) is said only to a caller holding one of the key's
 * secrets (compared in constant time): the key id is public, and a
 * well-formed secret is easy to build, so anyone else hears only "Invalid API
 * key". `key`: set when the key was identified (its secret given), so the
 * refusal is one of its uses.
 */
async function whyRefused(
  keys: ApiKeyStore,
  keyId: string,
  hash: string,
  at: Date,
): Promise<{ code: ApiKeyCheckCode; message: string; key: ApiKeyCredentialRecord | null }> {
  const state = await keyState(keys, keyId, hash, at);
  // Live now yet not counted a moment ago (a change in between): refused as unknown, as before.
  return state.code === 'VALID' ? { code: 'NOT_FOUND', message: INVALID, key: null } : state;
}

/** The key's state for a holder of `hash` at `at`: VALID when live, else why not (NOT_FOUND: not identified). */
async function keyState(
  keys: ApiKeyStore,
  keyId: string,
  hash: string,
  at: Date,
): Promise<{ code: ApiKeyCheckCode; message: string; key: ApiKeyCredentialRecord | null }> {
  const key = await keys.findByKeyId(keyId);
  // A secret rolled out (past its grace period) is no secret of the key any more: its holder learns nothing of the key's state.
  const held = key?.secrets.some((secret) => (secret.validUntil === null || secret.validUntil.getTime() > at.getTime()) && sameHash(secret.hash, hash));
  if (!key || !held) return { code: 'NOT_FOUND', message: INVALID, key: null };
  if (key.revokedAt) return { code: 'REVOKED', message: 'API key revoked', key };
  if (key.expiresAt && key.expiresAt.getTime() <= at.getTime()) return { code: 'EXPIRED', message: 'API key expired', key };
  if (key.disabledAt) return { code: 'DISABLED', message: 'API key disabled', key };
  return { code: 'VALID', message: 'valid', key };
}

/** The key's creator, as the actor the key acts for (its permissions narrowed to the key's scopes); else why it cannot act. */
async function actingCreator(accounts: AccountStore, key: ApiKeyCredentialRecord): Promise<Omit<Actor, 'via'> | string> {
  const creator = await accounts.findAccount(key.createdBy);
  if (!creator || creator.tenantId !== key.tenantId) return 'API key creator no longer exists';
  if (!isAccountActive(creator)) return KEY_CREATOR_DISABLED;
  const held = await permissionsOfRoles(accounts, creator.tenantId, creator.roles);
  const creatorActor: Actor = { userId: key.createdBy, tenantId: creator.tenantId, roles: creator.roles, permissions: held, via: { kind: 'jwt' } };
  if (key.tenantId === null && !isPlatformAdmin(creatorActor)) return 'API key creator is no longer a platform administrator';
  const permissions = new Set(key.scopes.filter((scope) => held.has('*') || held.has(scope)));
  return { userId: key.createdBy, tenantId: key.tenantId, roles: [], permissions };
}

/** Who presented the key to the service verifying it: the address and origin it came from (verifyApiKey's `ip`, `origin`). */
export interface KeyPresenter {
  ip: string;
  origin?: string;
}

/**
 * A request's way to check a key it was handed (verifyApiKey): the same
 * check as a request made with the key, its uses named `verify`, and the log
 * of an accepted use. The request context builds it (request-context.ts).
 */
export interface KeyVerification {
  /** The check of `secret` as a use of it by `presenter`; `within`: only keys of that tenant. */
  check(secret: string, presenter: KeyPresenter, within?: CheckWithin): Promise<ApiKeyOutcome>;
  /** Queues the usage-log entry of a use the check counted, with what it was answered (200, or 403 for a scope it lacks). */
  recordUse(outcome: ApiKeyOutcome, status: number): void;
  /** The code verifyApiKey answers (metrics: api_key_verifications_total). */
  answered(code: ApiKeyCheckCode): void;
}

/** The operation a verification's use is logged as. */
export const VERIFY_OPERATION = 'verify';

/** One request's KeyVerification: uses as `method path` of that request, operation `verify`. */
export function keyVerificationOf(
  check: ApiKeyCheck,
  record: (use: ApiKeyUse) => void,
  request: Pick<RequestFacts, 'method' | 'path'>,
  onAnswered: (code: ApiKeyCheckCode) => void = () => undefined,
): KeyVerification {
  return {
    answered: onAnswered,
    check: (secret, presenter, within) => check(secret, { ...request, ip: presenter.ip, origin: presenter.origin, operation: VERIFY_OPERATION }, within),
    recordUse(outcome, status) {
      if (!outcome.key) return;
      const { use } = outcome;
      record({ apiKeyId: outcome.key.id, at: outcome.at, ip: use.ip, origin: use.origin ?? null, method: use.method, path: use.path, operation: VERIFY_OPERATION, status, operations: [] });
    },
  };
}
