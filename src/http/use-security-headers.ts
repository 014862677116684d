import { createHash } from 'node:crypto';
import type { RequestHandler } from 'express';
import helmet, { type HelmetOptions } from 'helmet';

type Directives = NonNullable<Exclude<HelmetOptions['contentSecurityPolicy'], boolean | undefined>['directives']>;

/**
 * The one inline <style> of our pages: the SVG logo of Swagger UI's top bar
 * (swagger-ui-dist renders it), admitted by its hash rather than by
 * 'unsafe-inline'. A new swagger-ui-dist with another logo fails the browser
 * test (test/http/browser.test.ts) with the hash chromium expects.
 */
const SWAGGER_LOGO_STYLE = '.logo_small_svg__cls-2{fill:#fff}.logo_small_svg__cls-3{fill:#85ea2d}';
const styleHash = (css: string) => `'sha256-${createHash('sha256').update(css).digest('base64')}'`;

/**
 * The Content-Security-Policy of our own pages (landing page, Swagger UI,
 * GraphiQL) and of every API answer: everything they load is a file of this
 * service, none of them runs an inline script, and the one inline style is
 * admitted by its hash (no 'unsafe-inline', no nonce needed). No
 * upgrade-insecure-requests: the service itself speaks plain HTTP. `data:` images and
 * fonts are the icons Swagger UI and GraphiQL embed in their CSS.
 */
const OWN_PAGES_POLICY: Directives = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'script-src-attr': ["'none'"],
  'style-src': ["'self'", styleHash(SWAGGER_LOGO_STYLE)],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
};

/**
 * A page rendered by a library that polices itself (Apollo's Sandbox landing
 * page carries a <meta> CSP with a fresh nonce per render for its CDN scripts
 * and styles). Both policies apply in a browser, so this one leaves scripts,
 * styles, images and frames to the page's own and keeps only what a <meta>
 * policy cannot say (frame-ancestors) or Apollo's omits.
 */
const SELF_POLICED_PAGE_POLICY: Directives = {
  'default-src': helmet.contentSecurityPolicy.dangerouslyDisableDefaultSrc,
  'object-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
};

export interface SecurityHeadersOptions {
  /** Answers that carry credentials or a caller's data: `Cache-Control: no-store` (errors included). */
  isCredentialed(path: string): boolean;
  /** A path whose HTML page brings its own nonce-based CSP (Apollo Sandbox at /graphql outside production). */
  selfPolicedPagePath?: string;
}

/**
 * helmet's headers on every answer (X-Content-Type-Options: nosniff,
 * Strict-Transport-Security, Referrer-Policy, Cross-Origin-*-Policy, ...), a
 * Content-Security-Policy that lets our pages and Apollo Sandbox work, and no
 * caching of credentialed answers by browsers or shared caches. Set before
 * anything answers, so 404s, errors and CORS preflights carry them too.
 */
export function useSecurityHeaders({ isCredentialed, selfPolicedPagePath }: SecurityHeadersOptions): RequestHandler {
  // HSTS for this host only: with includeSubDomains, a service on an apex domain would force HTTPS on every subdomain for a year.
  const hsts = { maxAge: 31_536_000, includeSubDomains: false };
  const ownPages = helmet({ strictTransportSecurity: hsts, contentSecurityPolicy: { useDefaults: false, directives: OWN_PAGES_POLICY } });
  const selfPoliced = helmet({ strictTransportSecurity: hsts, contentSecurityPolicy: { useDefaults: false, directives: SELF_POLICED_PAGE_POLICY } });
  return (req, res, next) => {
    if (isCredentialed(req.path)) res.setHeader('Cache-Control', 'no-store');
    (req.path === selfPolicedPagePath ? selfPoliced : ownPages)(req, res, next);
  };
}
