import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from '../logger.js';
import type { RestRouteMatch } from './rest-arguments.js';

/**
 * What the request edge learned about one API request, reachable from code
 * no request object reaches: Apollo's formatError and SOFA's errorHandler
 * only receive errors, SOFA's execute only its arguments. Set once by the
 * request edge (use-request-edge.ts) around everything that serves the request.
 */
export interface RequestScope<TContext = unknown> {
  requestId: string;
  /** The request's own logger (pino-http's child, with the request id). */
  logger: Logger;
  /** The resolver context both surfaces hand to graphql-js. */
  context: TContext;
  /** REST only: the JSON body's fields, checked, to pass as operation variables. */
  restVariables?: Record<string, unknown>;
  /** REST only: the route the method and path matched (undefined: none). */
  restRoute?: RestRouteMatch;
  /** GraphQL only: the validated operation as one bounded label (graphql/'s operationLabel), once resolved. */
  operation?: string;
}

export const requestScope = new AsyncLocalStorage<RequestScope>();

/** Each API request's scope by its request, for what reads it once the answer is done (metrics.ts), outside its async context. */
const scopesByRequest = new WeakMap<object, RequestScope>();

export function rememberScope(req: object, scope: RequestScope): void {
  scopesByRequest.set(req, scope);
}

export function scopeOfRequest(req: object): RequestScope | undefined {
  return scopesByRequest.get(req);
}

/** The scope of the request being served, or a bare one (an error before the edge ran). */
export function currentScope(fallback: Logger): Pick<RequestScope, 'requestId' | 'logger'> & Partial<RequestScope> {
  return requestScope.getStore() ?? { requestId: '', logger: fallback };
}
