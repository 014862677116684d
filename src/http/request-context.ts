import type { Request } from 'express';
import type { ActorResolver } from '../auth/credentials.js';
import type { AppConfig } from '../config.js';
import { isAppError } from '../errors.js';
import type { AppContext } from '../graphql/context.js';
import type { Logger } from '../logger.js';

export type RequestContextFactory = (req: Request) => Promise<AppContext>;

/**
 * The one context factory: Apollo (GraphQL) and SOFA (REST) both call it with
 * the express request, so credentials, request id and caller facts are the
 * same on both surfaces. A refused credential is kept in `credentialError`
 * and thrown by the first protected operation.
 */
export function createRequestContextFactory(
  config: AppConfig,
  resolveActor: ActorResolver,
  fallbackLogger: Logger,
): RequestContextFactory {
  return async (req) => {
    const requestId = String(req.id ?? '');
    const logger: Logger = req.log ?? fallbackLogger;
    const ip = req.ip ?? req.socket.remoteAddress ?? '';
    const origin = req.get('origin') ?? undefined;
    const context: AppContext = { actor: null, requestId, ip, origin, logger, config };
    try {
      context.actor = await resolveActor((name) => req.headers[name], {
        ip,
        origin,
        method: req.method,
        path: req.originalUrl.split('?')[0],
      });
    } catch (err) {
      if (!isAppError(err)) throw err;
      context.credentialError = err;
    }
    return context;
  };
}
