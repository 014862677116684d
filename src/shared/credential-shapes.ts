/**
 * What the service's credentials look like, in one place: the API key secret
 * format (src/auth makes and checks such secrets) and access tokens (JWS
 * compact JWTs). The log redacts them by these shapes wherever they appear,
 * whatever the field, parameter or header they came under.
 *
 * An API key secret is `ak_<keyId>_<secret><checksum>`, all base62. A
 * refresh token is `rt_<session id>_<generation>_<tag><secret>`: 24 hexadecimal
 * characters, then a decimal generation and 65 of base64url (a 128-bit tag,
 * 256 random bits); all after `rt_<session id>_` is redacted.
 */
export const API_KEY_PREFIX = 'ak_';
export const API_KEY_ID_LENGTH = 12;
export const API_KEY_SECRET_LENGTH = 43;
export const API_KEY_CHECKSUM_LENGTH = 6;

/**
 * The public `ak_<keyId>_` and what follows it: the whole secret, or any part
 * of one (a truncated or mistyped secret still gives most of it away). Each
 * match is tried at an `ak_` and fails within 16 characters or consumes what
 * it matched, so a scan is linear in the text's length.
 */
const API_KEY_SHAPE = new RegExp(`${API_KEY_PREFIX}([0-9A-Za-z]{${API_KEY_ID_LENGTH}})_[0-9A-Za-z]+`, 'g');

/**
 * A one-time password ticket (users area): `pt_` and 43 base64url characters
 * (256 random bits, shared/opaque-secret.ts). Redacted from any run of 16 or
 * more such characters after a `pt_` that starts a word, so a truncated one goes too.
 */
export const PASSWORD_TICKET_PREFIX = 'pt_';
const PASSWORD_TICKET_SHAPE = /(?<![0-9A-Za-z])pt_[\w-]{16,}/g;
export const REFRESH_TOKEN_PREFIX = 'rt_';

/**
 * A webhook signing secret (webhooks area): `whsec_` and the base64 of its
 * random bytes. Redacted from any run of 16 or more base64 characters after a
 * `whsec_` that starts a word, so a truncated one goes too.
 */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
const WEBHOOK_SECRET_SHAPE = /(?<![0-9A-Za-z])whsec_[A-Za-z0-9+/=]{16,}/g;

/** The public `rt_<session id>_` and what follows it, as API_KEY_SHAPE (base64url holds `_` and `-`). */
const REFRESH_TOKEN_SHAPE = new RegExp(`${REFRESH_TOKEN_PREFIX}([0-9a-f]{24})_[\\w-]+`, 'g');

/** A JWT's header is base64url JSON, so it starts with `eyJ` (`{"`). */
const JWT_HEADER_START = 'eyJ';

/** Maximal runs of base64url characters and dots: a JWT lies within one (greedy, no backtracking: linear). */
const BASE64URL_DOTTED_RUN = /[\w.-]+/g;

/**
 * `text` with every API key secret (its key id kept: it is public, and says
 * which key leaked), every password ticket, every webhook signing secret, every refresh token (its session id kept) and every JWT (`eyJ…` header, payload and signature)
 * replaced by `replacement`. Linear in the text's length.
 */
export function redactCredentialShapes(text: string, replacement: string): string {
  let redacted = text;
  if (redacted.includes(API_KEY_PREFIX)) redacted = redacted.replace(API_KEY_SHAPE, (_secret, keyId: string) => `${API_KEY_PREFIX}${keyId}_${replacement}`);
  if (redacted.includes(PASSWORD_TICKET_PREFIX)) redacted = redacted.replace(PASSWORD_TICKET_SHAPE, `${PASSWORD_TICKET_PREFIX}${replacement}`);
  if (redacted.includes(WEBHOOK_SECRET_PREFIX)) redacted = redacted.replace(WEBHOOK_SECRET_SHAPE, `${WEBHOOK_SECRET_PREFIX}${replacement}`);
  if (redacted.includes(REFRESH_TOKEN_PREFIX)) redacted = redacted.replace(REFRESH_TOKEN_SHAPE, (_token, sessionId: string) => `${REFRESH_TOKEN_PREFIX}${sessionId}_${replacement}`);
  if (redacted.includes(JWT_HEADER_START)) redacted = redacted.replace(BASE64URL_DOTTED_RUN, (run) => redactJwtsInRun(run, replacement));
  return redacted;
}

/** Whether `text` holds anything `redactCredentialShapes` would replace. */
export function holdsCredentialShape(text: string): boolean {
  return redactCredentialShapes(text, '') !== text;
}

/**
 * The JWTs of one run of base64url characters and dots: a part holding
 * `eyJ` (from there on), followed by a non-empty payload part and a
 * signature part (empty for an unsigned token), goes as one.
 */
function redactJwtsInRun(run: string, replacement: string): string {
  if (!run.includes(JWT_HEADER_START)) return run;
  const parts = run.split('.');
  const kept: string[] = [];
  for (let index = 0; index < parts.length; index += 1) {
    const part = parts[index];
    const start = part.indexOf(JWT_HEADER_START);
    if (start >= 0 && part.length > start + JWT_HEADER_START.length && index + 2 < parts.length && parts[index + 1].length > 0) {
      kept.push(part.slice(0, start) + replacement);
      index += 2;
    } else {
      kept.push(part);
    }
  }
  return kept.join('.');
}

/** `%61` -> `a`: only letters, digits, `-`, `.`, `_` and `~`, whose escapes change nothing of a URL's meaning (RFC 3986 6.2.2.2). */
export function unescapeUnreserved(path: string): string {
  if (!path.includes('%')) return path;
  return path.replace(/%([0-9A-Fa-f]{2})/g, (escape, hex: string) => {
    const char = String.fromCharCode(Number.parseInt(hex, 16));
    return /^[\w.~-]$/.test(char) ? char : escape;
  });
}

/**
 * A URL path as it may be kept (the log, an API key's usage log): its escaped
 * unreserved characters unescaped, so that an escaped secret has its shape,
 * and every credential shape replaced.
 */
export function pathWithoutCredentials(path: string, replacement: string): string {
  return redactCredentialShapes(unescapeUnreserved(path), replacement);
}
