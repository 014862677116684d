import type { Request } from 'express';
import type { AppConfig } from '../config.js';
import { isAppError } from '../errors/index.js';
import type { Logger } from '../logger.js';
import type { AppContext } from './context.js';
import type { ActorResolver } from './credentials.js';

/**
 * The one context factory, called by the request edge (src/http/request-edge.ts)
 * for both surfaces, so credentials, request id and caller facts are the same
 * on GraphQL and REST. A refused credential is kept in `credentialError` and
 * thrown by the first protected operation (login stays open).
 */
export function createRequestContextFactory(config: AppConfig, resolveActor: ActorResolver) {
  return async (req: Request, { requestId, logger }: { requestId: string; logger: Logger }): Promise<AppContext> => {
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
