import type { ErrorRequestHandler, RequestHandler } from 'express';
import { errors, sendProblem, settleError, toGraphQLError } from '../errors/index.js';
import type { Logger } from '../logger.js';

/** Any path nobody answered: 404 problem+json. */
export function useNotFound(): RequestHandler {
  return (req, res) => {
    sendProblem(res, errors.notFound(`Route ${req.method} ${req.path}`), { requestId: String(req.id ?? '') });
  };
}

/**
 * The last handler: errors raised outside the GraphQL execution (the body
 * parser's, the request edge's, a crash in a handler) leave through
 * `settleError` like every other, as problem+json or, on the GraphQL path,
 * as a GraphQL response with the same code and status, so a GraphQL client
 * reads them like any other error.
 */
export function useErrorAnswers({
  exposeDetails,
  hideSuggestions,
  logger,
  graphqlPath,
}: {
  exposeDetails: boolean;
  /** Production: no "Did you mean" (errors/suggestions.ts). */
  hideSuggestions: boolean;
  logger: Logger;
  graphqlPath: string;
}): ErrorRequestHandler {
  return (err: unknown, req, res, next) => {
    if (res.headersSent) return next(err);
    const requestId = String(req.id ?? '');
    const error = settleError(err, { requestId, logger: req.log ?? logger });
    if (req.path === graphqlPath) {
      res.status(error.status).set(error.headers).json({ errors: [toGraphQLError(error, { requestId, exposeDetails, hideSuggestions })] });
      return;
    }
    sendProblem(res, error, { requestId, exposeDetails, hideSuggestions });
  };
}
