import type { Actor } from './actor.js';
import { errors } from '../errors/index.js';
import type { AppContext } from './context.js';

/** The caller, or the 401 that explains why there is none. */
export function requireActor(context: Pick<AppContext, 'actor' | 'credentialError'>): Actor {
  if (context.credentialError) throw context.credentialError;
  if (!context.actor) throw errors.unauthenticated();
  return context.actor;
}
