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

/**
 * `counts`: the requests to wait for, by path: API calls, which write. A
 * page or file download whose client left may never end its response
 * (express.static stops its stream), and has nothing to finish anyway.
 */
export function trackInFlight(counts: (path: string) => boolean): InFlight {
  const open = new Set<ServerResponse>();
  const waiting = new Set<() => void>();
  const done = (res: ServerResponse) => {
    if (!open.delete(res) || open.size > 0) return;
    for (const wake of waiting) wake();
  };

  const track: RequestHandler = (req, res, next) => {
    if (!counts(req.path)) return next();
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
      const wake = () => {
        clearTimeout(timer);
        waiting.delete(wake);
        resolve(0);
      };
      const timer = setTimeout(() => {
        waiting.delete(wake);
        resolve(open.size);
      }, timeoutMs);
      waiting.add(wake);
    });

  return { track, settled };
}
