/**
 * Which limit refused a GraphQL document (limits.ts, query-cost.rule.ts): the
 * refusal's error is marked when made, and read back from what Apollo
 * reports, for the metrics' count of refused documents by limit. The answer
 * itself is unchanged.
 */

/** The limits a refusal names (metrics: graphql_documents_refused_total's `limit`). */
export type GraphQLLimit = 'depth' | 'aliases' | 'directives' | 'tokens' | 'cost';

/** Which limit made each refusal, by the error reported (its wrappers reach it as `originalError`). */
const refusals = new WeakMap<object, GraphQLLimit>();

/** Marks `error` as the refusal of `limit`; answers it. */
export function limitRefusal<T extends object>(limit: GraphQLLimit, error: T): T {
  refusals.set(error, limit);
  return error;
}

/** graphql-js's parse refusal past `maxTokens` (its only word for it is the message, spelt "more that" in graphql 16). */
const TOKEN_LIMIT_MESSAGE = /Document contains more th[ae][nt] \d+ tokens/;

/**
 * The limit that refused a document, from an error Apollo reports (its own
 * wrappers included), or undefined when a limit is not why.
 */
export function refusedLimit(error: unknown): GraphQLLimit | undefined {
  for (let at = error, depth = 0; at && typeof at === 'object' && depth < 4; at = (at as { originalError?: unknown }).originalError, depth++) {
    const limit = refusals.get(at);
    if (limit) return limit;
    if (TOKEN_LIMIT_MESSAGE.test((at as { message?: unknown }).message as string)) return 'tokens';
  }
  return undefined;
}
