import type { FieldError } from './catalogue.js';

/**
 * graphql-js's suggestion (`didYouMean`: ` Did you mean "email" or "social"?`),
 * in its own messages and in ours, which say unknown fields its way on both
 * surfaces. Production leaves them out, as Apollo's
 * hideSchemaDetailsFromClientErrors does for graphql-js's: they spell out
 * the schema that introspection keeps hidden there.
 */
const SUGGESTION = / Did you mean "[^?]*\?/g;

export function withoutSuggestions(text: string): string {
  return text.replace(SUGGESTION, '');
}

export function fieldErrorsWithoutSuggestions(fieldErrors: readonly FieldError[]): FieldError[] {
  return fieldErrors.map((error) => ({ ...error, message: withoutSuggestions(error.message) }));
}
