import {
  ATTR_CLIENT_ADDRESS,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_REQUEST_METHOD_ORIGINAL,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_NETWORK_PROTOCOL_VERSION,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
} from '@opentelemetry/semantic-conventions';
import type { Request, RequestHandler } from 'express';
import { REDACTED } from '../logger.js';
import { endFailed, pathWithoutCredentials, startRequestSpan, traceContext, tracingOn, type RequestTrace } from '../shared/index.js';
import { requestScope } from './request-scope.js';
import type { RestRoutes } from './rest-routes.js';

export interface RequestTracingOptions {
  routes: RestRoutes;
  restBasePath: string;
  graphqlPath: string;
}

/** The HTTP methods semantic conventions name; any other is `_OTHER`. */
const KNOWN_METHODS = new Set(['CONNECT', 'DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT', 'TRACE']);

/**
 * A SERVER span per request, when tracing is on (shared/tracing.ts), with
 * the HTTP semantic conventions' attributes. `start` (once the request id
 * is made) begins it and runs the rest of the request in its context (the
 * JSON body's reader keeps that context across the socket's events);
 * `route` (after the request edge has matched the route) names it:
 * `GET /api/v1/restaurant/meal-menus/:id`, `POST /graphql`; without a route
 * the span is named by the method alone. Never kept: the query string (a
 * GraphQL GET carries variables in it), headers, bodies; the path has
 * credential shapes redacted, as in the log.
 */
export function useRequestTracing({ routes, restBasePath, graphqlPath }: RequestTracingOptions): { start: RequestHandler; route: RequestHandler } {
  const traces = new WeakMap<Request, RequestTrace & { method: string }>();
  const start: RequestHandler = (req, res, next) => {
    if (!tracingOn()) return next();
    const method = KNOWN_METHODS.has(req.method) ? req.method : '_OTHER';
    const { hostname, port } = serverOf(req);
    const traced = startRequestSpan(method === '_OTHER' ? 'HTTP' : method, String(req.id ?? ''), req.headers, {
      [ATTR_HTTP_REQUEST_METHOD]: method,
      ...(method === '_OTHER' ? { [ATTR_HTTP_REQUEST_METHOD_ORIGINAL]: req.method.slice(0, 32) } : {}),
      [ATTR_URL_PATH]: pathWithoutCredentials(req.path, REDACTED),
      [ATTR_URL_SCHEME]: req.protocol,
      ...(hostname ? { [ATTR_SERVER_ADDRESS]: hostname } : {}),
      ...(port ? { [ATTR_SERVER_PORT]: port } : {}),
      [ATTR_CLIENT_ADDRESS]: req.ip ?? '',
      [ATTR_NETWORK_PROTOCOL_VERSION]: req.httpVersion,
    });
    if (!traced) return next();
    traces.set(req, { ...traced, method });
    res.once('close', () => {
      const { span } = traced;
      span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, res.statusCode);
      // A server span fails on a 5xx only (a 4xx is the client's); an answer never sent has no status.
      if (res.statusCode >= 500) endFailed(span, undefined, String(res.statusCode));
      else if (!res.writableFinished) endFailed(span, undefined, 'aborted');
      else span.end();
    });
    traceContext.with(traced.context, next);
  };
  const route: RequestHandler = (req, _res, next) => {
    const traced = traces.get(req);
    const template = traced && routeOf(req.path, requestScope.getStore()?.restRoute?.operation);
    if (template) {
      traced.span.setAttribute(ATTR_HTTP_ROUTE, template);
      traced.span.updateName(`${traced.method} ${template}`);
    }
    next();
  };
  /** The route template: /graphql, or a REST operation's path under the base. */
  const routeOf = (path: string, operation: string | undefined): string | undefined => {
    if (path === graphqlPath) return graphqlPath;
    const route = operation ? routes[operation as keyof RestRoutes] : undefined;
    return route?.path ? `${restBasePath}${route.path}` : undefined;
  };
  return { start, route };
}

/** The Host header's name and port (express's `hostname`, which honours TRUST_PROXY), never a made-up one. */
function serverOf(req: Request): { hostname?: string; port?: number } {
  const hostname = req.hostname;
  const port = /:(\d{1,5})$/.exec(req.get('host') ?? '')?.[1];
  return { hostname: hostname || undefined, port: port ? Number(port) : undefined };
}
