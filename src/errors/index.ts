/**
 * The service's one error family: the catalogue (code -> HTTP status), the
 * normaliser, the one place an unexpected error is logged, and the two
 * renderers (GraphQL errors, RFC 9457 problem+json).
 */
export {
  AppError,
  errorCatalogue,
  errors,
  internalError,
  isAppError,
  isErrorCode,
  isUnexpected,
  type AppErrorOptions,
  type ErrorCode,
  type FieldError,
} from './catalogue.js';
export { isDuplicateKey, normalizeError, validationFieldErrors } from './normalize.js';
export { settleError, type ErrorScope } from './report.js';
export { toGraphQLError, type GraphQLRenderOptions } from './render-graphql.js';
export { PROBLEM_CONTENT_TYPE, problemHeaders, sendProblem, toProblem, type ProblemBody, type ProblemOptions } from './render-problem.js';
