import { BlockList, isIP } from 'node:net';
import { errors } from '../errors/index.js';
import type { AccountStore, ApiKeyCredentialRecord, ApiKeyStore, ApiKeyUse } from './ports.js';
import { isPlatformAdmin, type Actor, type RateLimitState } from './actor.js';
import { parseApiKeySecret, sameHash } from './api-key-secret.js';
import { API_KEY_PREFIX, type CredentialStrategy, type RequestFacts } from './credentials.js';
import { rateLimitHeaders } from './rate-limit-headers.js';
import { permissionsOfRoles } from './role-permissions.js';

/** The rate window of every key: `rateLimit` requests per hour. */
export const RATE_WINDOW_SECONDS = 3600;

export interface ApiKeyStrategyOptions {
  keys: ApiKeyStore;
  accounts: AccountStore;
  now?: () => Date;
  /** Told of each use of an identified key that is refused here (the usage rollups count them; usage.record). */
  onRefused?: (use: ApiKeyUse) => void;
}

/**
 * API key secrets (`ak_…`), as `Authorization: Bearer` or `X-API-Key`. The
 * store checks the secret and the key's state and counts the use in its
 * hourly window (the count lives in the key's record, so the limit holds
 * across instances; a busy key's uses are counted a few at a time, see
 * ApiKeyStore.countUse); then the key acts as its creator, with only the
 * scopes the creator still holds, so a creator who loses a permission takes
 * it from the key (through the account cache: at once on the instance that
 * made the change, within a second on the others).
 */
export function apiKeyStrategy({ keys, accounts, now = () => new Date(), onRefused }: ApiKeyStrategyOptions): CredentialStrategy {
  return {
    name: 'api-key',
    recognises: (credential) => credential.value.startsWith(API_KEY_PREFIX),
    async authenticate(credential, request): Promise<Actor> {
      const parsed = parseApiKeySecret(credential.value);
      // A mistyped or truncated key fails its checksum: refused without a database read.
      if (!parsed) throw errors.unauthenticated('Invalid API key');
      const at = now();
      const windowStart = new Date(Math.floor(at.getTime() / (RATE_WINDOW_SECONDS * 1000)) * RATE_WINDOW_SECONDS * 1000);
      /** A refusal of an identified key, told to onRefused (one call per refusal point below). */
      const refused = (apiKeyId: string, refusal: NonNullable<ApiKeyUse['refusal']>, status: number) =>
        onRefused?.({ apiKeyId, at, ip: request.ip, origin: request.origin ?? null, method: request.method, path: request.path, operation: null, status, refusal });
      const counted = await keys.countUse(parsed.keyId, parsed.hash, at, windowStart);
      if (!counted) {
        const why = await whyRefused(keys, parsed.keyId, parsed.hash, at);
        if (why.keyOf) refused(why.keyOf, 'unauthorized', 401);
        throw errors.unauthenticated(why.message);
      }
      const { key, usedInWindow } = counted;
      try {
        assertAllowedCaller(key, request);
      } catch (refusal) {
        // A caller the key does not allow spends none of its quota.
        await keys.releaseUse(counted, windowStart);
        refused(key.id, 'forbidden', 403);
        throw refusal;
      }
      const rateLimit: RateLimitState = {
        limit: key.rateLimit,
        remaining: Math.max(0, key.rateLimit - usedInWindow),
        resetSeconds: Math.max(1, Math.ceil((windowStart.getTime() + RATE_WINDOW_SECONDS * 1000 - at.getTime()) / 1000)),
        windowSeconds: RATE_WINDOW_SECONDS,
      };
      if (usedInWindow > key.rateLimit) {
        refused(key.id, 'rateLimited', 429);
        throw errors.rateLimited(rateLimit.resetSeconds, `This API key allows ${key.rateLimit} requests per hour; try again in ${rateLimit.resetSeconds} s`, rateLimitHeaders(rateLimit));
      }
      const bounds = { expiresAt: key.expiresAt, rateLimit: key.rateLimit, allowedIPs: key.allowedIPs, allowedOrigins: key.allowedOrigins };
      return {
        ...(await actingCreator(accounts, key)),
        via: { kind: 'api-key', apiKeyId: key.id, keyId: key.keyId, platform: key.tenantId === null, rateLimit, bounds },
      };
    },
  };
}

