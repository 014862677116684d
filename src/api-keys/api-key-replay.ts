/**
 * A createApiKey answer replayed for a repeated `Idempotency-Key` carries no
 * secret: the secret is shown once and never stored, so the replay says how
 * to get a new one.
 */
export const REPLAYED_WITHOUT_SECRET =
  'This answer repeats an earlier request with the same Idempotency-Key; the secret is shown only once. Roll the key (POST /api-keys/{id}/roll, rollApiKey) for a new secret.';

/** The api-keys operations whose replayed answers differ from the first (http/use-idempotency-key.ts). */
export const apiKeyReplayedResults = {
  'Mutation.createApiKey': { field: 'key', detail: REPLAYED_WITHOUT_SECRET },
};
