import { isIP } from 'node:net';
import type { Actor, ApiKeyBounds } from '../auth/index.js';
import { errors, type FieldError } from '../errors/index.js';
import { DEFAULT_RATE_LIMIT } from './api-key.model.js';

/**
 * A key made or rolled with an API key credential never reaches beyond that
 * key (the "calling key"): it expires no later, allows no more requests per
 * hour, and is used from no address or origin the calling key is not. A
 * setting the request leaves out (or gives as null or an empty list, which
 * set no bound) takes the calling key's bound: its expiry, its address and
 * origin lists, and for the rate limit the default capped at its limit. A
 * setting given beyond it is refused (403 naming each field), never narrowed
 * silently. Scopes are bounded by the caller's permissions (the service's
 * check): a key acts with its scopes only.
 */

/** What a key may hold of the bounded settings. */
export type KeySettings = ApiKeyBounds;

/** The settings a create asks for, as given (absent: undefined). */
export interface RequestedSettings {
  expiresAt?: Date | null;
  rateLimit?: number | null;
  allowedIPs?: readonly string[] | null;
  allowedOrigins?: readonly string[] | null;
}

const RULE = 'withinCallingKey';

/**
 * The settings of a key `actor` creates: as asked, with the defaults; for a
 * caller authenticated with an API key, left-out bounds taken from that key,
 * and any given one beyond it refused (403 naming each field).
 */
export function settingsForCreate(actor: Actor, asked: RequestedSettings): KeySettings {
  const calling = callingKeyBounds(actor);
  const settings: KeySettings = {
    expiresAt: asked.expiresAt ?? calling?.expiresAt ?? null,
    rateLimit: asked.rateLimit ?? Math.min(DEFAULT_RATE_LIMIT, calling?.rateLimit ?? DEFAULT_RATE_LIMIT),
    allowedIPs: nonEmpty(asked.allowedIPs) ?? calling?.allowedIPs ?? [],
    allowedOrigins: nonEmpty(asked.allowedOrigins) ?? calling?.allowedOrigins ?? [],
  };
  assertSettingsWithin(actor, 'create', settings);
  return settings;
}

/** What is being done to a key whose settings must lie within the calling key's. */
export type BoundedAction = 'create' | 'roll' | 'update';

const REFUSALS: Readonly<Record<BoundedAction, string>> = {
  create: 'An API key cannot create a key beyond its own limits',
  roll: 'An API key cannot roll a key whose limits exceed its own',
  update: 'An API key cannot set a key beyond its own limits',
};

/**
 * The one check create, roll and update share: for a caller authenticated
 * with an API key, the settings the key will hold after `action` must lie
 * within that calling key's (403 naming each field); any other caller passes.
 */
export function assertSettingsWithin(actor: Actor, action: BoundedAction, settings: KeySettings): void {
  const calling = callingKeyBounds(actor);
  if (calling) assertWithin(calling, settings, REFUSALS[action]);
}

/** A key rolled with an API key credential: its settings (kept by the roll) must lie within that key's (403 naming each field). */
export function assertRollWithin(actor: Actor, key: KeySettings): void {
  assertSettingsWithin(actor, 'roll', key);
}

/**
 * The settings a key holds after an update: each given field replaces the
 * current one, null clears it (no expiry, no list; the rate limit back to the
 * default), a left-out field stays; then the same check as create and roll.
 */
export function settingsForUpdate(actor: Actor, current: KeySettings, patch: RequestedSettings): KeySettings {
  const settings: KeySettings = {
    expiresAt: patch.expiresAt === undefined ? current.expiresAt : patch.expiresAt,
    rateLimit: patch.rateLimit === undefined ? current.rateLimit : (patch.rateLimit ?? DEFAULT_RATE_LIMIT),
    allowedIPs: patch.allowedIPs === undefined ? current.allowedIPs : (patch.allowedIPs ?? []),
    allowedOrigins: patch.allowedOrigins === undefined ? current.allowedOrigins : (patch.allowedOrigins ?? []),
  };
  assertSettingsWithin(actor, 'update', settings);
  return settings;
}

function callingKeyBounds(actor: Actor): ApiKeyBounds | null {
  return actor.via.kind === 'api-key' ? actor.via.bounds : null;
}

