import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, errors } from '../errors.js';
import { internalError } from '../graphql/normalize-error.js';
import type { Logger } from '../logger.js';
import { sendProblem } from './problem.js';

/** Any path nobody answered: 404 problem+json. */
export function useNotFound(): RequestHandler {
  return (req, res) => {
    sendProblem(res, errors.notFound(`Route ${req.method} ${req.path}`), { requestId: String(req.id ?? '') });
  };
}

interface BodyParserError {
  type?: string;
  status?: number;
  expose?: boolean;
  message?: string;
}

/**
 * The last handler: errors raised outside the GraphQL execution (body too
 * large, malformed JSON, a crash in a handler) as problem+json, or, on the
 * GraphQL path, as a GraphQL response with the same code and status, so a
 * GraphQL client reads them like any other error. Unexpected ones are logged
 * and masked.
 */
export function useProblemErrors({
  bodyLimitLabel,
  exposeDetails,
  logger,
  graphqlPath,
}: {
  bodyLimitLabel: string;
  exposeDetails: boolean;
  logger: Logger;
  graphqlPath: string;
}): ErrorRequestHandler {
  return (err: unknown, req, res, next) => {
    if (res.headersSent) return next(err);
    const error = toAppError(err as BodyParserError, bodyLimitLabel);
    if (error.code === 'INTERNAL_SERVER_ERROR') (req.log ?? logger).error({ err }, 'unexpected error');
    const requestId = String(req.id ?? '');
    if (req.path === graphqlPath) {
      const extensions = { ...error.extensions, http: { status: error.status }, requestId };
      res.status(error.status).set(error.headers).json({ errors: [{ message: error.message, extensions }] });
      return;
    }
    sendProblem(res, error, { requestId, exposeDetails });
  };
}

function toAppError(err: BodyParserError, bodyLimitLabel: string): AppError {
  if (err instanceof AppError) return err;
  if (err.type === 'entity.too.large' || err.status === 413) return errors.payloadTooLarge(bodyLimitLabel);
  if (err.type === 'entity.parse.failed') return errors.badInput('The request body is not valid JSON');
  if (err.expose && err.status && err.status >= 400 && err.status < 500) {
    return errors.badInput(err.message ?? 'Bad request');
  }
  return internalError(err);
}
