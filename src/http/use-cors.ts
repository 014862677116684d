import type { RequestHandler } from 'express';

const ALLOWED_HEADERS = 'Authorization, Content-Type, X-API-Key, X-Request-Id, Apollo-Require-Preflight';
const ALLOWED_METHODS = 'GET, POST, PUT, PATCH, DELETE, OPTIONS';
/** What a page may read of an answer beyond the CORS-safelisted fields: the ones this service sets for its clients. */
const EXPOSED_HEADERS = 'X-Request-Id, WWW-Authenticate, Retry-After, RateLimit, RateLimit-Policy, Allow';

/**
 * CORS for the origins in CORS_ORIGINS (`*`: any). Other origins get no CORS
 * headers, so browsers refuse them; preflights end here with 204.
 */
export function useCors({ origins }: { origins: readonly string[] }): RequestHandler {
  const anyOrigin = origins.includes('*');
  return (req, res, next) => {
    const origin = req.get('origin');
    if (origin && (anyOrigin || origins.includes(origin))) {
      res.vary('Origin');
      res.setHeader('Access-Control-Allow-Origin', anyOrigin ? '*' : origin);
      res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
      if (req.method === 'OPTIONS') {
        res.setHeader('Access-Control-Allow-Methods', ALLOWED_METHODS);
        res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
        res.setHeader('Access-Control-Max-Age', '600');
        res.status(204).end();
        return;
      }
    }
    next();
  };
}
