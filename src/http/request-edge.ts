import type { Request, RequestHandler } from 'express';
import type { Logger } from '../logger.js';
import type { RestArgumentReader } from './rest-arguments.js';
import { requestScope, type RequestScope } from './request-scope.js';

/** Builds the resolver context of one request (credential -> caller); see src/auth/request-context.ts. */
export type RequestContextFactory<TContext> = (req: Request, scope: { requestId: string; logger: Logger }) => Promise<TContext>;

export interface RequestEdgeOptions<TContext> {
  graphqlPath: string;
  restBasePath: string;
  createContext: RequestContextFactory<TContext>;
  readRestArguments: RestArgumentReader;
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
  const { graphqlPath, restBasePath, createContext, readRestArguments, logger } = options;
  return async (req, res, next) => {
    const isGraphQL = req.path === graphqlPath;
    if (!isGraphQL && !req.path.startsWith(`${restBasePath}/`)) return next();
    try {
      const base = { requestId: String(req.id ?? ''), logger: req.log ?? logger };
      const scope: RequestScope<TContext> = { ...base, context: await createContext(req, base) };
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
