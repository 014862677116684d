import type { Logger } from 'pino';
import { isUnexpected, type AppError } from './catalogue.js';
import { normalizeError } from './normalize.js';

/** The request an error is answered for: its id goes into the body and the log line. */
export interface ErrorScope {
  requestId: string;
  logger: Logger;
}

/**
 * The one way out for every error an answer carries, on both surfaces:
 * normalised once, and, when it is an unexpected failure, logged here and
 * nowhere else, with the request id and the real cause. Every renderer
 * (Apollo's formatError, SOFA's errorHandler, the express fallback) calls
 * it exactly once per error it answers.
 */
export function settleError(thrown: unknown, scope: ErrorScope): AppError {
  const error = normalizeError(thrown);
  if (isUnexpected(error)) {
    scope.logger.error({ err: error.originalError ?? thrown, requestId: scope.requestId }, 'unexpected error');
  }
  return error;
}
