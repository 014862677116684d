import { isOpenOperation } from '../graphql/index.js';
import type { CallerAdmission } from '../http/index.js';
import type { AppContext } from './context.js';
import { requireActor } from './require-actor.js';
import type { ServiceMetrics } from '../metrics/index.js';

/**
 * The credential before the arguments: a request without a usable
 * credential (none, or one refused: malformed, expired, revoked, ...) that
 * calls any operation not open to anyone is refused as the auth checker
 * would refuse it (401 with `WWW-Authenticate: Bearer`, or the credential's
 * own 403/429), before a single argument is read or validated. Otherwise an
 * anonymous caller would learn the argument rules of operations it may not
 * call, and a client that forgot its token would read a 400 about its input.
 *
 * It runs at the request edge (src/http/use-request-edge.ts) on the context
 * already made there: the credential is authenticated, and an API key's use
 * counted, once per request, as before. A caller with a credential passes
 * untouched (its arguments are read, then `@Authorized` decides); open
 * operations (`isOpenOperation`: no `@Authorized`, i.e. login) keep their
 * argument errors for everyone.
 */
export function credentialFirst({ isOpen = isOpenOperation, metrics }: { isOpen?: (operation: string) => boolean; metrics?: ServiceMetrics } = {}): CallerAdmission<AppContext> {
  return (context, called) => {
    if (context.actor) return;
    const operations = called();
    // Unknown (no route, an unparsable document): the 404 or parse error that follows says nothing of arguments.
    if (!operations || operations.every(isOpen)) return;
    // A refused credential was counted when it was refused (request-context.ts); none at all is counted here.
    if (!context.credentialError) metrics?.credentialRefused('none', 'missing');
    requireActor(context);
  };
}
