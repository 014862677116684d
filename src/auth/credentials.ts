import type { Actor } from './actor.js';
import { errors } from '../errors/index.js';
import { refusedCredential } from './credential-refusal.js';

/**
 * The one way both surfaces (GraphQL via Apollo, REST via SOFA) turn request
 * headers into an Actor. A credential arrives as `Authorization: Bearer <x>`
 * or `X-API-Key: <x>`; each strategy says whether it recognises it (API key
 * secrets carry the `ak_` prefix, JWTs do not) and then authenticates it.
 */
export interface CredentialSource {
  /** Where the credential came from. */
  from: 'bearer' | 'x-api-key';
  value: string;
}

/** What a strategy may need to know about the request besides the credential. */
export interface RequestFacts {
  ip: string;
  origin?: string;
  method: string;
  path: string;
  /**
   * A re-check of a credential already accepted (an open subscription, once a
   * second): every check of the credential runs, but it is no use of it (an
   * API key's hourly quota and usage log are not touched).
   */
  recheck?: boolean;
}

export interface CredentialStrategy {
  name: string;
  recognises(credential: CredentialSource): boolean;
  /** Resolves the actor, or throws an AppError (401, 403, 429). */
  authenticate(credential: CredentialSource, request: RequestFacts): Promise<Actor>;
}

/** Secrets of API keys start with this; the api-keys strategy recognises it (its format: shared/credential-shapes.ts). */
export { API_KEY_PREFIX } from '../shared/index.js';

type HeaderValue = string | string[] | undefined | null;
export type HeaderReader = (name: string) => HeaderValue;

/** Finds the credential in the headers; null when there is none. */
export function readCredential(header: HeaderReader): CredentialSource | null {
  const apiKey = single(header('x-api-key'));
  if (apiKey) return { from: 'x-api-key', value: apiKey.trim() };
  const authorization = single(header('authorization'));
  if (!authorization) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!match) throw refusedCredential('header', 'malformed', errors.unauthenticated('Authorization header must be "Bearer <credential>"'));
  return { from: 'bearer', value: match[1] };
}

export type ActorResolver = (header: HeaderReader, request: RequestFacts) => Promise<Actor | null>;

/**
 * Builds the resolver from an ordered list of strategies. No credential:
 * null (anonymous; the auth checker refuses protected operations). A
 * credential nobody recognises or that fails: 401.
 */
export function createActorResolver(strategies: readonly CredentialStrategy[]): ActorResolver {
  return async (header, request) => {
    const credential = readCredential(header);
    if (!credential) return null;
    const strategy = strategies.find((candidate) => candidate.recognises(credential));
    if (!strategy) throw refusedCredential('header', 'unrecognised', errors.unauthenticated('Unrecognised credential'));
    return strategy.authenticate(credential, request);
  };
}

function single(value: HeaderValue): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  return text?.trim() ? text : undefined;
}
