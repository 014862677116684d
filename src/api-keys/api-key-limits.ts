import { isIP } from 'node:net';
import { ValidateBy, type ValidationOptions } from 'class-validator';
import { nestsDeeperThan } from '../shared/index.js';

/**
 * The limits and the rules of an API key's fields that class-validator has
 * no rule for, declared once; the inputs (api-key.inputs.ts) apply them.
 * Each is a named class-validator rule, so a refusal is a 400 naming the
 * field and the rule, on both surfaces.
 */
export const API_KEY_LIMITS = {
  nameLength: 100,
  descriptionLength: 500,
  allowedOrigins: 50,
  allowedIPs: 100,
  originLength: 2048,
  rateLimitMax: 1_000_000,
  metadataKeys: 50,
  /** Bytes of the metadata object written as JSON (UTF-8). */
  metadataBytes: 4096,
  /** Levels of objects and arrays, the metadata object itself the first (MongoDB refuses documents nested over 100). */
  metadataDepth: 20,
  gracePeriodSecondsMax: 86_400,
  /** Characters of the reason a key is disabled for (disableApiKey). */
  disabledReasonLength: 500,
} as const;

/** An origin exactly as a browser sends it: `http(s)://host[:port]`, lowercase, no path, no default port. */
export function isOrigin(value: unknown): boolean {
  if (typeof value !== 'string' || value.length > API_KEY_LIMITS.originLength) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value;
  } catch {
    return false;
  }
}

/** rule `isOrigin`. */
export function IsOrigin(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isOrigin',
      validator: {
        validate: isOrigin,
        defaultMessage: () =>
          'each of $property must be an origin http(s)://host[:port] as browsers send it: lowercase, no path, no trailing slash, no default port',
      },
    },
    options,
  );
}

const IPV4_MAPPED = /^::ffff:\d/i;

/**
 * An IPv4 or IPv6 address, or a CIDR block (`address/prefix`, prefix up to
 * 32 or 128). IPv4-mapped IPv6 (`::ffff:10.0.0.1`) and zone ids (`%eth0`)
 * are refused: write the IPv4 address, and allow-lists hold no interfaces.
 */
export function isIpOrCidr(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const [address, prefix, ...rest] = value.split('/');
  if (rest.length > 0 || address.includes('%') || IPV4_MAPPED.test(address)) return false;
  const family = isIP(address);
  if (family === 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/** rule `isIpOrCidr`. */
export function IsIpOrCidr(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isIpOrCidr',
      validator: {
        validate: isIpOrCidr,
        defaultMessage: () => 'each of $property must be an IPv4 or IPv6 address, or a CIDR block such as 10.0.0.0/8 or 2001:db8::/32',
      },
    },
    options,
  );
}

/** rule `isFutureDate`: an instant after the moment of the request. */
export function IsFutureDate(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isFutureDate',
      validator: {
        validate: (value) => value instanceof Date && value.getTime() > Date.now(),
        defaultMessage: () => '$property must be in the future',
      },
    },
    options,
  );
}

/** rule `maxKeys`: a JSON object with at most `max` keys of its own. */
export function MaxKeys(max: number, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'maxKeys',
      constraints: [max],
      validator: {
        validate: (value) => isPlainObject(value) && Object.keys(value).length <= max,
        defaultMessage: () => `$property may have at most ${max} keys`,
      },
    },
    options,
  );
}

/** rule `maxJsonBytes`: written as JSON, at most `max` bytes (UTF-8). */
export function MaxJsonBytes(max: number, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'maxJsonBytes',
      constraints: [max],
      validator: {
        // Past the depth rule's limit the value is refused by that rule; not stringified (deep nesting would overflow the stack).
        validate: (value) => !nestsDeeperThan(value, API_KEY_LIMITS.metadataDepth) && Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8') <= max,
        defaultMessage: () => `$property may be at most ${max} bytes written as JSON`,
      },
    },
    options,
  );
}

/**
 * rule `storableKeys`: no key, at any depth, starts with `$` or holds a `.`
 * (MongoDB reads those as operators and paths), holds a NUL (BSON cannot
 * write it: the insert would fail) or is `__proto__`, `constructor` or
 * `prototype` (mongoose drops these on the way to storage, against prototype
 * pollution: the record would not hold what was accepted).
 */
export function StorableKeys(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'storableKeys',
      validator: {
        validate: (value) => hasStorableKeys(value),
        defaultMessage: () => '$property keys may not start with $, contain a dot or a NUL character, or be __proto__, constructor or prototype, at any depth',
      },
    },
    options,
  );
}

/** Looks no deeper than the depth rule allows (that rule refuses anything deeper), so hostile nesting costs no deep recursion. */
function hasStorableKeys(value: unknown, levels: number = API_KEY_LIMITS.metadataDepth): boolean {
  if (levels < 0) return true;
  if (Array.isArray(value)) return value.every((inner) => hasStorableKeys(inner, levels - 1));
  if (!isPlainObject(value)) return true;
  return Object.entries(value).every(([key, inner]) => isStorableKey(key) && hasStorableKeys(inner, levels - 1));
}

const DROPPED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function isStorableKey(key: string): boolean {
  return !key.startsWith('$') && !key.includes('.') && !key.includes('\u0000') && !DROPPED_KEYS.has(key);
}

/** rule `maxDepth`: objects and arrays nested at most `max` levels, the value itself the first. */
export function MaxDepth(max: number, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'maxDepth',
      constraints: [max],
      validator: {
        validate: (value) => !nestsDeeperThan(value, max),
        defaultMessage: () => `$property may nest objects and arrays at most ${max} levels deep`,
      },
    },
    options,
  );
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
