import type { MiddlewareFn } from 'type-graphql';
import type { AppContext } from './context.js';
import { isUnexpected, markLogged, normalizeError } from './normalize-error.js';

/**
 * Runs around every resolver (global middleware): whatever a resolver or its
 * argument validation throws leaves as an AppError, so Apollo and SOFA both
 * see the final code and status. Unexpected errors are logged here, with the
 * request id, before they are masked.
 */
export const errorTranslation: MiddlewareFn<AppContext> = async ({ context, info }, next) => {
  try {
    return await next();
  } catch (thrown) {
    const error = normalizeError(thrown);
    if (isUnexpected(error)) {
      context.logger.error({ err: thrown, operation: `${info.parentType.name}.${info.fieldName}` }, 'unexpected error');
      markLogged(error);
    }
    throw error;
  }
};
