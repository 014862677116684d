/**
 * Every event type the service emits: the audit actions of its mutations
 * (one event per successful audited change, `type` = the action) and the
 * events it raises by itself. Webhook subscriptions, the `events`
 * subscription's `types` and the `events` query's `type` are checked
 * against it. A test keeps the audit half equal to the actions the audit
 * trail records.
 */
export const AUDITED_EVENT_TYPES = [
  'api-keys.create',
  'api-keys.update',
  'api-keys.disable',
  'api-keys.enable',
  'api-keys.revoke',
  'api-keys.roll',
  'auth.logout',
  'auth.password-change',
  'auth.password-ticket-redeem',
  'auth.refresh-reuse',
  'auth.session-end',
  'menus.create',
  'menus.update',
  'menus.delete',
  'roles.create',
  'roles.update',
  'roles.delete',
  'users.create',
  'users.update',
  'users.disable',
  'users.enable',
  'users.delete',
  'users.password-ticket',
  'webhooks.create',
  'webhooks.update',
  'webhooks.delete',
  'webhooks.test-send',
  'webhooks.delivery-retry',
] as const;

/** Raised by the service itself, not by a caller's mutation. */
export const SYSTEM_EVENT_TYPES = [
  /** 7 days and 1 day before a key's expiresAt, once each. */
  'api-keys.expiring',
  /** A key's first 429 in an hour, once across instances. */
  'api-keys.rate-limited',
  /** Sign-in throttling starts for an account. */
  'users.sign-in-locked',
  /** Sent by POST /webhooks/{id}/test to that endpoint only. */
  'webhooks.test',
  /** An endpoint failing for 5 days in a row was disabled. */
  'webhooks.disabled',
] as const;

export const EVENT_TYPES: readonly string[] = [...AUDITED_EVENT_TYPES, ...SYSTEM_EVENT_TYPES];

/** Every type, for a subscription list (webhook `events`). */
export const ALL_EVENT_TYPES = '*';

export function isEventType(value: string): boolean {
  return EVENT_TYPES.includes(value);
}
