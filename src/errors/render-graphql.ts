import type { GraphQLFormattedError } from 'graphql';
import { isUnexpected, type AppError } from './catalogue.js';
import { fieldErrorsWithoutSuggestions, withoutSuggestions } from './suggestions.js';

export interface GraphQLRenderOptions {
  requestId: string;
  /** Development: add the masked cause's message as `debug`. */
  exposeDetails?: boolean;
  /** Production: no "Did you mean" (suggestions.ts). */
  hideSuggestions?: boolean;
  /** Where in the document (from graphql-js), when the error has a place. */
  locations?: GraphQLFormattedError['locations'];
  path?: GraphQLFormattedError['path'];
}

/**
 * The one AppError -> GraphQL error mapping: `extensions.code`,
 * `extensions.http.status` (Apollo strips it by default; the contract keeps
 * it), the field list as `extensions.errors`, and the request id.
 */
export function toGraphQLError(error: AppError, options: GraphQLRenderOptions): GraphQLFormattedError {
  const { requestId, exposeDetails = false, hideSuggestions = false, locations, path } = options;
  return {
    message: hideSuggestions ? withoutSuggestions(error.message) : error.message,
    ...(locations ? { locations } : {}),
    ...(path ? { path } : {}),
    extensions: {
      code: error.code,
      http: { status: error.status },
      ...(error.fieldErrors?.length ? { errors: hideSuggestions ? fieldErrorsWithoutSuggestions(error.fieldErrors) : error.fieldErrors } : {}),
      ...(exposeDetails && isUnexpected(error) && error.originalError ? { debug: error.originalError.message } : {}),
      requestId,
    },
  };
}