/**
 * Why a secret was refused. Revoked or expired is said only to a caller
 * holding one of the key's secrets (compared in constant time): the key id is
 * public, and a well-formed secret is easy to build, so anyone else hears
 * only "Invalid API key".
 */
async function whyRefused(keys: ApiKeyStore, keyId: string, hash: string, at: Date): Promise<{ message: string; keyOf?: string }> {
  const key = await keys.findByKeyId(keyId);
  if (!key || !key.secrets.some((secret) => sameHash(secret.hash, hash))) return { message: 'Invalid API key' };
  // `keyOf`: the key was identified (its secret given), so the refusal is one of its uses.
  if (key.revokedAt) return { message: 'API key revoked', keyOf: key.id };
  if (key.expiresAt && key.expiresAt.getTime() <= at.getTime()) return { message: 'API key expired', keyOf: key.id };
  return { message: 'Invalid API key' };
}

/** The key's creator, as the actor the key acts for: its permissions narrowed to the key's scopes. */
async function actingCreator(accounts: AccountStore, key: ApiKeyCredentialRecord): Promise<Omit<Actor, 'via'>> {
  const creator = await accounts.findAccount(key.createdBy);
  if (!creator || creator.tenantId !== key.tenantId) throw errors.unauthenticated('API key creator no longer exists');
  const held = await permissionsOfRoles(accounts, creator.tenantId, creator.roles);
  const creatorActor: Actor = { userId: key.createdBy, tenantId: creator.tenantId, roles: creator.roles, permissions: held, via: { kind: 'jwt' } };
  if (key.tenantId === null && !isPlatformAdmin(creatorActor)) throw errors.unauthenticated('API key creator is no longer a platform administrator');
  const permissions = new Set(key.scopes.filter((scope) => held.has('*') || held.has(scope)));
  return { userId: key.createdBy, tenantId: key.tenantId, roles: [], permissions };
}

/** `allowedIPs` (addresses and CIDRs) and `allowedOrigins`, when the key lists any. */
function assertAllowedCaller(key: ApiKeyCredentialRecord, request: RequestFacts): void {
  if (key.allowedIPs.length > 0 && !allowListOf(key.allowedIPs).allows(request.ip)) {
    throw errors.forbidden(`This API key may not be used from IP address ${normalizeIp(request.ip)}`);
  }
  if (key.allowedOrigins.length > 0 && !(request.origin && key.allowedOrigins.includes(request.origin))) {
    throw errors.forbidden(request.origin ? `This API key may not be used from origin ${request.origin}` : 'This API key may only be used with an allowed Origin');
  }
}

/** IPv4-mapped IPv6 (`::ffff:10.0.0.1`, how Node reports IPv4 on a dual-stack socket) as plain IPv4. */
export function normalizeIp(ip: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  return mapped ? mapped[1] : ip;
}

type IpAllowList = { allows(ip: string): boolean };

/** Allow-lists already built, by their entries: keys are checked on every request. */
const builtAllowLists = new Map<string, IpAllowList>();
const MAX_BUILT_ALLOW_LISTS = 1000;

function allowListOf(entries: readonly string[]): IpAllowList {
  const id = entries.join('\n');
  let list = builtAllowLists.get(id);
  if (!list) {
    if (builtAllowLists.size >= MAX_BUILT_ALLOW_LISTS) builtAllowLists.delete(builtAllowLists.keys().next().value!);
    builtAllowLists.set(id, (list = ipAllowList(entries)));
  }
  return list;
}

/** An allow-list of addresses and CIDR blocks, IPv4 and IPv6. */
export function ipAllowList(entries: readonly string[]): IpAllowList {
  const list = new BlockList();
  for (const entry of entries) {
    const [written, prefix] = entry.split('/');
    const address = normalizeIp(written);
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    // The area validates the list when a key is created; an unreadable entry allows nothing.
    if (!isIP(address)) continue;
    try {
      if (prefix === undefined) list.addAddress(address, family);
      else list.addSubnet(address, Number(prefix), family);
    } catch {
      // A prefix that does not fit the family (e.g. an IPv4-mapped /104): allows nothing.
    }
  }
  return {
    allows(ip) {
      const address = normalizeIp(ip);
      const family = isIP(address);
      return family !== 0 && list.check(address, family === 6 ? 'ipv6' : 'ipv4');
    },
  };
}
