import type { Request, RequestHandler } from 'express';
import type { Logger } from '../logger.js';
import type { RestArgumentReader } from './rest-arguments.js';
import { requestScope, type RequestScope } from './request-scope.js';

/** What the request edge offers the context factory besides the request. */
export interface EdgeScope {
  requestId: string;
  logger: Logger;
  /** Sets a response header now (e.g. the rate-limit fields of an API key). */
  setHeader(name: string, value: string): void;
  /** Runs once the response is done, with its status (e.g. to log an API key's use). */
  afterResponse(listener: (status: number) => void): void;
}

/** Builds the resolver context of one request (credential -> caller); see src/auth/request-context.ts. */
export type RequestContextFactory<TContext> = (req: Request, scope: EdgeScope) => Promise<TContext>;

export interface RequestEdgeOptions<TContext> {
  graphqlPath: string;
  restBasePath: string;
  createContext: RequestContextFactory<TContext>;
  readRestArguments: RestArgumentReader;
  /** Paths under the REST base that need no context (public documents). */
  publicPaths?: readonly string[];
  /** Used when pino-http gave the request no logger of its own. */
  logger: Logger;
}

/**
 * The one entrance both surfaces pass through, in the same order, before
 * Apollo or SOFA see the request: the credential and caller (the context,
 * whose factory applies the credential's own limits), then, for REST, the
 * strict reading of the arguments. A rule that holds for every API request
 * is added here once. Everything after runs inside the request's scope
 * (request-scope.ts), which is how the context, the checked REST body and
 * the request id reach Apollo, SOFA and the error renderers.
 */
export function useRequestEdge<TContext>(options: RequestEdgeOptions<TContext>): RequestHandler {
  const { graphqlPath, restBasePath, createContext, readRestArguments, logger, publicPaths = [] } = options;
  return async (req, res, next) => {
    const isGraphQL = req.path === graphqlPath;
    if (!isGraphQL && (!req.path.startsWith(`${restBasePath}/`) || publicPaths.includes(req.path))) return next();
    try {
      const base = { requestId: String(req.id ?? ''), logger: req.log ?? logger };
      const edge: EdgeScope = {
        ...base,
        setHeader: (name, value) => res.setHeader(name, value),
        afterResponse: (listener) => res.once('close', () => listener(res.statusCode)),
      };
      const scope: RequestScope<TContext> = { ...base, context: await createContext(req, edge) };
      if (!isGraphQL) {
        scope.restVariables = readRestArguments({
          method: req.method,
          path: req.path,
          query: req.query as Record<string, unknown>,
          body: req.body,
        });
      }
      requestScope.run(scope, next);
    } catch (err) {
      next(err);
    }
  };
}
