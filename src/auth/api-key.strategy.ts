import type { CredentialStrategy } from './credentials.js';
import { API_KEY_PREFIX } from './credentials.js';
import { createApiKeyCheck, refusalOf, type ApiKeyCheck, type ApiKeyCheckOptions } from './api-key-check.js';
import type { Actor } from './actor.js';

export { RATE_WINDOW_SECONDS } from './api-key-check.js';
export { ipAllowList, normalizeIp } from './api-key-callers.js';

/** The check's options, or a check already built (the service shares one with verifyApiKey). */
export type ApiKeyStrategyOptions = ApiKeyCheckOptions | { check: ApiKeyCheck };

/**
 * API key secrets (`ak_…`), as `Authorization: Bearer` or `X-API-Key`. The
 * check (api-key-check.ts, the one verifyApiKey uses too) checks the secret
 * and the key's state and counts the use in its hourly window (the count
 * lives in the key's record, so the limit holds across instances; a busy
 * key's uses are counted a few at a time, see ApiKeyStore.countUse); then the
 * key acts as its creator, with only the scopes the creator still holds, so a
 * creator who loses a permission takes it from the key (through the account
 * cache: at once on the instance that made the change, within a second on the
 * others). Anything but VALID is the request's 401, 403 or 429.
 */
export function apiKeyStrategy(options: ApiKeyStrategyOptions): CredentialStrategy {
  const check = 'check' in options ? options.check : createApiKeyCheck(options);
  return {
    name: 'api-key',
    recognises: (credential) => credential.value.startsWith(API_KEY_PREFIX),
    async authenticate(credential, request): Promise<Actor> {
      const outcome = await check(credential.value, request);
      if (!outcome.actor) throw refusalOf(outcome);
      return outcome.actor;
    },
  };
}
