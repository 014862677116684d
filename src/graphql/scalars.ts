/**
 * Scalars areas use beyond GraphQL's own. Dates use type-graphql's built-in
 * `DateTimeISO` (a TS `Date` field maps to it); free-form objects (API key
 * `metadata`) use `JSONObject`: `@Field(() => JSONObject)`.
 */
export { GraphQLJSONObject as JSONObject } from 'graphql-scalars';
