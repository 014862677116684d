import { createParameterDecorator } from 'type-graphql';
import { requireActor } from './require-actor.js';
import type { AppContext } from './context.js';

/** Injects the authenticated `Actor`; throws 401 when there is none. */
export function CurrentActor() {
  return createParameterDecorator<AppContext>(({ context }) => requireActor(context));
}
