/**
 * A createWebhook answer replayed for a repeated `Idempotency-Key` carries no
 * secret: it is shown once (and stored only sealed, for signing).
 */
export const REPLAYED_WITHOUT_SECRET =
  'This answer repeats an earlier request with the same Idempotency-Key; the signing secret is shown only once. Delete the endpoint (DELETE /webhooks/{id}, deleteWebhook) and create it again for a new secret.';

export const webhookReplayedResults = {
  'Mutation.createWebhook': { field: 'secret', detail: REPLAYED_WITHOUT_SECRET },
};
