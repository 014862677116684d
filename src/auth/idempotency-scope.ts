import type { AppContext } from './context.js';

/**
 * Whose `Idempotency-Key`s a request's are: the credential (a user in person,
 * or one API key) and the tenant it acts in. The same key sent by another
 * user or another key is another key. Undefined without a caller.
 */
export function idempotencyScope(context: AppContext): string | undefined {
  const { actor } = context;
  if (!actor) return undefined;
  const credential = actor.via.kind === 'api-key' ? `api-key:${actor.via.apiKeyId}` : `user:${actor.userId}`;
  return `${credential}|tenant:${actor.tenantId ?? ''}`;
}
