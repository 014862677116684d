import type { ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';

/**
 * The requests being handled: from arrival until the app ends the response.
 * `server.close()` waits for sockets, not for handlers: a request whose
 * client went away can still be writing (a record, then its audit record)
 * when shutdown closes the database, which cut it halfway. Shutdown waits
 * for these first (app.ts stop()).
 */
export interface InFlight {
  /** Mounted first: counts every request. */
  track: RequestHandler;
  /** Resolves once no request is being handled, or after `timeoutMs`; answers how many were still being handled. */
  settled(timeoutMs: number): Promise<number>;
}

/** How long a request whose client went away is waited for at most (a handler that never ends its response is not held forever). */
const ABANDONED_LIMIT_MS = 60_000;

export function trackInFlight(): InFlight {
  const open = new Set<ServerResponse>();
  let onEmpty: (() => void) | undefined;
  const done = (res: ServerResponse) => {
    if (open.delete(res) && open.size === 0) onEmpty?.();
  };

  const track: RequestHandler = (_req, res, next) => {
    open.add(res);
    // 'close' comes for every response: after it is sent, or when the client left first.
    res.once('close', () => {
      if (res.writableEnded) return done(res);
      // The client left before the answer: no 'finish' will come, so the
      // handler is done when it ends the response (or after the limit).
      const limit = setTimeout(() => done(res), ABANDONED_LIMIT_MS).unref();
      const end = res.end;
      res.end = function (this: typeof res, ...args: unknown[]) {
        clearTimeout(limit);
        done(res);
        return (end as (...a: unknown[]) => typeof res).apply(this, args);
      } as typeof res.end;
    });
    next();
  };

  const settled = (timeoutMs: number) =>
    new Promise<number>((resolve) => {
      if (open.size === 0) return resolve(0);
      const timer = setTimeout(() => {
        onEmpty = undefined;
        resolve(open.size);
      }, timeoutMs);
      onEmpty = () => {
        clearTimeout(timer);
        onEmpty = undefined;
        resolve(0);
      };
    });

  return { track, settled };
}
