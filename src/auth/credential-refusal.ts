/**
 * Why a credential was refused, as a bounded label (metrics'
 * credential_refusals_total): each refusal is marked where it is decided,
 * and the request context reads the mark of the refusal it keeps. The answer
 * (its status and words) is unchanged.
 */
export type RefusedCredential = 'jwt' | 'api_key' | 'refresh_token' | 'header';

export interface CredentialRefusal {
  credential: RefusedCredential;
  /** e.g. `expired`, `invalid`, `revoked`, `account_disabled`, `not_found`, `rate_limited`. */
  reason: string;
}

const refusals = new WeakMap<object, CredentialRefusal>();

/** Marks `error` as the refusal of a `credential` for `reason`; answers it. */
export function refusedCredential<T extends object>(credential: RefusedCredential, reason: string, error: T): T {
  refusals.set(error, { credential, reason });
  return error;
}

/** The mark of a credential's refusal; undefined for an error no refusal site marked. */
export function credentialRefusalOf(error: unknown): CredentialRefusal | undefined {
  return typeof error === 'object' && error !== null ? refusals.get(error) : undefined;
}
