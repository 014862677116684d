import type { RateLimitState } from './actor.js';

/**
 * The IETF rate-limit fields (draft-ietf-httpapi-ratelimit-headers,
 * structured-field form) for an API key's window: the policy, and what is
 * left of it after this request.
 */
export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    'RateLimit-Policy': `"key";q=${state.limit};w=${state.windowSeconds}`,
    RateLimit: `"key";r=${state.remaining};t=${state.resetSeconds}`,
  };
}