function nonEmpty(list: readonly string[] | null | undefined): readonly string[] | undefined {
  return list && list.length > 0 ? list : undefined;
}

function assertWithin(calling: ApiKeyBounds, settings: KeySettings, sentence: string): void {
  const beyond = settingsBeyond(calling, settings);
  if (beyond.length === 0) return;
  throw errors.forbiddenFields(`${sentence}: ${beyond.map((error) => error.field).join(', ')}`, beyond);
}

/** Each setting of `settings` that reaches beyond `calling`, as a field error (no value repeated). */
export function settingsBeyond(calling: ApiKeyBounds, settings: KeySettings): FieldError[] {
  const beyond: FieldError[] = [];
  const refuse = (field: string, message: string) => beyond.push({ field, rule: RULE, message });
  if (calling.expiresAt && (!settings.expiresAt || settings.expiresAt.getTime() > calling.expiresAt.getTime())) {
    refuse('expiresAt', `expiresAt may be no later than ${calling.expiresAt.toISOString()}, when the API key making this request expires`);
  }
  if (settings.rateLimit > calling.rateLimit) {
    refuse('rateLimit', `rateLimit may be at most ${calling.rateLimit}, the rate limit of the API key making this request`);
  }
  if (calling.allowedIPs.length > 0 && !listWithin(settings.allowedIPs, (entry) => ipEntryWithin(entry, calling.allowedIPs))) {
    refuse('allowedIPs', 'each of allowedIPs must lie within an entry of the allowedIPs of the API key making this request');
  }
  if (calling.allowedOrigins.length > 0 && !listWithin(settings.allowedOrigins, (origin) => calling.allowedOrigins.includes(origin))) {
    refuse('allowedOrigins', 'each of allowedOrigins must be one of the allowedOrigins of the API key making this request');
  }
  return beyond;
}

/** An empty list allows anything, so it lies within a bounded list only when that list is empty too (the callers check). */
function listWithin(list: readonly string[], within: (entry: string) => boolean): boolean {
  return list.length > 0 && list.every(within);
}

/** An address or CIDR block as the range of addresses it allows. */
interface AddressRange {
  family: 4 | 6;
  first: bigint;
  last: bigint;
}

/**
 * Whether every address `entry` allows is allowed by one entry of `list`
 * (of the same family). A block spanning two entries is refused: stricter
 * than their union, never looser.
 */
export function ipEntryWithin(entry: string, list: readonly string[]): boolean {
  const range = addressRange(entry);
  if (!range) return false;
  return list.some((outer) => {
    const bound = addressRange(outer);
    return bound !== null && bound.family === range.family && bound.first <= range.first && range.last <= bound.last;
  });
}

/** The addresses an entry allows, as the credential's allow-list reads it (host bits of a block ignored); null when unreadable. */
function addressRange(entry: string): AddressRange | null {
  const [address, prefixText] = entry.split('/');
  const family = isIP(address);
  if (family !== 4 && family !== 6) return null;
  const bits = family === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? bits : Number(prefixText);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > bits) return null;
  const hostMask = (1n << BigInt(bits - prefix)) - 1n;
  const first = addressBits(address, family) & ~hostMask;
  return { family, first, last: first | hostMask };
}

/** An address Node's isIP accepted, as a number. */
function addressBits(address: string, family: 4 | 6): bigint {
  if (family === 4) return address.split('.').reduce((bits, part) => (bits << 8n) | BigInt(Number(part)), 0n);
  let text = address;
  // An embedded IPv4 tail (::1.2.3.4) as its two 16-bit groups.
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (tail) {
    const v4 = addressBits(tail, 4);
    text = `${text.slice(0, -tail.length)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head, rest] = text.split('::');
  const headGroups = head ? head.split(':') : [];
  const restGroups = rest ? rest.split(':') : [];
  const groups = rest === undefined ? headGroups : [...headGroups, ...Array<string>(8 - headGroups.length - restGroups.length).fill('0'), ...restGroups];
  return groups.reduce((bits, group) => (bits << 16n) | BigInt(parseInt(group, 16)), 0n);
}
