import { createHash, timingSafeEqual } from 'node:crypto';
import type { ApolloServerPlugin } from '@apollo/server';
import { Router, type RequestHandler } from 'express';
import { errors } from '../errors/index.js';
import { refusedLimit, type GraphQLLimit } from '../graphql/index.js';
import type { ServiceMetrics, Surface } from '../metrics/index.js';
import { scopeOfRequest } from './request-scope.js';
import type { RestRoutes } from './rest-routes.js';

export const METRICS_PATH = '/metrics';

export interface RequestMeasureOptions {
  metrics: ServiceMetrics;
  graphqlPath: string;
  restBasePath: string;
  /** The REST table: each operation's route template, the `http_route` label. */
  routes: RestRoutes;
}

/**
 * Times every API request (/graphql and /api/v1 and below) from its arrival
 * to the end of its answer, into the request histogram by surface, method,
 * route template, operation and status. It runs first, so refusals of the
 * edge (401, 413, 503) count too; the route and operation are read from the
 * request's scope (the edge's REST route, the GraphQL operation Apollo
 * resolved) once the answer is done. Other paths (pages, health, /metrics)
 * and subscription streams (SSE; WebSockets never pass here) are not measured.
 */
export function measureApiRequests({ metrics, graphqlPath, restBasePath, routes }: RequestMeasureOptions): RequestHandler {
  const templates = routeTemplates(routes, restBasePath);
  return (req, res, next) => {
    const path = req.path;
    const surface: Surface | undefined = isUnder(path, graphqlPath) ? 'graphql' : isUnder(path, restBasePath) ? 'rest' : undefined;
    // A subscription over SSE lasts as long as its client stays: no request's latency.
    if (!surface || (surface === 'graphql' && req.headers.accept?.includes('text/event-stream'))) return next();
    const started = performance.now();
    // As sent: the edge runs a HEAD as its GET.
    const method = req.method;
    res.once('finish', () => {
      const scope = scopeOfRequest(req);
      const restOperation = scope?.restRoute?.operation;
      const operation = surface === 'graphql' ? (scope?.operation ?? 'unknown') : (restOperation ?? 'unknown');
      const route = surface === 'graphql' ? (path === graphqlPath ? graphqlPath : '') : restOperation ? (templates.get(restOperation) ?? '') : '';
      metrics.observeRequest(surface, method, route, operation, res.statusCode, (performance.now() - started) / 1000);
    });
    next();
  };
}

/** Each operation's REST path as a template under the base (`/api/v1/restaurant/meal-menus/{id}`), as OpenAPI writes it. */
function routeTemplates(routes: RestRoutes, basePath: string): Map<string, string> {
  return new Map(Object.entries(routes).map(([operation, route]) => [operation, `${basePath}${String(route.path).replace(/:(\w+)/g, '{$1}')}`]));
}

/** The path itself or anything below it (`/api/v1`, `/api/v1/x`; not `/api/v10`). */
function isUnder(path: string, base: string): boolean {
  return path === base || path.startsWith(`${base}/`);
}

/**
 * Counts the GraphQL documents a limit refused (depth, aliases, directives,
 * tokens at parse, cost), once per limit per document. Apollo reports every
 * refusal here, also of a document the known-documents path handed back.
 */
export function countRefusedDocuments(metrics: ServiceMetrics): ApolloServerPlugin {
  return {
    async requestDidStart() {
      return {
        async didEncounterErrors({ errors: found }) {
          const limits = new Set<GraphQLLimit>();
          for (const error of found) {
            const limit = refusedLimit(error);
            if (limit) limits.add(limit);
          }
          for (const limit of limits) metrics.documentRefused(limit);
        },
      };
    },
  };
}

export interface MetricsEndpointOptions {
  metrics: ServiceMetrics;
  /** METRICS_TOKEN: required as `Authorization: Bearer <token>` when set. */
  token: string | null;
  production: boolean;
}

/**
 * `GET /metrics`: the Prometheus text exposition of this instance's registry.
 * With METRICS_TOKEN set, a scrape must send it as a bearer token (compared
 * in constant time; else 401). Without one it is open outside production
 * and not served in production (404, as any unknown path): the traffic
 * figures are not for everyone to read.
 */
export function useMetricsEndpoint({ metrics, token, production }: MetricsEndpointOptions): Router {
  const router = Router();
  if (!token && production) return router;
  const expected = token ? digest(token) : null;
  router.get(METRICS_PATH, async (req, res, next) => {
    try {
      if (expected && !presents(req.get('authorization'), expected)) throw errors.unauthenticated('GET /metrics needs Authorization: Bearer <METRICS_TOKEN>');
      const { contentType, text } = await metrics.scrape();
      res.setHeader('Cache-Control', 'no-store');
      res.setHeader('Content-Type', contentType);
      res.end(text);
    } catch (err) {
      next(err);
    }
  });
  return router;
}

/** Digests of equal length, so that timingSafeEqual compares any two tokens in the same time. */
function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

function presents(authorization: string | undefined, expected: Buffer): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  return match !== null && timingSafeEqual(digest(match[1]!), expected);
}
