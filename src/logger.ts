import { pino, type DestinationStream, type Logger } from 'pino';
import type { AppConfig } from './config.js';
import { holdsCredentialShape, redactCredentialShapes } from './shared/index.js';

export type { Logger } from 'pino';

export const REDACTED = '[redacted]';

/**
 * A field, header or parameter name that may hold a secret, in any case:
 * passwords and their hashes, tokens, keys and key hashes, password tickets,
 * Authorization, cookies, credentials. `keyId` is the public part of an API key.
 */
const SECRET_NAME = /pass|secret|token|ticket|auth|cookie|credential|key|signature/i;
const PUBLIC_NAMES = new Set(['keyid']);

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name) && !PUBLIC_NAMES.has(name.toLowerCase());
}

/** How far the redaction walks one log line: deeper values, and values past the budget, are dropped, not written unchecked. */
const MAX_DEPTH = 16;
const MAX_VALUES = 10_000;

/**
 * Replaces the value of every secret-like key, at any depth and in any case
 * (`headers.Authorization`, `err.variables.password`, a bound child's
 * fields), within the bounds above; and, by their shape, API key secrets and
 * JWTs inside any string or key (a URL's path and query, a request id, a
 * message), whatever they came under. It runs on the finished JSON line, after
 * every serializer (errors, requests), so nothing reaches the output unseen;
 * pino's own `redact` cannot (fixed paths, case-sensitive, one `*` level).
 */
export function redactLogLine(line: string): string {
  if (holdsNothingToRedact(line)) return line;
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    // pino writes one JSON object per line; anything else is not ours to pass on.
    return `${JSON.stringify({ msg: 'unreadable log line dropped' })}\n`;
  }
  let budget = MAX_VALUES;
  const walk = (value: unknown, depth: number): unknown => {
    // The line's own top-level values (level, time, msg) are always kept, their secrets redacted.
    if (value === null || typeof value !== 'object') return depth <= 1 || --budget >= 0 ? redactShapes(value) : '[truncated]';
    if (--budget < 0) return '[truncated]';
    if (depth >= MAX_DEPTH) return '[too deep]';
    if (Array.isArray(value)) return value.map((item) => walk(item, depth + 1));
    const copy: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) copy[redactCredentialShapes(key, REDACTED)] = isSecretName(key) ? REDACTED : walk(inner, depth + 1);
    return copy;
  };
  return `${JSON.stringify(walk(parsed, 0))}\n`;
}

/**
 * Whether the walk below would write `line` unchanged, read off its text:
 * no secret-like name anywhere in it (keys and values alike), no credential
 * shape, and no escape sequence (an escaped line break before `pt_…` ends a
 * word in the value, not in the text). Most lines (a request's: method,
 * path, status) are such, and are written as pino made them: three linear
 * scans instead of a parse, a walk and a stringify, ten times the cost.
 */
function holdsNothingToRedact(line: string): boolean {
  return line.startsWith('{') && !line.includes('\\') && !SECRET_NAME.test(line) && !holdsCredentialShape(line);
}

function redactShapes(value: unknown): unknown {
  return typeof value === 'string' ? redactCredentialShapes(value, REDACTED) : value;
}

/** JSON lines to stdout (or `destination`), secrets redacted. */
export function createLogger(config: Pick<AppConfig, 'logLevel'>, destination?: DestinationStream): Logger {
  const options = {
    level: config.logLevel,
    hooks: { streamWrite: redactLogLine },
    base: { service: 'admin-gateway' },
  };
  return destination ? pino(options, destination) : pino(options);
}
